import YAML from 'yaml';
import type { ServerFacts } from '../../../shared/stackModel';
import {
  ACME_EMAIL_SECRET,
  ADMIN_CIDR_SECRET,
  APP_REPOSITORY_SECRET,
  BUILT_PRODUCT,
  PRODUCTS,
  CERTBOT_IMAGE,
  providerOf,
  providerSecrets,
  SSH_PUBLIC_KEY_SECRET,
  type Product,
  type ConfigFile,
  type SecretSpec,
  type ServiceSpec,
} from './knowledge';
import { webPortsOf } from '../catalogue/product';
import { productMustStayPrivate } from '../verifier/catalogueKnowledge';
import { chosenProxy, type Facts, type ProviderId, type ProxyId } from './facts';
import { portsAsKnown, serverProxyOf, serverSite, siteNote, type ServerSite } from './serverProxy';
import { adoptRepositoryCompose, REPOSITORY_COMPONENT, type RepositoryLayout } from './repositoryCompose';
import { backupSecretsFor } from './backupSteps';
import { sshTargetLabel } from './sshTarget';
import type { StackPlace } from './backupScripts';
import { LEGACY_PLACE } from './stackPlace';
import { grafanaDatasourcesYaml, wireDatasources } from './grafanaDatasources';
import { labelOf } from './versions';

/**
 * The composer: turns facts into a stack — the docker-compose file, the files it mounts, the secrets
 * it needs, the machine it runs on, a mermaid diagram and the routes the reverse proxy serves.
 */

export interface Route {
  host: string;
  service: string;
  port: number;
  /** Which of the service's catalogue endpoints it reaches, when it has several (MinIO's `api` or `console`). */
  endpoint?: string;
}

export interface Machine {
  provider: ProviderId;
  providerLabel: string;
  /** The person's own server (its provider file says `existing`): the plan creates nothing and reaches it with their key. */
  existing: boolean;
  region: string;
  instanceType: string;
  memoryGb: number;
  vcpus: number;
  /** The root disk: sized by the plan where the provider allows it, else what the machine type comes with. */
  diskGb: number;
  /** A block volume for data, where the root disk of the machine type is too small and cannot grow. */
  volumeGb?: number;
  /** Where the provider encrypts disks at rest (AWS with Encrypted=true, Google Cloud and Azure by default). */
  encrypted: boolean;
}

export interface Repository {
  fullName: string;
  /** The analysed branch: the one deployed. */
  branch: string;
  /** A repository of the local provider: it reaches the sandbox as a git bundle, never through a URL. */
  local?: boolean;
  /** Its compose file and Dockerfiles, read at analysis. */
  layout?: RepositoryLayout;
  /** Variables of the analysis dialog's environment blocks (their values are user secrets). */
  envNames?: string[];
}

export interface StackOptions {
  /** Names cloud resources: `da-<slug>`. */
  slug?: string;
  /** The analysed repository the app component is built from. */
  repository?: Repository;
  /** What the target server's inspection found: the stack avoids the ports it already uses, and says so. */
  serverFacts?: ServerFacts;
  /** Where the project's stack lives on the server (stackPlace.ts); a plan made for no project renders the legacy `/opt/stack`. */
  place?: StackPlace;
}

export interface Stack {
  facts: Facts;
  name: string;
  /** Its directory, compose project name and backup paths on the server: every step, check and document reads them here. */
  place: StackPlace;
  components: Product[];
  proxy: ProxyId | undefined;
  tls: boolean;
  domain: string | undefined;
  services: ServiceSpec[];
  routes: Route[];
  /** Services reachable without the proxy, as `service: host port`. */
  published: Array<{ service: string; port: string }>;
  compose: Record<string, unknown>;
  composeYaml: string;
  files: ConfigFile[];
  secrets: SecretSpec[];
  machine: Machine;
  memoryMb: number;
  repository: Repository | undefined;
  /** Decisions made for the person, said out loud in the documents. */
  notes: string[];
  /** Only the host is touched (firewall, fail2ban, updates): no Docker, no containers. */
  hostOnly: boolean;
  /** Inbound sources allowed (CIDRs) instead of anywhere; `ssh` when only SSH is limited. */
  allowlist: string[];
  allowScope: 'ssh' | 'all';
  /** The host's SSH port, 22 unless the person moved it. */
  sshPort: number;
  /** Variables the deploy writes into `.env` from User Secrets. */
  envFile: string[];
  /** Services built from the repository's checkout (`stack/app`). */
  builds: string[];
  /** What the target server's inspection found, when the plan was made with it. */
  serverFacts?: ServerFacts;
  /** The proxy already on the server that serves the routes (`nginx on port 80`): the stack adds none and listens on loopback. */
  frontedBy?: string;
  /** The site that proxy gets for the routes, when its kind is known (said, or seen at inspection). */
  serverSite?: ServerSite;
}

const DATA_CATEGORIES = new Set(['database', 'cache', 'queue']);
/** Services of databases, caches and queues: on the internal network, published on loopback only when they are the workload. */
const DATA_SERVICES = new Set(
  Object.values(PRODUCTS).filter((c) => DATA_CATEGORIES.has(c.category)).flatMap((c) => c.services.filter((s) => s.webLabel === undefined).map((s) => s.name)),
);
const isDataComponent = (id: string): boolean => DATA_CATEGORIES.has(PRODUCTS[id]?.category ?? '');

const APP_PORTS: Record<string, number> = { 'Node.js': 3000, Python: 8000, Ruby: 3000, PHP: 80, Java: 8080, Go: 8080, Rust: 8080, '.NET': 8080 };


const slugify = (s: string): string =>
  s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 30) || 'stack';

/** A numeric reading of the expected load, to size the machine up for heavy use. */
function loadTierBump(load: string | undefined): number {
  if (!load) return 0;
  const m = load.match(/(\d[\d,.]*)\s?(k)?/i);
  if (!m) return /\b(high|heavy)\b/i.test(load) ? 1 : 0;
  const n = Number(m[1]!.replace(/,/g, '')) * (m[2] ? 1000 : 1);
  if (/req|rps|per second/i.test(load)) return n > 500 ? 2 : n > 50 ? 1 : 0;
  return n > 5000 ? 2 : n > 500 ? 1 : 0;
}

/** The disk the system, Docker and the images take, added to the data a person asks to keep. */
export const SYSTEM_DISK_GB = 20;

/**
 * The machine at the facts' provider (its file's sizes): the smallest size with memory enough for the
 * stack (or the memory asked for), moved up for heavy load and for a product's vCPUs. Where the size's
 * disk is fixed, data beyond it goes to a block volume, never a bigger claimed root disk.
 */
function machineFor(facts: Facts, memoryMb: number, diskGb: number, minCpus = 1): Machine {
  const provider = providerOf(facts.provider);
  const sizes = provider.sizes;
  const largest = sizes.length - 1;
  const needGb = (memoryMb + 512) * 1.25 / 1024;
  const fits = (gb: number): number => {
    const i = sizes.findIndex((s) => s.memoryGb >= gb);
    return i < 0 ? largest : i;
  };
  let tier = facts.memoryGb ? fits(facts.memoryGb) : fits(needGb);
  tier = Math.min(largest, tier + (facts.memoryGb ? 0 : loadTierBump(facts.load)));
  // A product that needs more vCPUs than the memory tier has moves the machine up (never past the largest).
  while (!facts.cpus && tier < largest && sizes[tier]!.vcpus < minCpus) tier += 1;
  const size = sizes[tier]!;
  const wanted = Math.max(diskGb, facts.storageGb ? facts.storageGb + SYSTEM_DISK_GB : 0);
  const fixedRoot = provider.disk === 'fixed' ? size.diskGb! : undefined;
  return {
    provider: provider.id,
    existing: provider.existing,
    providerLabel: facts.sshTarget ? `your existing server ${sshTargetLabel(facts.sshTarget)}` : provider.label,
    region: facts.region ?? provider.defaultRegion,
    instanceType: facts.instanceType ?? size.type,
    memoryGb: facts.memoryGb ?? size.memoryGb,
    vcpus: facts.cpus ?? size.vcpus,
    diskGb: fixedRoot ?? wanted,
    ...(fixedRoot !== undefined && wanted > fixedRoot ? { volumeGb: Math.max(10, wanted - SYSTEM_DISK_GB) } : {}),
    encrypted: fixedRoot === undefined && provider.encrypted,
  };
}

const clone = (s: ServiceSpec): ServiceSpec => JSON.parse(JSON.stringify(s)) as ServiceSpec;

