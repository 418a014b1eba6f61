import type { CATEGORIES } from './schema';

/**
 * A catalogue entry is a **product** (one file in products/*.yaml): catalogue.ts builds this shape from
 * it, offline/knowledge.ts holds them all. The words are kept apart on purpose: a stack's *component*
 * (src/shared/stackModel.ts) is an instance placed in one stack, naming a product or a custom image; a
 * *service* is one container of a product, a docker-compose service.
 */

export type ProductCategory = (typeof CATEGORIES)[number];

export interface Healthcheck {
  test: string[];
  interval: string;
  timeout: string;
  retries: number;
  start_period: string;
}

export interface SecretSpec {
  name: string;
  description: string;
  required: boolean;
  secret_type: 'password' | 'text' | 'ssh_private_key';
}

/** How Grafana reads a service as a data source (see schema.ts). */
export interface DatasourceSpec {
  name: string;
  type: string;
  url?: string;
  user?: string;
  basicAuthUser?: string;
  jsonData?: Record<string, string | number | boolean>;
  secureJsonData?: Record<string, string>;
}

/** One container of a product. `${VAR}` values are filled from the `.env` file the plan writes. */
export interface ServiceSpec {
  name: string;
  image: string;
  command?: string[];
  environment?: Record<string, string>;
  /** `named:/path` for volumes, `./file:/path:ro` for config files the plan writes. */
  volumes?: string[];
  /** Port the service listens on inside the network (for the proxy and the diagram). */
  internalPort?: number;
  /** Published when no reverse proxy fronts the service (`host:container`). */
  publish?: string[];
  /** Always published, proxy or not (the proxy's own 80/443). */
  alwaysPublish?: string[];
  healthcheck?: Healthcheck;
  /** Why there is no healthcheck, when the image offers no way to check itself. */
  noHealthcheck?: string;
  dependsOn?: string[];
  /** `backend` for data services; `edge` when a proxy talks to it; both for apps. */
  networks: Array<'edge' | 'backend'>;
  /** Served to people through the reverse proxy (or published) as this sub-domain label; '' = the apex. */
  webLabel?: string;
  /** Rough resident memory, in MB, for sizing the machine. */
  memoryMb: number;
  /** Where an `image: build` service builds from, relative to the stack folder; `./<name>` when absent. */
  build?: { context: string; dockerfile?: string };
  ulimits?: Record<string, { soft: number; hard: number }>;
  /** Environment per product it can use, set when that product is in the stack (see schema.ts). */
  uses?: Record<string, Record<string, string>>;
  environmentWhen?: { domain?: Record<string, string>; plainHttp?: Record<string, string> };
  /** A dump of its data to stdout; without one its named volumes are backed up as files. */
  backup?: {
    dump: string;
    extension: string;
    /** One line per table, `<name> <rows>`, recorded at backup time and compared by the restore drill. */
    tables?: string;
    /** The restore drill: a throwaway container's environment, when it answers, and how it loads the dump. */
    restore?: { env: Record<string, string>; ready: string; load: string };
  };
  hostSysctl?: Record<string, string>;
  metrics?: { job: string; port: number; host?: string };
  /** Grafana reads it as a data source of this kind (see schema.ts): `${SECRET}` credentials reach Grafana through its environment. */
  datasource?: DatasourceSpec;
  generates?: { path: string; kind: 'prometheus-scrape' | 'grafana-datasources' };
  /** Its web endpoints when it has several (see schema.ts): the first gets its domain. */
  endpoints?: Array<{ name: string; port: number; label: string; check?: string }>;
  /** False when its published ports do not speak HTTP. */
  http?: boolean;
  /** Given the host's NVIDIA GPUs (set by the composer when the person asked and its product can use them). */
  gpu?: boolean;
  /** The image's GPU build, run instead of `image` when it is given the GPUs. */
  gpuImage?: string;
}

/**
 * The container ports a service serves people on over HTTP: its endpoints, or its `internalPort`; none
 * when its ports do not speak HTTP. Other published ports (DNS on 53, Git over SSH, a sync protocol) are
 * not web pages.
 */
export function webPortsOf(s: ServiceSpec): number[] {
  if (s.http === false) return [];
  if (s.endpoints?.length) return s.endpoints.map((e) => e.port);
  return s.internalPort ? [s.internalPort] : [];
}

export interface ConfigFile {
  path: string;
  content: string;
}

export interface Product {
  id: string;
  label: string;
  category: ProductCategory;
  /** What it is for, in the requirements document. */
  purpose: string;
  services: ServiceSpec[];
  secrets: SecretSpec[];
  /** Disk it needs, in GB, beyond the operating system. */
  diskGb: number;
  /** vCPUs it needs at least: the machine is sized up to them. */
  minCpus: number;
  /** Upstream documentation link. */
  docs: string;
  /** Names people use for it (regular expression sources, matched as whole words). */
  aliases: string[];
  /** Descriptions people give instead of its name (regular expression sources, matched as whole words); see schema.ts. */
  describedAs: string[];
  /** Its aliases are ordinary words for a kind of workload, read only beside products such a workload uses; see schema.ts. */
  kindWords: boolean;
  /** A domain is asked for when it is in the stack. */
  asksDomain: boolean;
  /** The image and label of a version asked for by number; see schema.ts. */
  versions?: { image: string; label: string };
  /** Catalogued products that do a similar job: offered, never swapped in. */
  similar: string[];
  /** Products outside the catalogue it can stand in for, when the person agrees. */
  alternativeTo: string[];
  /** Catalogued products it needs in the same stack: the preferred choice of each need. */
  requires: string[];
  /** Each need with every product that fills it, preferred first. */
  needs: string[][];
  unsupported: Record<string, { use: string; why: string }>;
  files: ConfigFile[];
  bootstrap?: { service: string; ready: string; commands: string[]; says: string };
  proxy?: { config: 'caddyfile' | 'nginx' | 'traefik-labels' };
  gpu: boolean;
  /** Kinds of workload it fills when asked for without a name, with its preference (1 first); see schema.ts. */
  defaultFor: Partial<Record<'monitoring' | 'metrics' | 'logging' | 'cache' | 'queue' | 'proxy', number>>;
  apexRank: number;
  /** Holds logins or personal data: its web ports are never public over plain HTTP unless the person said so. */
  sensitive: boolean;
  /** Whether it needs HTTPS to work ('required'), should have it, or serves no people. */
  tls: 'required' | 'recommended' | 'none';
}
