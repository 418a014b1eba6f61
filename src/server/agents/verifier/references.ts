import YAML from 'yaml';
import { caddySites, nginxServers, parseCaddyfile, parseNginx } from './blockConfig';
import type { ComposeModel } from './composeModel';
import type { PlanFile } from './types';

/**
 * Every host a service reaches, read from where plans write them: environment values (URLs, DSNs and
 * `*_HOST`-style settings), the Caddyfile's and nginx.conf's upstreams, and URLs and targets in the YAML
 * files a service mounts (prometheus.yml, Grafana datasources, Alertmanager…).
 */

export interface HostReference {
  /** The compose service that makes the connection. */
  from: string;
  host: string;
  /** Where it is written, for messages. */
  where: string;
}

/** Settings whose value names a host (or host:port, or a list of them). */
const HOST_KEY = /(^|_)(HOST|HOSTS|HOSTNAME|SERVER|SERVERS|ADDR|ADDRESS|BROKER|BROKERS|URL|URI|DSN|ENDPOINT|UPSTREAM)$/i;

/**
 * The host of a reference: a URL (`scheme://user:pass@host:port/…`), `host:port` or a bare host name.
 * Undefined for what names no container: placeholders, IP addresses, localhost, absolute paths.
 */
export function hostOf(reference: string): string | undefined {
  const value = reference.trim();
  if (!value || /\{\{|\{\$|\{env\./.test(value) || value.startsWith('/') || value.startsWith('unix:')) return undefined;
  let host: string;
  const url = value.match(/^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#,]*)/i);
  if (url) host = url[1]!;
  else if (/^[A-Za-z0-9_.-]+(:\d+)?$/.test(value)) host = value.split(':')[0]!;
  else return undefined;
  // A host that is itself interpolated (`${DB_HOST}`) names no container the plan can check.
  if (!host || host.includes('$') || host === 'localhost' || host.startsWith('[') || /^\d+(\.\d+){3}$/.test(host) || host === '0.0.0.0' || host === 'host.docker.internal') return undefined;
  return host;
}

/** Hosts of an environment value: a comma-separated list of references, a URL or a host. */
function hostsOfValue(key: string, value: string): string[] {
  const looksLikeUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(value.trim());
  if (!looksLikeUrl && !HOST_KEY.test(key)) return [];
  // `${VAR:?not set}` is one word however it is spelt: its spaces do not split the value into references.
  return value
    .replace(/\$\{[^}]*\}/g, '${}')
    .split(/[,\s]+/)
    .map(hostOf)
    .filter((h): h is string => Boolean(h));
}

/** Services that mount a plan file (its own path or a folder holding it). */
export function servicesMounting(compose: ComposeModel, path: string): string[] {
  const norm = (p: string): string => p.replace(/^\.\//, '').replace(/\/$/, '');
  const file = norm(path);
  return compose.services
    .filter((s) => s.mounts.some((m) => m.source && !m.named && (norm(m.source) === file || file.startsWith(`${norm(m.source)}/`))))
    .map((s) => s.name);
}

function yamlStrings(value: unknown, path: string[] = []): Array<{ path: string[]; value: string }> {
  if (typeof value === 'string') return [{ path, value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => yamlStrings(v, [...path, String(i)]));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => yamlStrings(v, [...path, k]));
  return [];
}

/** References in one configuration file, read with the parser its kind needs. */
function fileHosts(file: PlanFile): Array<{ host: string; detail: string }> {
  const name = file.path.split('/').pop()!;
  if (name === 'Caddyfile') {
    return caddySites(parseCaddyfile(file.content)).flatMap((s) => s.upstreams.map((u) => ({ host: hostOf(u), detail: `reverse_proxy ${u} (line ${s.line})` })))
      .filter((r): r is { host: string; detail: string } => Boolean(r.host));
  }
  if (name.endsWith('.conf') && /nginx|default\.conf|conf\.d/.test(file.path)) {
    return nginxServers(parseNginx(file.content)).flatMap((s) => s.upstreams.map((u) => ({ host: hostOf(u), detail: `proxy_pass ${u} (server at line ${s.line})` })))
      .filter((r): r is { host: string; detail: string } => Boolean(r.host));
  }
  if (/\.ya?ml$/.test(name)) {
    let doc: unknown;
    try {
      doc = YAML.parse(file.content);
    } catch {
      return [];
    }
    return yamlStrings(doc).flatMap(({ path, value }) => {
      // Prometheus and Alertmanager list `host:port` targets; elsewhere only URLs and host settings count.
      const inTargets = path.includes('targets') || path.includes('static_configs');
      const key = path[path.length - 1] ?? '';
      const hosts = inTargets ? [hostOf(value)] : hostsOfValue(/^\d+$/.test(key) ? path[path.length - 2] ?? '' : key, value);
      return hosts.filter((h): h is string => Boolean(h)).map((host) => ({ host, detail: `${path.join('.')}: ${value}` }));
    });
  }
  return [];
}

/** Every host every service reaches, from its environment and the files it mounts. */
export function hostReferences(compose: ComposeModel, files: PlanFile[]): HostReference[] {
  const refs: HostReference[] = [];
  for (const s of compose.services) {
    for (const [key, value] of Object.entries(s.environment)) {
      for (const host of hostsOfValue(key, value)) refs.push({ from: s.name, host, where: `docker-compose.yml services.${s.name}.environment.${key}` });
    }
  }
  for (const file of files) {
    const users = servicesMounting(compose, file.path);
    for (const { host, detail } of fileHosts(file)) for (const from of users) refs.push({ from, host, where: `${file.path}: ${detail}` });
  }
  return refs;
}