/**
 * What the products need (the catalogue's `requires`): a need one of whose choices the stack has is met;
 * else its first choice not ruled out is added (Grafana gets Prometheus unless it reads Loki). A product
 * paired with one it cannot use gets the one it can, said out loud (n8n and MySQL).
 */
function addNeeds(ids: Set<string>, excluded: Set<string>, notes: string[], heldOut: ReadonlySet<string> = new Set()): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const id of [...ids]) {
      const c = PRODUCTS[id];
      if (!c) continue;
      for (const [dep, { use, why }] of Object.entries(c.unsupported)) {
        if (ids.has(dep) && !ids.has(use) && !excluded.has(use)) {
          notes.push(why);
          ids.add(use);
          changed = true;
        }
      }
      // Needs with choices are met here; a single dependency the person ruled out is said in the notes instead.
      for (const choices of c.needs.filter((n) => n.length > 1)) {
        // A choice the person removed although it was needed holds the need open: the notes say what lacks it.
        if (choices.some((x) => ids.has(x) || heldOut.has(x))) continue;
        const pick = choices.find((x) => !excluded.has(x));
        if (pick) {
          ids.add(pick);
          changed = true;
        }
      }
    }
  }
}

/**
 * Wires each service to the products it uses (its catalogue `uses`): their environment, and it waits for
 * them. Of a need with choices (Nextcloud's PostgreSQL or MariaDB) only the first the stack has is wired,
 * so a second database is never half-used; a setting the service already has is kept.
 */
function wireUses(services: ServiceSpec[], components: Product[]): void {
  const present = new Set(components.map((c) => c.id));
  for (const c of components) {
    const chosen = new Set(c.needs.map((choices) => choices.find((x) => present.has(x))).filter((x): x is string => Boolean(x)));
    const inNeeds = new Set(c.needs.flat());
    for (const own of c.services) {
      const s = services.find((x) => x.name === own.name);
      if (!s?.uses) continue;
      for (const [dep, env] of Object.entries(s.uses)) {
        if (!present.has(dep) || (inNeeds.has(dep) && !chosen.has(dep))) continue;
        s.environment = { ...env, ...s.environment };
        const waitFor = PRODUCTS[dep]!.services.filter((x) => x.internalPort).map((x) => x.name);
        s.dependsOn = [...new Set([...(s.dependsOn ?? []), ...waitFor])];
      }
    }
  }
}

/**
 * The host's GPUs, when the person said the server has them: given to every service of a product whose
 * catalogue entry can use them (its `gpu`); a stack where none can says so rather than dropping the ask.
 */
function giveGpus(facts: Facts, components: Product[], services: ServiceSpec[], notes: string[]): void {
  if (!facts.gpu) return;
  const able = components.filter((c) => c.gpu);
  for (const c of able) {
    for (const s of services) {
      const spec = c.services.find((x) => x.name === s.name);
      if (!spec) continue;
      s.gpu = true;
      // The image's GPU build (Open WebUI's -cuda tag), unless the person named an image of their own.
      if (spec.gpuImage && s.image === spec.image) s.image = spec.gpuImage;
    }
  }
  const unable = components.filter((c) => !c.gpu && c.category !== 'proxy' && !DATA_CATEGORIES.has(c.category)).map((c) => c.label);
  if (!able.length) notes.push(`You asked for a GPU, but ${unable.length ? `${unable.join(', ')} cannot use one` : 'nothing in this stack can use one'}: the containers run on the CPU.`);
  else notes.push(`${able.map((c) => c.label).join(', ')} ${able.length === 1 ? 'gets' : 'get'} the server's NVIDIA GPUs: the server needs the NVIDIA driver and the NVIDIA Container Toolkit (the start step checks Docker has the nvidia runtime).${unable.length ? ` ${unable.join(', ')} cannot use a GPU and ${unable.length === 1 ? 'runs' : 'run'} on the CPU.` : ''}`);
}

/** What was named and left out of an empty stack, in words. */
function leftOutSaying(facts: Facts): string {
  const gone = [...facts.excluded.values()].map((id) => PRODUCTS[id]?.label ?? id);
  const unknown = [...facts.unknown, ...facts.skipped];
  const parts = [...(gone.length ? [`${gone.join(', ')} ${gone.length === 1 ? 'was' : 'were'} ruled out`] : []), ...(unknown.length ? [`${unknown.join(', ')} ${unknown.length === 1 ? 'is' : 'are'} not in the catalogue`] : [])];
  return parts.length ? parts.join(' and ') : 'no software was named';
}

