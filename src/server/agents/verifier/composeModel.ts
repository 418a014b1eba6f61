import YAML from 'yaml';

/**
 * A compose file read into what the checks ask about: each service's networks, published ports,
 * environment, volumes and dependencies, in both forms the Compose Specification allows (short strings
 * and long mappings; lists and mappings for environment and networks).
 */

export interface PublishedPort {
  /** Host address it binds ('' = every address). */
  hostIp: string;
  hostPort: number;
  containerPort: number;
  protocol: 'tcp' | 'udp';
  /** As written, for messages. */
  text: string;
}

export interface ServiceMount {
  /** Named volume, host path (./ or /) or undefined for an anonymous volume. */
  source: string | undefined;
  target: string;
  named: boolean;
}

export interface ComposeService {
  name: string;
  image: string | undefined;
  built: boolean;
  networks: string[];
  /** Other names the service answers to on its networks (aliases, container_name, hostname). */
  aliases: string[];
  ports: PublishedPort[];
  environment: Record<string, string>;
  mounts: ServiceMount[];
  dependsOn: string[];
  networkMode: string | undefined;
  raw: Record<string, unknown>;
}

export interface ComposeModel {
  services: ComposeService[];
  networks: string[];
  namedVolumes: string[];
  raw: Record<string, unknown>;
}

const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

/** `[ip:][host[-range]:]container[/proto]`, or the long form; a port without a host part is not published on a fixed port. */
export function publishedPorts(spec: unknown): PublishedPort[] {
  const out: PublishedPort[] = [];
  for (const p of Array.isArray(spec) ? spec : []) {
    if (p && typeof p === 'object') {
      const long = p as Record<string, unknown>;
      if (long.published === undefined) continue;
      out.push({
        hostIp: String(long.host_ip ?? ''),
        hostPort: Number(long.published),
        containerPort: Number(long.target),
        protocol: long.protocol === 'udp' ? 'udp' : 'tcp',
        text: `${long.host_ip ? `${String(long.host_ip)}:` : ''}${String(long.published)}:${String(long.target)}`,
      });
      continue;
    }
    const text = String(p);
    const [body, proto] = text.split('/');
    // An IPv6 host address is bracketed: [::1]:8080:80.
    const v6 = body!.match(/^\[([^\]]+)\]:(.*)$/);
    const parts = v6 ? [v6[1]!, ...v6[2]!.split(':')] : body!.split(':');
    if (parts.length < 2) continue;
    const container = parts[parts.length - 1]!;
    const host = parts[parts.length - 2]!;
    const hostIp = parts.length > 2 ? parts.slice(0, -2).join(':') : '';
    const first = (range: string): number => Number(range.split('-')[0]);
    if (!host) continue;
    out.push({ hostIp, hostPort: first(host), containerPort: first(container), protocol: proto === 'udp' ? 'udp' : 'tcp', text });
  }
  return out;
}

function environmentOf(spec: unknown): Record<string, string> {
  if (Array.isArray(spec)) {
    const out: Record<string, string> = {};
    for (const e of spec.map(String)) {
      const i = e.indexOf('=');
      if (i > 0) out[e.slice(0, i)] = e.slice(i + 1);
    }
    return out;
  }
  return Object.fromEntries(Object.entries(record(spec)).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]));
}

function mountsOf(spec: unknown): ServiceMount[] {
  const out: ServiceMount[] = [];
  for (const v of Array.isArray(spec) ? spec : []) {
    if (v && typeof v === 'object') {
      const long = v as Record<string, unknown>;
      const source = long.source === undefined ? undefined : String(long.source);
      out.push({ source, target: String(long.target ?? ''), named: long.type === 'volume' && Boolean(source) });
      continue;
    }
    const parts = String(v).split(':');
    if (parts.length === 1) {
      out.push({ source: undefined, target: parts[0]!, named: false });
      continue;
    }
    const source = parts[0]!;
    out.push({ source, target: parts[1]!, named: !/^[./~$]/.test(source) });
  }
  return out;
}

/** Parses a compose file; throws the YAML parser's error when it is not YAML. */
export function readCompose(text: string): ComposeModel {
  const raw = record(YAML.parse(text));
  const services = Object.entries(record(raw.services)).map(([name, value]): ComposeService => {
    const s = record(value);
    const nets = s.networks;
    const networks = Array.isArray(nets) ? nets.map(String) : Object.keys(record(nets));
    const aliases = Array.isArray(nets) ? [] : Object.values(record(nets)).flatMap((n) => strings(record(n).aliases));
    for (const k of ['container_name', 'hostname']) if (typeof s[k] === 'string') aliases.push(s[k]);
    const deps = s.depends_on;
    return {
      name,
      image: typeof s.image === 'string' ? s.image : undefined,
      built: s.build !== undefined,
      // A service that names no network is on the project's default network.
      networks: networks.length || typeof s.network_mode === 'string' ? networks : ['default'],
      aliases,
      ports: publishedPorts(s.ports),
      environment: environmentOf(s.environment),
      mounts: mountsOf(s.volumes),
      dependsOn: Array.isArray(deps) ? deps.map(String) : Object.keys(record(deps)),
      networkMode: typeof s.network_mode === 'string' ? s.network_mode : undefined,
      raw: s,
    };
  });
  return { services, networks: ['default', ...Object.keys(record(raw.networks))], namedVolumes: Object.keys(record(raw.volumes)), raw };
}

/** The image's repository without registry host and tag: `docker.io/library/redis:7` → `redis`. */
export function imageRepository(image: string): string {
  const noDigest = image.split('@')[0]!;
  const lastSlash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  const repo = colon > lastSlash ? noDigest.slice(0, colon) : noDigest;
  return repo.replace(/^(docker\.io\/)?(library\/)?/, '');
}
