import { caddySites, nginxServers, parseCaddyfile, parseNginx } from './blockConfig';
import { isSensitive, mustStayPrivate, webPorts } from './catalogueKnowledge';
import type { ComposeModel, ComposeService, PublishedPort } from './composeModel';
import { hostOf } from './references';
import type { Finding, PersonIntent, PlanFile, TargetFacts } from './types';

/**
 * Exposure: nothing published that must stay private, no host port published twice or already taken on
 * the target, and no sensitive app served to the public over plain HTTP unless the person asked for it.
 */

/** Traefik's plain-HTTP entrypoint as the planner names it (`--entrypoints.web.address=:80`); a router on it serves without TLS. */
const TRAEFIK_PLAIN_ENTRYPOINT = 'web';

const loopback = (p: PublishedPort): boolean => /^(127\.\d+\.\d+\.\d+|::1|localhost)$/.test(p.hostIp);
/** Two bindings collide when they are the same port and protocol and one address covers the other. */
const collide = (a: PublishedPort, b: PublishedPort): boolean =>
  a.hostPort === b.hostPort && a.protocol === b.protocol && (a.hostIp === b.hostIp || a.hostIp === '' || b.hostIp === '' || a.hostIp === '0.0.0.0' || b.hostIp === '0.0.0.0');

function portFindings(compose: ComposeModel, intent: PersonIntent | undefined, target: TargetFacts | undefined): Finding[] {
  const findings: Finding[] = [];
  const keepPrivate = new Set(intent?.keepPrivate ?? []);
  const all = compose.services.flatMap((s) => s.ports.map((p) => ({ s, p })));
  for (const { s, p } of all) {
    const where = `docker-compose.yml services.${s.name}.ports`;
    if (!loopback(p) && (mustStayPrivate(s) || keepPrivate.has(s.name))) {
      findings.push({
        severity: 'error',
        code: 'published-private',
        message: keepPrivate.has(s.name)
          ? `${s.name} is published on port ${p.hostPort} to every address, but you asked to keep it private: remove the port, or bind it to 127.0.0.1 for an SSH tunnel`
          : `${s.name} is published on port ${p.hostPort} to every address, but only the stack's services should reach it: remove the port, or bind it to 127.0.0.1 for an SSH tunnel`,
        where,
      });
    }
    const taken = target?.portsInUse?.find((u) => u.port === p.hostPort && u.protocol === p.protocol);
    if (taken) {
      findings.push({
        severity: 'error',
        code: 'port-in-use',
        message: `${s.name} publishes port ${p.hostPort}/${p.protocol}, which ${taken.holder ?? 'something'} on the server already holds: choose another host port, or stop what holds it`,
        where,
      });
    }
  }
  for (let i = 0; i < all.length; i += 1) {
    for (let j = i + 1; j < all.length; j += 1) {
      const a = all[i]!;
      const b = all[j]!;
      if (!collide(a.p, b.p)) continue;
      findings.push({
        severity: 'error',
        code: 'port-conflict',
        message: `${a.s.name} and ${b.s.name} both publish host port ${a.p.hostPort}/${a.p.protocol}; only one can bind it, so the second fails to start`,
        where: `docker-compose.yml services.${b.s.name}.ports`,
      });
    }
  }
  return findings;
}

/** How each service is served to people: by which way, and whether over plain HTTP. */
function plainHttpRoutes(compose: ComposeModel, files: PlanFile[]): Array<{ service: string; how: string; where: string }> {
  const out: Array<{ service: string; how: string; where: string }> = [];
  const names = new Set(compose.services.map((s) => s.name));
  for (const f of files) {
    const name = f.path.split('/').pop()!;
    if (name === 'Caddyfile') {
      for (const site of caddySites(parseCaddyfile(f.content))) {
        const plain = site.addresses.filter((a) => a.startsWith('http://') || (/^:\d+$/.test(a) && a !== ':443') || /^\d+(\.\d+){3}(:\d+)?$/.test(a));
        if (!plain.length) continue;
        for (const u of site.upstreams) {
          const host = hostOf(u);
          if (host && names.has(host)) out.push({ service: host, how: `the Caddy site ${plain.join(', ')}`, where: `${f.path} line ${site.line}` });
        }
      }
    } else if (name.endsWith('.conf') && /nginx|conf\.d/.test(f.path)) {
      for (const server of nginxServers(parseNginx(f.content))) {
        if (server.ssl) continue;
        for (const u of server.upstreams) {
          const host = hostOf(u);
          if (host && names.has(host)) out.push({ service: host, how: `the nginx server listening on ${server.listens.join(', ') || '80'} without TLS`, where: `${f.path} line ${server.line}` });
        }
      }
    }
  }
  for (const s of compose.services) {
    const labels = labelsOf(s);
    for (const [key, value] of Object.entries(labels)) {
      const router = key.match(/^traefik\.http\.routers\.([^.]+)\.entrypoints$/)?.[1];
      if (!router || labels[`traefik.http.routers.${router}.tls`] === 'true' || labels[`traefik.http.routers.${router}.tls.certresolver`]) continue;
      if (value.split(',').includes(TRAEFIK_PLAIN_ENTRYPOINT)) out.push({ service: s.name, how: `the Traefik router ${router} on the plain HTTP entrypoint`, where: `docker-compose.yml services.${s.name}.labels` });
    }
    // Only ports that serve web pages count: DNS on 53 or a sync protocol carry no login form.
    const web = webPorts(s);
    for (const p of s.ports) if (!loopback(p) && p.containerPort !== 443 && (!web || web.includes(p.containerPort))) out.push({ service: s.name, how: `port ${p.hostPort} published straight to it`, where: `docker-compose.yml services.${s.name}.ports` });
  }
  return out;
}

function labelsOf(s: ComposeService): Record<string, string> {
  const raw = s.raw.labels;
  if (Array.isArray(raw)) return Object.fromEntries(raw.map(String).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  return Object.fromEntries(Object.entries((raw as Record<string, unknown> | undefined) ?? {}).map(([k, v]) => [k, String(v)]));
}

function plainHttpFindings(compose: ComposeModel, files: PlanFile[], intent: PersonIntent | undefined): Finding[] {
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const route of plainHttpRoutes(compose, files)) {
    const s = compose.services.find((x) => x.name === route.service);
    if (!s || !isSensitive(s) || mustStayPrivate(s) || seen.has(s.name)) continue;
    seen.add(s.name);
    const onlyFrom = intent?.onlyFrom?.length ? intent.onlyFrom.join(', ') : undefined;
    findings.push(
      intent?.plainHttpAccepted?.includes(s.name)
        ? { severity: 'warning', code: 'sensitive-plain-http', message: `${s.name} is served over plain HTTP through ${route.how}, as you asked: its logins travel unencrypted`, where: route.where }
        : onlyFrom
          ? { severity: 'warning', code: 'sensitive-plain-http', message: `${s.name} is served over plain HTTP through ${route.how}, reachable from ${onlyFrom} only as you asked: its logins still cross the network unencrypted; a domain with TLS would protect them`, where: route.where }
            : {
              severity: 'error',
              code: 'sensitive-plain-http',
              message: `${s.name} holds logins or personal data and is served to the public over plain HTTP through ${route.how}: give it a domain with TLS, keep it private (SSH tunnel), or say that plain HTTP is what you want`,
              where: route.where,
            },
    );
  }
  return findings;
}

export function exposureFindings(compose: ComposeModel, files: PlanFile[], intent: PersonIntent | undefined, target: TargetFacts | undefined): Finding[] {
  return [...portFindings(compose, intent, target), ...plainHttpFindings(compose, files, intent)];
}