/** Builds the stack the facts describe; with nothing to run it is host-only, or a proxy alone when one was asked for. */
export function composeStack(facts: Facts, options: StackOptions = {}): Stack {
  if (options.repository?.layout?.compose && !facts.noContainers) return repositoryComposeStack(facts, options.repository, options.slug, options.place ?? LEGACY_PLACE);
  const notes: string[] = [];
  const ids = new Set(facts.components);
  addNeeds(ids, facts.excluded, notes, facts.heldOut);
  // Nothing to run (every product named was left out, or none was named): no placeholder is added. A proxy
  // that was asked for runs alone and says what the stack is; without one the plan prepares the host only.
  const nothingToRun = ids.size === 0 && !facts.custom.length;
  const hostOnly = facts.noContainers || (nothingToRun && !chosenProxy(facts));
  if (hostOnly) ids.clear();
  if (nothingToRun && !facts.noContainers) notes.push(`Nothing runs in containers: ${leftOutSaying(facts)}${hostOnly ? ', so the plan prepares the server only (firewall, fail2ban, security updates) and installs no Docker' : ', so the proxy serves a page saying what this stack is until something is put behind it'}. Name what to run to add it.`);
  const hasWorkload = [...ids].some((id) => !isDataComponent(id)) || facts.custom.length > 0;

  // A product that is itself the proxy (Nginx Proxy Manager) holds 80 and 443: no second proxy.
  const holdsWebPorts = [...ids].some((id) => PRODUCTS[id]?.services.some((x) => x.alwaysPublish?.includes('80:80')));
  const domain = facts.noDomain ? undefined : facts.domain;
  // The server already serves the web on 80 (or 443): a second proxy cannot bind them. With a domain, the
  // proxy that is there fronts the stack (its services on loopback ports the notes name); without one, the
  // services are published on free ports of their own.
  const wantedProxy = hostOnly || holdsWebPorts ? undefined : chosenProxy(facts);
  // The server's ports: the inspection's, or 80 and 443 held by the proxy the person said runs there.
  const serverPorts = portsAsKnown(facts.serverProxy, options.serverFacts);
  const heldWebPorts = serverPorts.filter((p) => p.protocol === 'tcp' && (p.port === 80 || (p.port === 443 && domain)));
  const holders = [...new Set(heldWebPorts.map((p) => p.holder ?? 'something'))];
  // A proxy the person named is kept (moved to free ports, said in the notes); only one chosen for them steps aside.
  const frontedBy = wantedProxy && !facts.proxy && heldWebPorts.length
    ? holders.map((h) => { const ports = heldWebPorts.filter((p) => (p.holder ?? 'something') === h).map((p) => p.port); return `${h} on port${ports.length > 1 ? 's' : ''} ${ports.join(' and ')}`; }).join(' and ')
    : undefined;
  const externalProxy = Boolean(frontedBy && domain);
  const proxy = frontedBy ? undefined : wantedProxy;
  if (frontedBy && !domain) notes.push(`The server already holds ${frontedBy}, so this plan adds no reverse proxy: each web service is published on a port of its own (listed under Access).`);
  let tls = Boolean(proxy && domain);
  // A proxy the person named, kept beside what holds the server's 80 and 443: Let's Encrypt's challenges come
  // to those ports, so it could get no certificate; it serves plain HTTP on the ports it moves to, said so.
  const acmeBlocked = tls && [80, 443].every((port) => serverPorts.some((p) => p.protocol === 'tcp' && p.port === port));
  if (acmeBlocked) {
    tls = false;
    notes.push(`${PRODUCTS[proxy!]!.label} cannot get a certificate for ${domain}: the server's ports 80 and 443 are held by ${holders.join(' and ')}, and Let's Encrypt's challenges come to them; it serves plain HTTP on the ports it moves to. Free 80 and 443 for it, or let the proxy that holds them serve ${domain}.`);
  }
  if (facts.tls && !domain) {
    notes.push("TLS needs a domain name pointing at the server (Let's Encrypt validates the domain); without one the stack is served over plain HTTP on the server's IP.");
    tls = false;
  }

  const components: Product[] = [...ids]
    .sort((a, b) => Object.keys(PRODUCTS).indexOf(a) - Object.keys(PRODUCTS).indexOf(b))
    .map((id) => PRODUCTS[id]!)
    .filter(Boolean)
    // What runs is what the documents name: another version than the pinned one is labelled by its own.
    .map((p) => (facts.images[p.id] ? { ...p, label: labelOf(p, facts.images[p.id]) } : p));
  if (proxy) components.push(PRODUCTS[proxy]!);
  for (const c of components.filter((x) => facts.images[x.id] && x.label !== PRODUCTS[x.id]!.label)) {
    notes.push(`${c.label} runs as you asked (${facts.images[c.id]}); the catalogue's settings for it (health check, backup, wiring) were written for ${PRODUCTS[c.id]!.label}, and the start step's health gate shows whether they hold for this version.`);
  }

  const services: ServiceSpec[] = components.flatMap((c) => c.services.map(clone));
  // An image the person named is used as given.
  for (const c of components) {
    const image = facts.images[c.id];
    const repo = image?.slice(0, image.lastIndexOf(':'));
    for (const s of services) if (image && c.services.some((x) => x.name === s.name) && s.image.slice(0, s.image.lastIndexOf(':')) === repo) s.image = image;
  }
  for (const c of facts.custom) {
    services.push({
      name: c.name,
      image: c.image,
      ...(Object.keys(c.environment).length ? { environment: { ...c.environment } } : {}),
      ...(c.volumes.length ? { volumes: [...c.volumes] } : {}),
      ...(c.port ? { internalPort: c.port, publish: [`${c.port}:${c.port}`], webLabel: c.name } : {}),
      noHealthcheck: 'an image you named: the plan does not know how it checks itself; add a healthcheck when you know one',
      networks: ['edge', 'backend'],
      memoryMb: 256,
    });
  }
  const byName = new Map(services.map((s) => [s.name, s]));
  const name = slugify(options.slug ?? 'stack');
  /**
   * A service holding logins or personal data (the catalogue's `sensitive`) is not served to the public on
   * plain HTTP, unless the person said so or limited every inbound port to their own sources.
   */
  const onlyFromAllowlist = facts.allowScope === 'all' && facts.allowlist.length > 0;
  const plainHttpBarred = (s: ServiceSpec): boolean => !facts.plainHttpOk && !onlyFromAllowlist && Boolean(PRODUCTS[componentOf(s.name)]?.sensitive) && s.image !== 'build';

  // The application built from its repository: its port and runtime follow its language.
  const app = services.find((x) => x.image === 'build');
  if (app) {
    const port = APP_PORTS[facts.appLanguage ?? 'Node.js'] ?? 3000;
    app.internalPort = port;
    app.publish = [`80:${port}`];
    app.environment = { PORT: String(port), ...(facts.appLanguage === 'Node.js' || !facts.appLanguage ? { NODE_ENV: 'production' } : {}) };
  }
  wireUses(services, components);
  wireDatasources(services, components);
  giveGpus(facts, components, services, notes);
  if (app) {
    for (const n of options.repository?.envNames ?? []) if (!(n in app.environment!)) app.environment![n] = `\${${n}}`;
    splitByDockerfile(services, app, options.repository?.layout);
  }

  // Routes: a domain named for a product goes to it; the primary workload gets the main domain, the others sub-domains of it.
  // What the person said must stay private is never served through the proxy.
  const routable = services.filter((s) => s.webLabel !== undefined && !facts.keepPrivate.has(componentOf(s.name)));
  routable.sort((a, b) => (PRODUCTS[componentOf(a.name)]?.apexRank ?? 0) - (PRODUCTS[componentOf(b.name)]?.apexRank ?? 0));
  const routes: Route[] = [];
  if (proxy || externalProxy) {
    const explicit = new Map<string, string>();
    /** Hosts named for a service's other endpoints (`<service>/<endpoint>`). */
    const explicitEndpoint = new Map<string, string>();
    for (const d of domain ? facts.domains : []) {
      const svc = d.component ? routable.find((s) => componentOf(s.name) === d.component) : undefined;
      if (svc && d.endpoint && d.endpoint !== svc.endpoints?.[0]?.name) explicitEndpoint.set(`${svc.name}/${d.endpoint}`, d.host);
      else if (svc && !explicit.has(svc.name)) explicit.set(svc.name, d.host);
    }
    const base = domain && [...explicit.values()].includes(domain) && domain.split('.').length > 2 ? domain.split('.').slice(1).join('.') : domain;
    let apexTaken = [...explicit.values()].includes(domain ?? '');
    for (const s of routable) {
      if (!domain) {
        // Plain HTTP on the server's address: never a sensitive app's, unless the person said so (it stays on loopback below).
        if (!routes.length && !plainHttpBarred(s)) routes.push({ host: ':80', service: s.name, port: s.internalPort! });
        continue;
      }
      let host = explicit.get(s.name);
      if (!host && !apexTaken) {
        host = domain;
        apexTaken = true;
      }
      const first = host ?? `${s.webLabel || s.name}.${base}`;
      const [main, ...others] = s.endpoints ?? [];
      routes.push({ host: first, service: s.name, port: main?.port ?? s.internalPort!, ...(main ? { endpoint: main.name } : {}) });
      // A product's other endpoints (MinIO's console beside its S3 API) get sub-domains of their own beside the first.
      const parent = first.split('.').length > 2 ? first.split('.').slice(1).join('.') : first;
      for (const e of others) {
        let at = explicitEndpoint.get(`${s.name}/${e.name}`) ?? `${e.label}.${parent}`;
        if (routes.some((r) => r.host === at)) at = `${e.label}-${s.name}.${parent}`;
        routes.push({ host: at, service: s.name, port: e.port, endpoint: e.name });
      }
    }
  }
  const routed = new Set(routes.map((r) => r.service));
  // Settings a product takes only when served at a domain, or only over plain HTTP.
  for (const x of services) {
    const route = routes.find((r) => r.service === x.name);
    const atDomain = Boolean(route && route.host !== ':80' && domain);
    if (atDomain && x.environmentWhen?.domain) x.environment = { ...x.environment, ...x.environmentWhen.domain };
    if (!tls && x.environmentWhen?.plainHttp) x.environment = { ...x.environment, ...x.environmentWhen.plainHttp };
  }

  // Behind the server's own proxy the addresses are the domain's, over HTTPS where that proxy has a certificate.
  fillAddresses(services, routes, tls || externalProxy);
  // A product waits only for what the stack runs (Grafana without Prometheus when it reads Loki).
  for (const x of services) if (x.dependsOn) x.dependsOn = x.dependsOn.filter((d) => byName.has(d) || services.some((y) => y.name === d));

  const files: ConfigFile[] = [];
  const proxyService = services.find((s) => s.alwaysPublish?.includes('443:443'));
  if (proxyService && !tls) proxyService.alwaysPublish = proxyService.alwaysPublish!.filter((p) => !p.startsWith('443'));
  const proxyKind = proxy ? PRODUCTS[proxy]!.proxy?.config : undefined;
  const proxyFront = proxy ? byName.get(PRODUCTS[proxy]!.services[0]!.name) : undefined;
  if (proxyKind === 'caddyfile') {
    const caddy = proxyFront!;
    if (tls) caddy.environment = { ACME_EMAIL: '${ACME_EMAIL}' };
    const scraped = services.some((x) => x.generates?.kind === 'prometheus-scrape') ? caddy.metrics?.port : undefined;
    if (!scraped) delete caddy.metrics;
    files.push({ path: 'Caddyfile', content: caddyfile(routes, tls, aboutStack(name, components), scraped) });
    caddy.dependsOn = routes.map((r) => r.service);
  }
  if (proxyKind === 'nginx') {
    const nginx = proxyFront!;
    nginx.dependsOn = routes.map((r) => r.service);
    files.push({ path: 'nginx/conf.d/default.conf', content: nginxConf(routes, tls, domain, aboutStack(name, components)) });
    if (tls) {
      services.push({
        name: 'certbot',
        image: CERTBOT_IMAGE,
        command: [],
        volumes: ['certbot_www:/var/www/certbot', 'letsencrypt:/etc/letsencrypt'],
        noHealthcheck: 'Certbot runs a renewal loop, not a server; there is nothing to probe',
        networks: ['edge'],
        memoryMb: 32,
      });
    } else {
      nginx.volumes = nginx.volumes!.filter((v) => v.startsWith('./'));
    }
  }
  if (proxyKind === 'traefik-labels') {
    const traefik = proxyFront!;
    traefik.command = [
      '--ping=true',
      '--providers.docker=true',
      '--providers.docker.exposedbydefault=false',
      '--providers.docker.network=edge',
      '--entrypoints.web.address=:80',
      ...(tls
        ? [
            '--entrypoints.websecure.address=:443',
            '--entrypoints.web.http.redirections.entrypoint.to=websecure',
            '--entrypoints.web.http.redirections.entrypoint.scheme=https',
            '--certificatesresolvers.le.acme.tlschallenge=true',
            '--certificatesresolvers.le.acme.email=${ACME_EMAIL}',
            '--certificatesresolvers.le.acme.storage=/letsencrypt/acme.json',
          ]
        : []),
    ];
    if (!tls) {
      traefik.volumes = traefik.volumes!.filter((v) => !v.startsWith('letsencrypt'));
    }
  }
  // Ports the person named: Git over SSH on another host port, or a product's web port as asked.
  for (const ask of facts.ports) {
    const owner = ask.component ? components.find((c) => c.id === ask.component) : undefined;
    const svc = owner
      ? services.find((x) => owner.services.some((o) => o.name === x.name) && (x.internalPort || x.alwaysPublish))
      : services.find((x) => x.webLabel !== undefined && !routed.has(x.name)) ?? services.find((x) => x.webLabel !== undefined);
    if (!svc) {
      notes.push(`Port ${ask.host} was asked for, but nothing in the stack listens there, so the firewall keeps it closed.`);
      continue;
    }
    const sshMapping = svc.alwaysPublish?.find((x) => x.endsWith(':22'));
    if (ask.ssh && sshMapping) {
      svc.alwaysPublish = svc.alwaysPublish!.map((x) => (x === sshMapping ? `${ask.host}:22` : x));
      for (const k of Object.keys(svc.environment ?? {})) if (k.endsWith('SSH_PORT')) svc.environment![k] = String(ask.host);
    } else if (svc.internalPort) {
      // A database, cache or queue named with a port ("redis port 6380") listens there on loopback only: what
      // the verifier refuses (published-private) is not planned, and the notes say how to reach it.
      const loopback = productMustStayPrivate(PRODUCTS[componentOf(svc.name)]);
      if (loopback) notes.push(`${svc.name} is on port ${ask.host} of the server's 127.0.0.1 only, as only the stack's services should reach it: reach it through an SSH tunnel (ssh -N -L ${ask.host}:127.0.0.1:${ask.host} <server>).`);
      svc.alwaysPublish = [...(svc.alwaysPublish ?? []).filter((x) => !x.endsWith(`:${svc.internalPort}`)), `${loopback ? '127.0.0.1:' : ''}${ask.host}:${svc.internalPort}`];
      svc.publish = (svc.publish ?? []).filter((x) => !x.endsWith(`:${svc.internalPort}`));
    }
  }
  // Published ports: the proxy's, the routed services' when there is no proxy, data services on loopback
  // only when they are the workload (reached through an SSH tunnel).
  const published: Array<{ service: string; port: string }> = [];
  let webPortTaken = false;
  // Host ports: one service each, none the server already uses (they move to the next free one, said in the notes).
  const inUse = new Map(serverPorts.map((p) => [`${p.port}/${p.protocol}`, p.holder ?? 'something on the server']));
  const taken = new Set<string>();
  const tunnelled: ServiceSpec[] = [];
  for (const s of services) {
    const ports: string[] = [...(s.alwaysPublish ?? [])];
    if (!proxy && s.publish && !routed.has(s.name)) {
      for (const p of s.publish) {
        if (p.startsWith('80:')) {
          if (webPortTaken) continue;
          webPortTaken = true;
        }
        ports.push(p);
      }
    }
    if (proxy && s.publish && !routed.has(s.name) && s.webLabel !== undefined) ports.push(...s.publish.filter((p) => !p.startsWith('80:')));
    if (!hasWorkload && DATA_SERVICES.has(s.name) && s.internalPort) ports.push(`127.0.0.1:${s.internalPort}:${s.internalPort}`);
    // Fronted by the proxy already on the server: reached by it on loopback, never from outside.
    if (externalProxy && routed.has(s.name) && s.internalPort) ports.push(`127.0.0.1:${loopbackPort(s.internalPort)}:${s.internalPort}`);
    // A sensitive app's web ports without TLS: bound to loopback, reached through an SSH tunnel (the proxy holds 80).
    // A database's own web UI (InfluxDB's) is private like the database: on loopback too.
    const privateUi = productMustStayPrivate(PRODUCTS[componentOf(s.name)]) && Boolean(s.publish?.length);
    if ((plainHttpBarred(s) || privateUi) && !routed.has(s.name)) {
      const web = privateUi ? (s.publish ?? []).map((p) => Number(p.split(':')[1]!.split('/')[0])) : webPortsOf(s);
      const local = (p: string): string => {
        const parts = p.split(':');
        if (parts.length === 3 || !web.includes(Number(parts[1]!.split('/')[0]))) return p;
        const host = ['80', '443'].includes(parts[0]!) ? loopbackPort(Number(parts[1]!.split('/')[0])) : parts[0];
        return `127.0.0.1:${host}:${parts[1]}`;
      };
      const bound = [...ports, ...(proxy ? (s.publish ?? []).filter((p) => p.startsWith('80:')) : [])].map(local);
      ports.splice(0, ports.length, ...bound);
      if (bound.some((p) => p.startsWith('127.0.0.1:'))) tunnelled.push(s);
    }
    // Kept private: loopback only (reached through an SSH tunnel), never on the server's public addresses.
    const own = facts.keepPrivate.has(componentOf(s.name)) ? ports.filter((p) => p.startsWith('127.0.0.1:')) : ports;
    s.publish = [...new Set(own)].map((p) => claimHostPort(p, s.name, taken, inUse, notes));
    for (const p of s.publish) published.push({ service: s.name, port: p });
    if (s.publish.length && !s.networks.includes('edge')) s.networks = ['edge', ...s.networks];
  }

  // Files generated from the stack (scrape jobs, datasources), then the products' own files as given.
  for (const x of services) {
    if (x.generates?.kind === 'prometheus-scrape') files.push({ path: x.generates.path, content: prometheusYml(services) });
    if (x.generates?.kind === 'grafana-datasources') files.push({ path: x.generates.path, content: grafanaDatasourcesYaml(services, components.find((c) => c.services.some((y) => y.name === x.name))!) });
  }
  for (const c of components) for (const f of c.files) files.push({ path: f.path, content: f.content.replaceAll('{{name}}', name) });
  shareNetworks(services);

  if (app) {
    const built = services.filter((x) => x.image === 'build');
    const from = options.repository ? `${options.repository.fullName}${options.repository.branch ? ` (branch ${options.repository.branch})` : ''}` : 'its repository';
    notes.push(
      built.length > 1
        ? `The application is built from ${from} as ${built.length} services, one per Dockerfile: ${built.map((x) => `${x.name} (${x.build?.context ?? x.name}${x.internalPort ? `, port ${x.internalPort}` : ''})`).join(', ')}; add a HEALTHCHECK to each Dockerfile so Compose can report their health.`
        : `The application is built from ${from} with its Dockerfile and listens on port ${app.internalPort}; add a HEALTHCHECK to that Dockerfile so Compose can report its health.`,
    );
  }
  let site: ServerSite | undefined;
  if (externalProxy) {
    const upstream = (r: Route): string => services.find((x) => x.name === r.service)?.publish?.find((p) => p.startsWith('127.0.0.1:') && p.endsWith(`:${r.port}`))?.split(':')[1] ?? String(r.port);
    const known = serverProxyOf(facts.serverProxy, options.serverFacts);
    // A proxy in a container reaches the services by name on the stack's edge network; one on the host, on loopback.
    if (known) site = serverSite(known, (options.place ?? LEGACY_PLACE).project, (options.place ?? LEGACY_PLACE).project, routes.map((r) => ({ host: r.host, service: r.service, upstream: known.container ? `${r.service}:${r.port}` : `127.0.0.1:${upstream(r)}` })));
    notes.push(
      `The server already holds ${frontedBy}, so this plan adds no reverse proxy of its own: the proxy that is there serves ${routes.map((r) => r.host).join(', ')}. ${site ? siteNote(site) : `Add ${routes.length === 1 ? 'a site' : 'these sites'} to it (with its certificate for HTTPS): ${routes.map((r) => `${r.host} → http://127.0.0.1:${upstream(r)} (${r.service})`).join('; ')}.`} The services listen on loopback only, so nothing else reaches them.`,
    );
  }
  for (const s of tunnelled) {
    const label = PRODUCTS[componentOf(s.name)]?.label ?? s.name;
    const port = s.publish!.find((p) => p.startsWith('127.0.0.1:'))!.split(':')[1]!;
    const login = facts.sshTarget ? `${facts.sshTarget.user}@${facts.sshTarget.host}${facts.sshTarget.port !== 22 ? ` -p ${facts.sshTarget.port}` : ''}` : '<user>@<server>';
    const why = productMustStayPrivate(PRODUCTS[componentOf(s.name)])
      ? `${label} holds data only the stack's services should reach, so its web interface is not published either`
      : `${label} holds logins or personal data and ${domain ? `is not served at ${domain}` : 'there is no domain for a certificate'}, so it is not served on public plain HTTP`;
    notes.push(`${why}: it listens on the server's 127.0.0.1:${port} only. Reach it through an SSH tunnel (ssh -N -L ${port}:127.0.0.1:${port} ${login}, then open http://localhost:${port}). Give it a domain to serve it over HTTPS, or say that plain HTTP is what you want.`);
  }
  if (onlyFromAllowlist && !tls && !facts.plainHttpOk) {
    const served = services.filter((x) => PRODUCTS[componentOf(x.name)]?.sensitive && (routed.has(x.name) || x.publish?.some((p) => !p.startsWith('127.0.0.1:'))));
    for (const x of served) notes.push(`${PRODUCTS[componentOf(x.name)]!.label} is served over plain HTTP to ${facts.allowlist.join(', ')} only, as you limited it: its logins cross the network unencrypted; give it a domain to serve it over HTTPS.`);
  }
  if (!hasWorkload && services.some((x) => DATA_SERVICES.has(x.name))) {
    notes.push('Databases are not exposed to the internet: they listen on the server\'s loopback interface only; reach them through an SSH tunnel (ssh -L).');
  }
  if (published.some((p) => !p.port.startsWith('127.0.0.1') && !/^(80|443):/.test(p.port))) {
    notes.push('Ports Docker publishes bypass ufw, so the cloud firewall (security group) is what limits them; only the ports listed under Networking are opened there.');
  }

  const compose = hostOnly ? {} : buildCompose(services, proxy, routes, tls);
  const secrets = secretsFor(components, facts, tls, Boolean(app), options.repository);
  for (const n of app ? options.repository?.envNames ?? [] : []) secrets.push(environmentSecret(n));
  if (JSON.stringify(compose).includes('${SERVER_HOST}') && !secrets.some((x) => x.name === 'SERVER_HOST')) {
    secrets.push({ name: 'SERVER_HOST', description: "Public IP address or host name of the server (the address its apps advertise without a domain; for a new machine, add it once the machine exists)", required: true, secret_type: 'text' });
  }
  if (hostOnly) notes.push('Host only: no Docker and no containers are installed; the plan configures the firewall, fail2ban and automatic security updates on the server itself.');
  for (const c of components) {
    const lacking = c.needs.filter((need) => need.some((x) => facts.heldOut.has(x)) && !need.some((x) => ids.has(x)));
    for (const need of lacking) notes.push(`${c.label} needs ${need.map((x) => PRODUCTS[x]?.label ?? x).join(' or ')}, and you removed ${need.filter((x) => facts.heldOut.has(x)).map((x) => PRODUCTS[x]?.label ?? x).join(' and ')}: it stays out, so ${c.label} runs without it (the plan's findings name what is missing). Add one back, or remove ${c.label} too.`);
    // A need met by another of its choices (Valkey for a Redis ruled out) is met: only one with none left is said.
    for (const need of c.needs) {
      const ruledOut = need.filter((x) => facts.excluded.has(x));
      if (!ruledOut.length || need.some((x) => ids.has(x)) || lacking.includes(need)) continue;
      const label = ruledOut.map((x) => PRODUCTS[x]?.label ?? x).join(' or ');
      notes.push(`${c.label} needs ${label}, which you ruled out: it will not start without it. Tell me whether to keep ${c.label} or let it have ${label}.`);
    }
    if (c.tls === 'required' && !tls && !externalProxy) notes.push(`${c.label} needs HTTPS to work fully (browsers refuse its features over plain HTTP); give it a domain so the proxy can get a certificate.`);
  }
  if (facts.custom.length && proxy === undefined) {
    for (const c of facts.custom) if (!c.port) notes.push(`${c.image} runs without a published port: tell me the port it listens on to reach it from outside.`);
  }
  const memoryMb = services.reduce((n, s) => n + s.memoryMb, 0);
  const minCpus = Math.max(1, ...components.map((c) => c.minCpus));
  const needsCpus = components.filter((c) => c.minCpus === minCpus && minCpus > 1).map((c) => c.label);
  if (needsCpus.length && !facts.instanceType) notes.push(`Sized for at least ${minCpus} vCPUs: ${needsCpus.join(' and ')} need${needsCpus.length === 1 ? 's' : ''} them.`);
  const diskGb = Math.ceil((components.reduce((n, c) => n + c.diskGb, 0) + 10) / 10) * 10;
  return {
    facts,
    name,
    place: options.place ?? LEGACY_PLACE,
    components,
    proxy,
    tls,
    domain,
    services,
    routes,
    published,
    compose,
    // YAML 1.1 rules for quoting: `yes`, `on`, `0755` or `22:22` stay strings for YAML 1.1 readers (docker-compose v1, PyYAML) too.
    composeYaml: hostOnly ? '' : YAML.stringify(compose, { lineWidth: 0, version: '1.1' }),
    files,
    secrets,
    machine: machineFor(facts, memoryMb, Math.max(20, diskGb), minCpus),
    memoryMb,
    repository: options.repository,
    notes,
    hostOnly,
    allowlist: [...facts.allowlist],
    allowScope: facts.allowScope,
    sshPort: facts.sshPort ?? 22,
    envFile: [...new Set(secrets.map((x) => x.name).filter((n) => JSON.stringify(compose).includes(`\${${n}}`)))],
    builds: services.filter((x) => x.image === 'build').map((x) => x.name),
    ...(options.serverFacts ? { serverFacts: options.serverFacts } : {}),
    ...(externalProxy ? { frontedBy } : {}),
    ...(site ? { serverSite: site } : {}),
  };
}

