import { caddySites, parseCaddyfile, walk } from './blockConfig';
import type { ComposeModel, ComposeService, PublishedPort } from './composeModel';
import { servicesMounting } from './references';
import type { Finding, PlanFile, TargetFacts } from './types';

/**
 * A proxy asked for automatic HTTPS for a domain must be able to answer Let's Encrypt's challenge: the
 * HTTP-01 challenge comes to port 80 of the domain, TLS-ALPN-01 to port 443. A proxy with neither of them
 * published to its own 80/443 (moved to 8080/8443, bound to loopback), or whose 80 and 443 something else
 * on the server holds, can get no certificate: its sites fail on their first HTTPS request.
 */

type Challenge = 80 | 443;

/** A host port the public reaches: on every address, not loopback. */
const publicPort = (p: PublishedPort): boolean => !/^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(p.hostIp) && p.protocol === 'tcp';

/** Why the challenge on `port` cannot reach `service`, or undefined when it can. */
function blocked(service: ComposeService, port: Challenge, target: TargetFacts | undefined): string | undefined {
  const published = service.ports.find((p) => publicPort(p) && p.hostPort === port && p.containerPort === port);
  if (!published) {
    const moved = service.ports.find((p) => p.containerPort === port);
    return moved ? `its ${port} is published as ${moved.text}, not on the server's port ${port}` : `port ${port} is not published to it`;
  }
  const holder = target?.portsInUse?.find((u) => u.port === port && u.protocol === 'tcp');
  return holder ? `the server's port ${port} is held by ${holder.holder ?? 'something else'}` : undefined;
}

/** Domains a Caddyfile serves with automatic HTTPS: named sites, not `http://`, a bare port, an IP, or ones with their own certificate. */
function caddyAutomatic(content: string): string[] {
  const tree = parseCaddyfile(content);
  const globalOff = tree.some((d) => d.name === '' || d.name === '{') && [...walk(tree)].some(({ d }) => d.name === 'auto_https' && d.args[0] === 'off');
  if (globalOff) return [];
  const domains: string[] = [];
  for (const site of caddySites(tree)) {
    const block = tree.find((d) => d.line === site.line)?.block ?? [];
    // `tls internal` or a certificate and key of its own: no ACME.
    if (block.some((d) => d.name === 'tls' && (d.args[0] === 'internal' || d.args.length >= 2))) continue;
    for (const a of site.addresses) {
      const host = a.replace(/^https:\/\//, '').replace(/:443$/, '');
      if (a.startsWith('http://') || host.startsWith(':') || /:\d+$/.test(host) || /^\d+(\.\d+){3}$/.test(host) || host === 'localhost' || !host.includes('.') || host.includes('{')) continue;
      domains.push(host.replace(/^\*\./, ''));
    }
  }
  return domains;
}

/** Traefik's ACME resolvers from its command line, each with the challenge it answers (DNS needs no port). */
function traefikResolvers(service: ComposeService): Map<string, Challenge | 'dns'> {
  const command = Array.isArray(service.raw.command) ? service.raw.command.map(String) : typeof service.raw.command === 'string' ? service.raw.command.split(/\s+/) : [];
  const out = new Map<string, Challenge | 'dns'>();
  for (const arg of command) {
    const m = arg.match(/^--certificatesresolvers\.([^.]+)\.acme\.(tlschallenge|httpchallenge|dnschallenge)\b/i);
    if (m) out.set(m[1]!, m[2]!.toLowerCase() === 'tlschallenge' ? 443 : m[2]!.toLowerCase() === 'httpchallenge' ? 80 : 'dns');
  }
  return out;
}

function labelsOf(s: ComposeService): Record<string, string> {
  const raw = s.raw.labels;
  if (Array.isArray(raw)) return Object.fromEntries(raw.map(String).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  return Object.fromEntries(Object.entries((raw as Record<string, unknown> | undefined) ?? {}).map(([k, v]) => [k, String(v)]));
}

const finding = (proxy: string, domains: string[], why: string[], where: string): Finding => ({
  severity: 'error',
  code: 'acme-unreachable',
  message: `${proxy} is asked to get a Let's Encrypt certificate for ${domains.join(', ')}, but the challenge cannot reach it: ${why.join('; ')}. Publish ${proxy}'s 80 and 443 on the server's ports 80 and 443 (free them first), or let the proxy that holds them serve ${domains.length === 1 ? 'the domain' : 'the domains'}`,
  where,
});

export function acmeFindings(compose: ComposeModel, files: PlanFile[], target: TargetFacts | undefined): Finding[] {
  const findings: Finding[] = [];
  for (const f of files.filter((x) => x.path.split('/').pop() === 'Caddyfile')) {
    const domains = caddyAutomatic(f.content);
    if (!domains.length) continue;
    for (const name of servicesMounting(compose, f.path)) {
      const s = compose.services.find((x) => x.name === name)!;
      const why = ([80, 443] as const).map((p) => blocked(s, p, target));
      if (why.every(Boolean)) findings.push(finding(name, domains, why as string[], `docker-compose.yml services.${name}.ports`));
    }
  }
  for (const s of compose.services) {
    const resolvers = traefikResolvers(s);
    if (!resolvers.size) continue;
    // The routers of every service that name one of this Traefik's resolvers, with the hosts of their rules.
    const byResolver = new Map<string, string[]>();
    for (const other of compose.services) {
      const labels = labelsOf(other);
      for (const [key, value] of Object.entries(labels)) {
        const router = key.match(/^traefik\.http\.routers\.([^.]+)\.tls\.certresolver$/i)?.[1];
        if (!router || !resolvers.has(value)) continue;
        const hosts = [...(labels[`traefik.http.routers.${router}.rule`] ?? '').matchAll(/Host\(([^)]*)\)/g)].flatMap((m) => [...m[1]!.matchAll(/[`"']([^`"']+)[`"']/g)].map((h) => h[1]!));
        byResolver.set(value, [...(byResolver.get(value) ?? []), ...hosts]);
      }
    }
    for (const [resolver, domains] of byResolver) {
      const challenge = resolvers.get(resolver)!;
      if (challenge === 'dns' || !domains.length) continue;
      const why = blocked(s, challenge, target);
      if (why) findings.push(finding(s.name, domains, [`its resolver ${resolver} answers the ${challenge === 443 ? 'TLS-ALPN challenge on port 443' : 'HTTP challenge on port 80'}, and ${why}`], `docker-compose.yml services.${s.name}.command`));
    }
  }
  return findings;
}
