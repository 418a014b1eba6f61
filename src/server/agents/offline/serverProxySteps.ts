import type { Stack } from './composer';
import type { PlanStep } from './plannerTypes';
import { remote } from './remoteShell';
import { managesSite, siteCommands } from './serverProxy';

/**
 * Steps for a stack served by the reverse proxy the server already runs: the site added to it when the
 * person asked us to manage it (written, tested, reloaded, then asked through it), and what the deploy
 * can verify otherwise: the services answer on the loopback ports the proxy is to forward to.
 */

/** Remote: runs as root the lines given (sudo when the user is not root), stopping at the first failure. */
const AS_ROOT = 'if [ "$(id -u)" = 0 ]; then as_root() { "$@"; }; elif sudo -n true 2>/dev/null; then as_root() { sudo "$@"; }; else echo "this user has no password-less sudo: the site cannot be added to the proxy" >&2; exit 1; fi';

/** The step that adds the stack's site to the server's proxy, when the plan manages it. */
export function serverSiteStep(stack: Stack): PlanStep | undefined {
  const site = stack.serverSite;
  if (!site || !managesSite(site)) return undefined;
  const k = site.proxy.kind;
  let tag = 'SITE';
  while (site.text.includes(tag)) tag += '_';
  // Through the proxy by the domain's name, compared with the service asked directly and with what the proxy
  // answers a name no site serves (its default site, often HTTP 200 too): the site is in effect when the
  // domain's answer is the service's and not the default one. A reload by signal takes a moment: asked again
  // for up to 15 seconds.
  const probe = [
    'answers=$(mktemp -d); trap \'rm -rf "$answers"\' EXIT',
    `curl -sS -o "$answers/default" --max-time 15 -H "Host: no-site-here.invalid" http://127.0.0.1/ 2>/dev/null || : > "$answers/default"`,
    ...site.routes.flatMap((r) => [
      `direct=$(curl -sS -o /dev/null -w "%{http_code}" --max-time 15 http://${r.upstream}/) || { echo "${r.service} does not answer at ${r.upstream}" >&2; exit 1; }`,
      'for i in $(seq 1 15); do',
      `  via=$(curl -sS -o "$answers/via" -w "%{http_code}" --max-time 15 -H "Host: ${r.host}" http://127.0.0.1/) || via=000`,
      '  if cmp -s "$answers/via" "$answers/default"; then default=1; else default=0; fi',
      '  [ "$via" = "$direct" ] && [ "$default" = 0 ] && break',
      '  sleep 1',
      'done',
      `echo "${r.host} through ${k.label}: HTTP $via (${r.service} directly: HTTP $direct)"`,
      `case "$via" in 000) echo "${k.label} does not answer on port 80 of the server" >&2; exit 1;; 502|503|504) echo "${k.label} answers $via for ${r.host}: it does not reach ${r.service} at ${r.upstream}" >&2; exit 1;; esac`,
      `if [ "$default" = 1 ]; then echo "${k.label} answers ${r.host} with its default site, not ${r.service}: the new site is not in effect (another site may claim the name, or its file is not read)" >&2; exit 1; fi`,
      `[ "$via" = "$direct" ] || echo "note: ${r.host} answers differently through ${k.label} than ${r.service} directly; its own redirects or host checks may explain it"`,
    ]),
  ];
  return {
    title: `Add the site to the server's ${k.label}`,
    description: `As you asked: ${site.file} gets ${site.routes.map((r) => `${r.host} → ${r.upstream}`).join(', ')}; ${k.test ? `\`${k.test}\` checks the configuration (a failed check takes the site out again, ${k.label} stays as it was)` : 'nothing to check'}${k.reload ? `, \`${k.reload[0]}\` loads it` : ''}, then each domain is asked through ${k.label} on the server itself.`,
    commands: [
      remote(
        [
          AS_ROOT,
          ...(k.test ? [`as_root sh -c 'command -v ${k.test.split(' ')[0]}' >/dev/null || { echo "${k.label} is not installed on this server as a host service (no ${k.test.split(' ')[0]}): add the site by hand (the plan's Site for ${k.label})" >&2; exit 1; }`] : []),
          `as_root mkdir -p ${site.file!.split('/').slice(0, -1).join('/')}`,
          `as_root tee ${site.file} >/dev/null <<'${tag}'`,
          site.text.trimEnd(),
          tag,
          ...siteCommands(site, stack.name),
          ...probe,
        ].join('\n'),
      ),
    ],
  };
}

/** Verify-step lines: each routed service answers on its loopback port (what the server's proxy forwards to). */
export function loopbackChecks(stack: Stack): string[] {
  const ports = stack.routes.flatMap((r) => {
    const port = stack.published.find((p) => p.service === r.service && p.port.startsWith('127.0.0.1:'))?.port.split(':')[1];
    return port ? [{ r, port }] : [];
  });
  if (!ports.length) return [];
  return [
    remote(ports.map(({ r, port }) => `curl -sS -o /dev/null --max-time 15 -w "${r.service} answers on 127.0.0.1:${port} (for ${r.host}): HTTP %{http_code}\\n" http://127.0.0.1:${port}/`).join('\n')),
  ];
}