/**
 * A `[ip:]host:container` mapping whose host port is free: the same, or moved to the next free port
 * (80 → 8080, 443 → 8443, others upwards) when the server or another service of the stack holds it.
 */
/**
 * Ports the clients of a protocol find by number alone: a DNS resolver, a mail server's peers, NTP and DHCP
 * clients ask there and nowhere else, so a service moved off one serves nobody. Held, it stays and is said.
 */
const FOUND_ONLY_BY_NUMBER: Record<number, string> = { 25: 'mail servers deliver to port 25', 53: 'DNS clients ask port 53', 67: 'DHCP clients ask port 67', 123: 'NTP clients ask port 123' };

function claimHostPort(mapping: string, service: string, taken: Set<string>, inUse: Map<string, string>, notes: string[]): string {
  const protocol = mapping.endsWith('/udp') ? 'udp' : 'tcp';
  const parts = mapping.split(':');
  const hostIndex = parts.length - 2;
  const host = Number(parts[hostIndex]);
  // A port is held per protocol: DNS publishes 53/tcp and 53/udp side by side.
  const held = (p: number): boolean => taken.has(`${p}/${protocol}`) || inUse.has(`${p}/${protocol}`);
  let port = host;
  const onlyHere = FOUND_ONLY_BY_NUMBER[host];
  if (held(port) && onlyHere) {
    const holder = inUse.get(`${host}/${protocol}`) ?? 'another service of the stack';
    const said = `${service} needs port ${host}`;
    if (!notes.some((n) => n.startsWith(said))) notes.push(`${said} and cannot move (${onlyHere}, and no other port), but ${holder} holds it on the server: free port ${host} there first, or the stack will not start.`);
  } else if (held(port)) {
    port = host === 80 ? 8080 : host === 443 ? 8443 : host + 1;
    while (held(port)) port += 1;
    const holder = inUse.get(`${host}/${protocol}`);
    const why = holder ? `the server already uses port ${host} (${holder})` : `port ${host} is published by another service of the stack`;
    notes.push(`${service} is published on port ${port} instead of ${host}: ${why}.${host === 80 || host === 443 ? " Let's Encrypt needs ports 80 and 443, so no certificate can be obtained until the port is free." : ''}`);
  }
  taken.add(`${port}/${protocol}`);
  parts[hostIndex] = String(port);
  return parts.join(':');
}

