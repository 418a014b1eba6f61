import { HOST_PROXIES, HOST_PROXY_WORDS, hostProxyById, hostProxyNamed, hostProxyOfHolder, renderSite, type HostProxyKind } from '../catalogue/hostProxies';
import type { PortInUse, ServerFacts } from '../../../shared/stackModel';

/**
 * The reverse proxy a server already runs on 80/443, said by the person ("nginx already runs on 80/443",
 * "Traefik handles TLS on that box", "behind our Apache") or seen at inspection (what holds 80/443).
 * The stack then adds no proxy of its own (one on 8080/8443 could get no certificate for the domain): its
 * web services listen on loopback and the proxy that is there gets a site for them, written by a step
 * with a configuration test and reload when the person asked us to manage it, else given as instructions.
 */

/** What the person said of the proxy their server runs. */
export interface SaidServerProxy {
  /** A kind of catalogue/hostProxies.ts. */
  kind: string;
  /** The person asked us to add the site to it ("add the sites to our nginx"). */
  manage: boolean;
}

/** Words before a proxy's name that say it is already the server's: "our nginx", "behind the existing Apache", "we already have HAProxy". */
const OURS_BEFORE = /\b(?:our|my|the existing|an existing|existing|the server'?s|the box'?s|their|current|behind (?:the|our|my|an?)|already (?:have|has|run|runs|got|use|uses)(?: an?| the)?|there'?s (?:already )?an?|we (?:have|run|use)(?: an?)?)\s+(?:own\s+)?$/i;
/** Words after it that say it runs there now: "nginx already runs on 80/443", "Traefik handles TLS on that box". */
const THERE_AFTER = /^[^,;:]{0,40}?\b(?:already|is running|are running|currently|handles|terminates|fronts|sits in front|is in front|holds|owns|listens)\b/i;
/** A request to deploy it, which no cue after the name overrides unless it says "already". */
const DEPLOY_BEFORE = /\b(?:want|need|deploy|install|add|set ?up|use|with|plus|and)\s+(?:an?\s+|the\s+)?$/i;

/** Whether the proxy name at [start, end) of a clause is the server's own, already running. */
export function namesServerProxy(clause: string, start: number, end: number): boolean {
  if (!hostProxyNamed(clause.slice(start, end))) return false;
  const after = clause.slice(end);
  if (/^[^,;:]{0,40}?\balready\b/i.test(after)) return true;
  // Said of it as gone from the server: still the server's proxy, never one to deploy.
  if (/^\s+(?:is gone|was removed|has been removed|no longer runs|isn'?t (?:there|running)|is not (?:there|running)|doesn'?t run)\b/i.test(after)) return true;
  if (OURS_BEFORE.test(clause.slice(0, start))) return true;
  return THERE_AFTER.test(after) && !DEPLOY_BEFORE.test(clause.slice(0, start));
}

/** Asking us to put the sites into it. */
const MANAGE = /\b(?:add|configure|set ?up|write|create|edit|update|manage|register|hook up|wire up|put)\b/i;
/** Keeping it theirs: "don't touch our nginx", "I'll add the site myself". */
const KEEP_OUT = /\b(?:don'?t|do not|never|no need to|won'?t|leave)\b[^.;]{0,30}\b(?:touch|edit|change|manage|configure|add|alone)\b|\b(?:myself|ourselves)\b|\bI'?ll (?:add|do|configure|set)/i;

/** Words that take it back: "there's no nginx on that box after all", "the proxy is gone", "Apache no longer runs there". */
const GONE = new RegExp(
  `\\b(?:there'?s|there is|it has|the (?:server|box) has)\\s+no\\s+(?:(?:reverse\\s+)?proxy|${HOST_PROXIES.flatMap((k) => k.words).join('|')})\\b|\\b(?:the (?:reverse\\s+)?proxy|${HOST_PROXIES.flatMap((k) => k.words).join('|')})\\s+(?:is gone|was removed|has been removed|no longer runs|isn'?t (?:there|running)|is not (?:there|running)|doesn'?t run)\\b`,
  'i',
);

/** Reads what a clause says of the server's own proxy into `said` (the last word on it wins). */
export function readServerProxy(clause: string, said: SaidServerProxy | undefined): SaidServerProxy | undefined {
  if (GONE.test(clause)) return undefined;
  let found = said;
  for (const m of clause.matchAll(HOST_PROXY_WORDS)) {
    const start = m.index ?? 0;
    if (!namesServerProxy(clause, start, start + m[0].length)) continue;
    found = { kind: hostProxyNamed(m[0])!.id, manage: found?.kind === hostProxyNamed(m[0])!.id ? found.manage : false };
  }
  if (!found) return undefined;
  // "add the sites to it for us" in a later clause speaks of the proxy said before.
  const speaksOfIt = found !== said || /\b(?:it|its|the proxy|the sites?|the vhosts?|the config(?:uration)?)\b/i.test(clause);
  if (speaksOfIt && KEEP_OUT.test(clause)) return { ...found, manage: false };
  if (speaksOfIt && MANAGE.test(clause) && /\b(?:to|in|into|on|for)\s+(?:it|our|my|the|that|its|existing)\b|\b(?:site|sites|vhosts?|config(?:uration)?)\b/i.test(clause)) return { ...found, manage: true };
  return found;
}

/** The server's proxy as the plan uses it: its kind, and the container it runs in when it is one. */
export interface ServerProxy {
  kind: HostProxyKind;
  manage: boolean;
  /** The container holding 80/443 (it reaches the stack over the stack's edge network, not loopback). */
  container?: string;
  /** Said by the person, not seen at inspection. */
  said: boolean;
}

/** What holds port 80 (else 443) per inspection, as a proxy kind when it is one. */
function inspected(serverFacts: ServerFacts | undefined): { kind?: HostProxyKind; container?: string } | undefined {
  const held = serverFacts?.portsInUse.find((p) => p.protocol === 'tcp' && p.port === 80) ?? serverFacts?.portsInUse.find((p) => p.protocol === 'tcp' && p.port === 443);
  if (!held) return undefined;
  const container = held.holder?.match(/^container (\S+)/)?.[1];
  const image = container ? serverFacts?.containers.find((c) => c.name === container)?.image : undefined;
  return { kind: held.holder ? hostProxyOfHolder(container ? container : held.holder, image) : undefined, ...(container ? { container } : {}) };
}

/** The proxy the server runs: what the inspection saw holding 80/443, else what the person said. */
export function serverProxyOf(said: SaidServerProxy | undefined, serverFacts: ServerFacts | undefined): ServerProxy | undefined {
  const seen = inspected(serverFacts);
  const saidKind = said ? hostProxyById(said.kind) : undefined;
  if (seen?.kind) return { kind: seen.kind, manage: Boolean(said?.manage && said.kind === seen.kind.id), ...(seen.container ? { container: seen.container } : {}), said: false };
  if (!saidKind) return undefined;
  // The inspection found 80 and 443 free: what was said does not run there (any more).
  if (serverFacts && !seen) return undefined;
  return { kind: saidKind, manage: said!.manage, ...(seen?.container ? { container: seen.container } : {}), said: !serverFacts };
}

/**
 * The server's ports as the plan takes them: the inspection's, and 80 and 443 held by the proxy the person
 * said runs there when no inspection was made yet.
 */
export function portsAsKnown(said: SaidServerProxy | undefined, serverFacts: ServerFacts | undefined): PortInUse[] {
  const known = serverFacts?.portsInUse ?? [];
  const kind = said && !serverFacts ? hostProxyById(said.kind) : undefined;
  if (!kind) return known;
  const holder = `${kind.label} (as you said)`;
  return [...known, ...[80, 443].map((port) => ({ port, protocol: 'tcp' as const, holder }))];
}

/** A route of the stack as the server's proxy forwards it. */
export interface SiteRoute {
  host: string;
  service: string;
  /** `127.0.0.1:<port>` for a proxy on the host; `<service>:<port>` for one in a container on the stack's network. */
  upstream: string;
}

export interface ServerSite {
  proxy: ServerProxy;
  routes: SiteRoute[];
  text: string;
  /** The site file on the server, when the kind reads one of its own. */
  file?: string;
  /** The compose network a containerised proxy joins to reach the services. */
  network?: string;
}

const fill = (text: string, name: string, hosts: string[]): string => text.replaceAll('{{name}}', name).replaceAll('{{hosts}}', hosts.join(' -d '));

/** The site the server's proxy gets for the stack's routes. */
export function serverSite(proxy: ServerProxy, name: string, project: string, routes: SiteRoute[]): ServerSite {
  const text = renderSite(proxy.kind, routes.map((r) => ({ host: r.host, upstream: r.upstream, id: `${name}-${r.service}`.replace(/[^A-Za-z0-9_-]/g, '-') })));
  return {
    proxy,
    routes,
    text,
    ...(proxy.kind.site.file ? { file: fill(proxy.kind.site.file, name, []) } : {}),
    ...(proxy.container ? { network: `${project}_edge` } : {}),
  };
}

/** Whether the plan writes the site itself: asked, a standard layout, a proxy on the host (a container's files are its own). */
export const managesSite = (site: ServerSite): boolean => site.proxy.manage && site.proxy.kind.manageable && !site.proxy.container && Boolean(site.file);

/** How the domains get certificates with the server's proxy, in words. */
export const certificatesSaying = (site: ServerSite): string => fill(site.proxy.kind.certificates, '', site.routes.map((r) => r.host));

/** A single-quoted shell word. */
const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Remote lines, after the site file is written, that enable it, check the configuration and load it; each
 * root command through `as_root` (defined by the step). A failed check takes the site out again.
 */
export function siteCommands(site: ServerSite, name: string): string[] {
  const k = site.proxy.kind;
  const lines = k.enable.map((e) => `as_root sh -c ${quote(fill(e, name, []))}`);
  if (k.test) {
    const undo = [k.disable ? `as_root sh -c ${quote(`${fill(k.disable, name, [])} >/dev/null 2>&1 || true`)}` : '', site.file ? `as_root rm -f ${site.file}` : ''].filter(Boolean).join('; ');
    lines.push(`if ! as_root ${k.test}; then ${undo ? `${undo}; ` : ''}echo "the ${k.label} configuration test failed: the site was taken out again and ${k.label} was not reloaded" >&2; exit 1; fi`);
  }
  if (k.reload) lines.push(`as_root sh -c ${quote(k.reload.map((r, i) => (i < k.reload!.length - 1 ? `${r} 2>/dev/null` : r)).join(' || '))}`);
  return lines;
}

export const hostProxyKinds = HOST_PROXIES;

/** The plan's words on the site: who adds it, where, how it is checked and loaded, and how HTTPS is had. */
export function siteNote(site: ServerSite): string {
  const k = site.proxy.kind;
  const hosts = site.routes.map((r) => `${r.host} → http://${r.upstream} (${r.service})`).join('; ');
  const join = site.network ? ` ${k.label} runs in the container ${site.proxy.container}: it reaches the services once it joins the stack's network (docker network connect ${site.network} ${site.proxy.container}).` : '';
  const https = ` HTTPS: ${certificatesSaying(site)}.`;
  if (managesSite(site)) {
    return `As you asked, a step adds the site to ${k.label} (${hosts}) as ${k.site.says}, runs its configuration test (${k.test}) and reloads it (${k.reload?.[0]}); a failed test takes the site out again and leaves ${k.label} as it was.${https}`;
  }
  const why = !site.proxy.manage
    ? ''
    : site.proxy.container
      ? ` You asked us to add it, but ${k.label} runs in a container whose configuration is its own: the site is given to you instead.`
      : ` You asked us to add it, but ${k.notManagedWhy ?? `${k.label} has no site file of its own`}: the site is given to you instead.`;
  const check = [k.test ? `check it (sudo ${k.test})` : '', k.reload ? `reload it (sudo ${k.reload[0]})` : ''].filter(Boolean).join(' and ');
  return `Add the site to ${k.label} (${hosts}) as ${k.site.says}${check ? `, then ${check}` : ''}; the plan's "Site for ${k.label}" holds it.${why}${join}${https}`;
}

/**
 * The architecture plan's section on the server's proxy: what the plan does or leaves to the person, and
 * the site under a heading that is not a path (it is not a file of the stack folder). It claims only what
 * a step does: without the managing step, the site is the person's to add.
 */
export function serverSiteSection(stack: { serverSite?: ServerSite; notes: string[] }): string[] {
  const site = stack.serverSite;
  if (!site) return [];
  const k = site.proxy.kind;
  const where = site.file ?? k.site.into ?? '';
  return [
    `## The server's ${k.label}`,
    '',
    siteNote(site),
    '',
    `### Site for ${k.label}`,
    '',
    `${managesSite(site) ? 'Written by the plan to' : 'To add to'} ${where}:`,
    '',
    `\`\`\`${k.fence}`,
    site.text.trimEnd(),
    '```',
    '',
  ];
}