/**
 * Every service reaches what it uses on a network both are on: what it waits for, what it scrapes
 * (Prometheus and every service with metrics, the proxy's own included), what it reads as a datasource.
 * A missing one is joined on the reached service's side: its internal network when it has one.
 */
function shareNetworks(services: ServiceSpec[]): void {
  for (const x of services) {
    const reached = new Set(x.dependsOn ?? []);
    if (x.generates?.kind === 'prometheus-scrape') for (const s of services) if (s.metrics && s !== x) reached.add(s.metrics.host ?? s.name);
    if (x.generates?.kind === 'grafana-datasources') for (const s of services) if (s.datasource) reached.add(s.name);
    for (const name of reached) {
      const target = services.find((s) => s.name === name);
      if (!target || target.networks.some((n) => x.networks.includes(n))) continue;
      x.networks = [...x.networks, target.networks.includes('backend') ? 'backend' : target.networks[0]!];
    }
  }
}

/** A loopback host port for a container port: never 80 or 443 (a proxy binds them on every address; a tunnel's local end needs no root). */
const loopbackPort = (container: number): number => ([80, 443].includes(container) ? 8080 : container);

/** A variable of the analysis dialog's environment: its value was stored as a user secret then. */
const environmentSecret = (name: string): SecretSpec => ({ name, description: 'From the environment blocks of the repository analysis (stored as a user secret)', required: true, secret_type: 'password' });

/**
 * Several Dockerfiles and no compose file: each becomes a service built from its folder, with the
 * application's environment; the first that listens on a port gets port 80, the others their own.
 * One Dockerfile in a folder: the application builds from that folder.
 */
function splitByDockerfile(services: ServiceSpec[], app: ServiceSpec, layout: RepositoryLayout | undefined): void {
  const files = layout?.dockerfiles ?? [];
  if (files.length === 1) app.build = { context: `./app/${files[0]!.context}`.replace(/\/\.$/, '') };
  if (files.length < 2) return;
  const at = services.indexOf(app);
  const taken = new Set(services.map((s) => s.name));
  taken.delete(app.name);
  let webPort = false;
  const built = files.map((f) => {
    let name = (f.context === '.' ? app.name : f.context.split('/').pop()!).toLowerCase().replace(/[^a-z0-9-]+/g, '-');
    while (taken.has(name)) name = `${name}-app`;
    taken.add(name);
    const port = f.ports[0];
    const publish = port ? [webPort ? `${port}:${port}` : `80:${port}`] : [];
    if (port) webPort = true;
    return {
      ...JSON.parse(JSON.stringify(app)) as ServiceSpec,
      name,
      build: { context: `./app/${f.context}`.replace(/\/\.$/, '') },
      ...(port ? { internalPort: port, publish, webLabel: name } : { internalPort: undefined, publish: [], webLabel: undefined }),
      environment: { ...app.environment, ...(port ? { PORT: String(port) } : {}) },
    } satisfies ServiceSpec;
  });
  services.splice(at, 1, ...built);
}

/**
 * A repository with its own compose file is deployed with it (see repositoryCompose): its services,
 * its ports, its healthchecks; the plan adds the server, the firewall, the checkout, the .env from User
 * Secrets and the checks. Products named beside it and a domain are said to be left out, not half-added.
 */
function repositoryComposeStack(facts: Facts, repository: Repository, slug: string | undefined, place: StackPlace): Stack {
  const layout = repository.layout!;
  const adopted = adoptRepositoryCompose(layout.compose!, layout.envFiles);
  const notes = [
    `Deployed with the repository's own ${layout.compose!.path} from ${repository.fullName} (branch ${repository.branch}), as it is: ${adopted.services.map((s) => s.name).join(', ')}${adopted.builds.length ? `; ${adopted.builds.join(', ')} built from the checkout` : '; nothing is built, every service runs a published image'}.`,
    ...adopted.notes,
  ];
  const besides = [...facts.components].filter((id) => id !== BUILT_PRODUCT?.id && !isDataComponent(id));
  if (besides.length) notes.push(`Named besides the repository and not added to its compose file: ${besides.map((id) => PRODUCTS[id]?.label ?? id).join(', ')}. Add them to the repository's compose file, or plan them as a stack of their own.`);
  if (facts.domain && !facts.noDomain) notes.push(`${facts.domain}: this plan adds no reverse proxy to the repository's compose file, so no certificate is obtained; its published ports are reached on the server's address.`);
  const component: Product = { ...BUILT_PRODUCT!, id: REPOSITORY_COMPONENT, label: `${repository.fullName}'s compose file`, purpose: `from ${layout.compose!.path} of ${repository.fullName}`, services: adopted.services, secrets: [] };
  // The checkout is always fetched: the compose file builds from it or mounts its files.
  const secrets = secretsFor([component], facts, false, true, repository);
  // A variable with a default is optional: the default applies unless the person adds a secret of that name.
  for (const v of adopted.variables.filter((x) => x.required)) {
    if (!secrets.some((x) => x.name === v.name)) secrets.push({ name: v.name, description: `Used by ${layout.compose!.path}`, required: true, secret_type: /PASSWORD|PASSWD|SECRET|KEY|TOKEN/.test(v.name) ? 'password' : 'text' });
  }
  for (const n of repository.envNames ?? []) if (!secrets.some((x) => x.name === n)) secrets.push(environmentSecret(n));
  const published = adopted.services.flatMap((s) => (s.publish ?? []).map((port) => ({ service: s.name, port })));
  const memoryMb = adopted.services.reduce((n, s) => n + s.memoryMb, 0);
  return {
    facts,
    name: slugify(slug ?? 'stack'),
    place,
    components: [component],
    proxy: undefined,
    tls: false,
    domain: undefined,
    services: adopted.services,
    routes: [],
    published,
    compose: adopted.compose,
    composeYaml: YAML.stringify(adopted.compose, { lineWidth: 0, version: '1.1' }),
    files: [],
    secrets,
    machine: machineFor(facts, memoryMb, Math.max(20, component.diskGb + 10)),
    memoryMb,
    repository,
    notes,
    hostOnly: false,
    allowlist: [...facts.allowlist],
    allowScope: facts.allowScope,
    sshPort: facts.sshPort ?? 22,
    envFile: [...new Set([...adopted.variables.map((v) => v.name), ...(repository.envNames ?? [])])],
    builds: adopted.builds,
  };
}

/**
 * Fills a product's `{{domain}}`, `{{url}}`, `{{scheme}}` and `{{tls}}` with the address it is served
 * at; without a domain, the server's address from the SERVER_HOST secret.
 */
function fillAddresses(services: ServiceSpec[], routes: Route[], tls: boolean): void {
  for (const s of services) {
    if (!s.environment) continue;
    const component = componentOf(s.name);
    const route = routes.find((r) => r.service === s.name) ?? routes.find((r) => componentOf(r.service) === component);
    const host = route && route.host !== ':80' ? route.host : '${SERVER_HOST}';
    const publishedPort = !route ? s.publish?.[0]?.split(':')[0] : undefined;
    const scheme = route && route.host !== ':80' && tls ? 'https' : 'http';
    const url = `${scheme}://${host}${publishedPort && publishedPort !== '80' ? `:${publishedPort}` : ''}`;
    for (const [k, v] of Object.entries(s.environment)) {
      s.environment[k] = v.replace(/\{\{(domain|url|scheme|tls)\}\}/g, (_, key: string) => (key === 'domain' ? host : key === 'url' ? url : key === 'scheme' ? scheme : String(scheme === 'https')));
    }
  }
}

/** Compose interpolates `$`: every `$` that is not `$$` or a `${VAR}` the plan supplies is doubled. */
export function escapeDollars(value: string): string {
  return value.replace(/\$\$|\$\{[A-Za-z_][A-Za-z0-9_]*\}|\$/g, (m) => (m === '$' ? '$$' : m));
}

function escapeAll(value: unknown): unknown {
  if (typeof value === 'string') return escapeDollars(value);
  if (Array.isArray(value)) return value.map(escapeAll);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, escapeAll(v)]));
  return value;
}

function componentOf(service: string): string {
  for (const c of Object.values(PRODUCTS)) if (c.services.some((s) => s.name === service)) return c.id;
  return service;
}

function buildCompose(services: ServiceSpec[], proxy: ProxyId | undefined, routes: Route[], tls: boolean): Record<string, unknown> {
  const healthy = new Set(services.filter((s) => s.healthcheck).map((s) => s.name));
  const out: Record<string, unknown> = {};
  const volumes = new Set<string>();
  const networks = new Set<string>();
  for (const s of services) {
    const svc: Record<string, unknown> = {};
    if (s.image === 'build') {
      svc.build = s.build ?? { context: `./${s.name}` };
      svc.image = `${s.name}:1.0.0`;
    } else svc.image = s.image;
    if (s.name === 'certbot') {
      svc.entrypoint = ['/bin/sh', '-c', "trap exit TERM; while :; do certbot renew --webroot -w /var/www/certbot --quiet; sleep 12h & wait $${!}; done"];
    } else if (s.command?.length) svc.command = s.command;
    svc.restart = 'unless-stopped';
    if (s.environment && Object.keys(s.environment).length) svc.environment = s.environment;
    if (s.volumes?.length) {
      svc.volumes = s.volumes;
      for (const v of s.volumes) {
        const source = v.split(':')[0]!;
        if (!source.startsWith('.') && !source.startsWith('/')) volumes.add(source);
      }
    }
    if (s.publish?.length) svc.ports = s.publish;
    if (s.ulimits) svc.ulimits = s.ulimits;
    // The Compose spec's device reservation: docker compose v2 and docker-compose 1.28+ both read it.
    if (s.gpu) svc.deploy = { resources: { reservations: { devices: [{ driver: 'nvidia', count: 'all', capabilities: ['gpu'] }] } } };
    if (s.healthcheck) svc.healthcheck = s.healthcheck;
    else if (s.noHealthcheck && s.image !== 'build') svc['x-no-healthcheck'] = s.noHealthcheck;
    if (s.dependsOn?.length) {
      svc.depends_on = Object.fromEntries(
        s.dependsOn.map((d) => [d, { condition: healthy.has(d) ? 'service_healthy' : 'service_started' }]),
      );
    }
    if (proxy && PRODUCTS[proxy]!.proxy?.config === 'traefik-labels') {
      const own = routes.filter((r) => r.service === s.name);
      if (own.length) {
        const labels: Record<string, string> = { 'traefik.enable': 'true' };
        svc.labels = labels;
        // One router and one service per endpoint: a container with several ports needs each named.
        for (const [i, route] of own.entries()) {
          const id = i === 0 ? s.name : `${s.name}-${route.endpoint ?? i}`;
          const rule = route.host === ':80' ? 'PathPrefix(`/`)' : `Host(\`${route.host}\`)`;
          Object.assign(labels, {
            [`traefik.http.routers.${id}.rule`]: rule,
            [`traefik.http.routers.${id}.entrypoints`]: tls ? 'websecure' : 'web',
            ...(tls ? { [`traefik.http.routers.${id}.tls.certresolver`]: 'le' } : {}),
            ...(own.length > 1 ? { [`traefik.http.routers.${id}.service`]: id } : {}),
            [`traefik.http.services.${id}.loadbalancer.server.port`]: String(route.port),
          });
        }
      }
    }
    svc.networks = s.networks;
    for (const n of s.networks) networks.add(n);
    svc.logging = { driver: 'json-file', options: { 'max-size': '10m', 'max-file': '3' } };
    out[s.name] = escapeAll(svc);
  }
  const compose: Record<string, unknown> = { services: out };
  if (volumes.size) compose.volumes = Object.fromEntries([...volumes].map((v) => [v, {}]));
  compose.networks = Object.fromEntries(
    [...networks].map((n) => [n, n === 'backend' ? { internal: true } : {}]),
  );
  return compose;
}

function secretsFor(components: Product[], facts: Facts, tls: boolean, hasApp: boolean, repository: Repository | undefined): SecretSpec[] {
  const list: SecretSpec[] = [];
  const add = (s: SecretSpec): void => {
    if (!list.some((x) => x.name === s.name)) list.push(s);
  };
  // A server named in the conversation needs only its key; SSH stays open to it (nothing to restrict it to).
  const provider = providerOf(facts.provider);
  for (const s of providerSecrets(provider)) if (!facts.sshTarget || s.secret_type === 'ssh_private_key') add(s);
  // A server the plan creates: SSH from the person's range, and their key for their own logins.
  if (!provider.existing) add(ADMIN_CIDR_SECRET);
  if (!provider.existing) add(SSH_PUBLIC_KEY_SECRET);
  for (const c of components) for (const s of c.secrets) add(s);
  if (tls) add(ACME_EMAIL_SECRET);
  // A destination the person chose is opened with secrets of theirs; only a stack with data is backed up.
  const stateful = components.some((c) => c.services.some((s) => s.backup || s.volumes?.some((v) => !/^[./]/.test(v)))) || facts.custom.some((c) => c.volumes.length);
  if (stateful && facts.backup?.enabled !== false) for (const s of backupSecretsFor(facts.backup?.destination)) add(s);
  if (hasApp && !repository?.local) {
    if (repository) add({ name: 'GITHUB_TOKEN', description: `Repository-scoped token to clone ${repository.fullName} (provided by the server)`, required: true, secret_type: 'password' });
    else add(APP_REPOSITORY_SECRET);
  }
  return list;
}

/**
 * What a proxy with nothing behind it answers: a line saying what the stack is, never an empty config
 * (an empty Caddyfile serves nothing at all, and people took the blank answer for a broken server).
 * Quotes, braces, `$` and backslashes are left out: the line goes inside a Caddyfile or nginx string.
 */
function aboutStack(name: string, components: Product[]): string {
  const running = components.filter((c) => c.category !== 'proxy').map((c) => c.label);
  const text = `${name}: ${running.length ? `this server runs ${running.join(', ')}` : 'nothing runs here yet'}; none of it is served on the web, so the proxy has nothing to forward to.`;
  return text.replace(/["{}$\\;]/g, '');
}

/**
 * The Caddyfile. With a scraper in the stack, metrics are served on their own port inside the network
 * (`metricsPort`, never published): the admin API, where Caddy keeps `/metrics` by default, listens on
 * the container's localhost only, and binding it wider would let any container rewrite the config.
 */
function caddyfile(routes: Route[], tls: boolean, about: string, metricsPort?: number): string {
  const global = [...(tls ? ['\temail {$ACME_EMAIL}'] : []), ...(metricsPort ? ['\tservers {\n\t\tmetrics\n\t}'] : [])];
  const head = global.length ? `{\n${global.join('\n')}\n}\n\n` : '';
  const metrics = metricsPort ? [`:${metricsPort} {\n\tmetrics\n}\n`] : [];
  const sites = routes.length
    ? routes.map((r) => `${tls ? r.host : r.host === ':80' ? ':80' : `http://${r.host}`} {\n\tencode gzip\n\treverse_proxy ${r.service}:${r.port}\n}\n`)
    : [`:80 {\n\trespond "${about}" 200\n}\n`];
  return head + [...sites, ...metrics].join('\n');
}

function nginxConf(routes: Route[], tls: boolean, domain: string | undefined, about: string): string {
  const proxyBlock = (r: Route): string =>
    [
      '    location / {',
      `        proxy_pass http://${r.service}:${r.port};`,
      '        proxy_http_version 1.1;',
      '        proxy_set_header Host $host;',
      '        proxy_set_header X-Real-IP $remote_addr;',
      '        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
      '        proxy_set_header X-Forwarded-Proto $scheme;',
      '        proxy_set_header Upgrade $http_upgrade;',
      '        proxy_set_header Connection "upgrade";',
      '    }',
    ].join('\n');
  if (!tls || !routes.length) {
    const r = routes[0];
    return [
      'server {',
      '    listen 80 default_server;',
      '    location = /healthz { access_log off; return 200 "ok"; }',
      r ? proxyBlock(r) : `    location / { default_type text/plain; return 200 "${about}"; }`,
      '}',
      '',
    ].join('\n');
  }
  const http = [
    'server {',
    '    listen 80 default_server;',
    '    location = /healthz { access_log off; return 200 "ok"; }',
    '    location /.well-known/acme-challenge/ { root /var/www/certbot; }',
    '    location / { return 301 https://$host$request_uri; }',
    '}',
  ].join('\n');
  const https = routes.map((r) =>
    [
      'server {',
      '    listen 443 ssl;',
      '    http2 on;',
      `    server_name ${r.host};`,
      `    ssl_certificate /etc/letsencrypt/live/${domain}/fullchain.pem;`,
      `    ssl_certificate_key /etc/letsencrypt/live/${domain}/privkey.pem;`,
      '    ssl_protocols TLSv1.2 TLSv1.3;',
      '    add_header Strict-Transport-Security "max-age=31536000" always;',
      '    client_max_body_size 50m;',
      proxyBlock(r),
      '}',
    ].join('\n'),
  );
  return [http, ...https, ''].join('\n\n');
}

/** Prometheus' scrape jobs: every service of the stack that says it has metrics (its catalogue `metrics`). */
function prometheusYml(services: ServiceSpec[]): string {
  const jobs = services.filter((s) => s.metrics).map((s) => ({ job_name: s.metrics!.job, static_configs: [{ targets: [`${s.metrics!.host ?? s.name}:${s.metrics!.port}`] }] }));
  return YAML.stringify({ global: { scrape_interval: '15s', evaluation_interval: '15s' }, scrape_configs: jobs });
}

// ---------------------------------------------------------------------------------------------------
// Validation
// ---------------------------------------------------------------------------------------------------

/**
 * Checks a compose file the way `docker compose config` would, plus our rules: images pinned to a
 * tag, named volumes and networks declared and used, depends_on targets present (and healthy when
 * waited on), a healthcheck on every service whose image supports one, every `${VAR}` supplied.
 * Answers the problems found; none means valid.
 */
export function validateCompose(text: string, suppliedVars: Iterable<string> = []): string[] {
  const problems: string[] = [];
  let doc: unknown;
  try {
    doc = YAML.parse(text);
  } catch (err) {
    return [`does not parse: ${(err as Error).message}`];
  }
  if (!doc || typeof doc !== 'object') return ['is not a mapping'];
  const root = doc as Record<string, unknown>;
  const services = root.services as Record<string, Record<string, unknown>> | undefined;
  if (!services || typeof services !== 'object' || !Object.keys(services).length) return ['has no services'];
  const declaredVolumes = new Set(Object.keys((root.volumes as object | undefined) ?? {}));
  const declaredNetworks = new Set(Object.keys((root.networks as object | undefined) ?? {}));
  const usedVolumes = new Set<string>();
  const usedNetworks = new Set<string>();
  const vars = new Set(suppliedVars);
  for (const [name, svc] of Object.entries(services)) {
    const image = svc.image as string | undefined;
    if (!image && !svc.build) problems.push(`${name}: neither image nor build`);
    if (image && !svc.build) {
      const tag = image.includes('@sha256:') ? 'digest' : image.slice(image.lastIndexOf('/') + 1).split(':')[1];
      if (!tag || tag === 'latest') problems.push(`${name}: image ${image} is not pinned to a tag`);
    }
    for (const v of (svc.volumes as string[] | undefined) ?? []) {
      const source = String(v).split(':')[0]!;
      if (source.startsWith('.') || source.startsWith('/')) continue;
      usedVolumes.add(source);
      if (!declaredVolumes.has(source)) problems.push(`${name}: volume ${source} is not declared`);
    }
    const nets = Array.isArray(svc.networks) ? (svc.networks as string[]) : Object.keys((svc.networks as object | undefined) ?? {});
    for (const n of nets) {
      usedNetworks.add(n);
      if (!declaredNetworks.has(n)) problems.push(`${name}: network ${n} is not declared`);
    }
    for (const p of (svc.ports as string[] | undefined) ?? []) {
      if (!/^((\d{1,3}\.){3}\d{1,3}:)?\d{1,5}:\d{1,5}(\/(tcp|udp))?$/.test(String(p))) problems.push(`${name}: port ${p} is malformed`);
    }
    const deps = svc.depends_on as Record<string, { condition?: string }> | string[] | undefined;
    const depEntries = Array.isArray(deps) ? deps.map((d) => [d, {}] as const) : Object.entries(deps ?? {});
    for (const [dep, spec] of depEntries) {
      if (!services[dep]) problems.push(`${name}: depends on missing service ${dep}`);
      else if ((spec as { condition?: string }).condition === 'service_healthy' && !services[dep]!.healthcheck) {
        problems.push(`${name}: waits for ${dep} to be healthy but ${dep} has no healthcheck`);
      }
    }
    if (!svc.healthcheck && !svc.build && typeof svc['x-no-healthcheck'] !== 'string') problems.push(`${name}: no healthcheck (nor an x-no-healthcheck reason)`);
    const hc = svc.healthcheck as { test?: unknown } | undefined;
    if (hc && (!Array.isArray(hc.test) || !['CMD', 'CMD-SHELL'].includes(String(hc.test[0])))) problems.push(`${name}: healthcheck test must start with CMD or CMD-SHELL`);
    for (const m of JSON.stringify(svc).matchAll(/(?<!\$)\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
      if (!vars.has(m[1]!)) problems.push(`${name}: \${${m[1]}} is not supplied`);
    }
  }
  for (const v of declaredVolumes) if (!usedVolumes.has(v)) problems.push(`volume ${v} is declared but unused`);
  for (const n of declaredNetworks) if (!usedNetworks.has(n)) problems.push(`network ${n} is declared but unused`);
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// Diagram
// ---------------------------------------------------------------------------------------------------

/** A store: a database, cache or queue, or a service that keeps its data in a volume and serves no people (Elasticsearch). */
const holdsData = (s: ServiceSpec): boolean =>
  DATA_SERVICES.has(s.name) || Boolean(s.backup) || (s.webLabel === undefined && Boolean(s.internalPort) && !s.alwaysPublish?.length && Boolean(s.volumes?.some((v) => !/^[./]/.test(v))));

const nodeId = (name: string): string => name.replace(/[^A-Za-z0-9_]/g, '_');

/** A mermaid flowchart: people → proxy → services → data, inside the machine. */
export function mermaidDiagram(stack: Stack): string {
  const lines = ['flowchart LR', '  users([Users])', '  admin([Administrator])'];
  const m = stack.machine;
  lines.push(`  subgraph host["${m.providerLabel} · ${m.instanceType} · ${m.region}"]`);
  for (const s of stack.services) {
    const label = `${s.name}<br/>${s.image === 'build' ? 'built from repository' : s.image}`;
    lines.push(holdsData(s) ? `    ${nodeId(s.name)}[("${label}")]` : `    ${nodeId(s.name)}["${label}"]`);
  }
  // The proxy the server already runs is on the host, not of the stack: it reaches the routed services on loopback.
  if (stack.frontedBy) lines.push(`    serverproxy{{"${stack.serverSite?.proxy.kind.label ?? 'proxy'} already on the server"}}`);
  lines.push('  end');
  const proxyService = stack.proxy ? stack.services.find((s) => s.name === PRODUCTS[stack.proxy!]!.services[0]!.name) : undefined;
  if (proxyService) {
    lines.push(`  users -->|"${stack.tls ? 'HTTPS 443' : 'HTTP 80'}"| ${nodeId(proxyService.name)}`);
    for (const r of stack.routes) lines.push(`  ${nodeId(proxyService.name)} -->|"${r.host}"| ${nodeId(r.service)}`);
  }
  const fronted = new Set(stack.frontedBy ? stack.routes.map((r) => r.service) : []);
  if (stack.frontedBy) {
    lines.push('  users -->|"HTTP 80 / HTTPS 443"| serverproxy');
    for (const r of stack.routes) lines.push(`  serverproxy -->|"${r.host}"| ${nodeId(r.service)}`);
  }
  for (const p of stack.published) {
    if (proxyService && p.service === proxyService.name) continue;
    if (fronted.has(p.service) && p.port.startsWith('127.0.0.1')) continue;
    const who = p.port.startsWith('127.0.0.1') ? 'admin' : 'users';
    lines.push(`  ${who} -->|"${p.port.startsWith('127.0.0.1') ? 'SSH tunnel' : `port ${p.port.split(':')[0]}`}"| ${nodeId(p.service)}`);
  }
  for (const s of stack.services) for (const d of s.dependsOn ?? []) {
    if (proxyService && s.name === proxyService.name) continue;
    lines.push(`  ${nodeId(s.name)} --> ${nodeId(d)}`);
  }
  // Scrapes of other components' metrics (a scraper's own exporters are part of it).
  for (const scraper of stack.services.filter((s) => s.generates?.kind === 'prometheus-scrape')) {
    for (const s of stack.services) if (s.metrics && componentOf(s.name) !== componentOf(scraper.name)) lines.push(`  ${nodeId(scraper.name)} -.->|scrape| ${nodeId(s.name)}`);
  }
  lines.push(`  admin -->|"SSH ${stack.facts.sshPort ?? stack.facts.sshTarget?.port ?? 22}${m.existing ? '' : ' from ADMIN_CIDR'}"| host`);
  return lines.join('\n');
}
