import YAML from 'yaml';
import type { StackModel } from '../../../shared/stackModel';
import { PRODUCTS } from './knowledge';
import { DETECT_DOCKER, remote, SERVER_ADDRESS, SSH, SSH_CONFIG } from './remoteShell';
import { LEGACY_STACK_DIR, placeIfValid } from './stackPlace';
import { pathsOf } from './backupScripts';
import { oneShotServices } from './oneShot';

/**
 * Validation of the running system, over SSH and from outside: what the executed steps deployed (the
 * compose file they wrote, the server they reached) is checked live, so a stack that is down fails and
 * re-executing a check checks again. Nothing here changes the server.
 */

export interface Check {
  title: string;
  description: string;
  commands: string[];
}

export interface DeployedStack {
  /** Every service of the compose file, with its published host ports and the ports it listens on inside. */
  services: Array<{ name: string; published: string[]; internal: string[]; healthcheck: boolean; oneShot?: boolean }>;
  /** The domain the site is served on, when one is set. */
  domain?: string;
  /** TLS was promised (certificates from Let's Encrypt). */
  tls: boolean;
  /** Where the steps put the stack on the server: the folder their remote scripts `cd` into. */
  dir: string;
}

/**
 * The stack folder the executed steps used: the last `cd` to a stack directory a remote script of theirs
 * makes ("Start the stack" does), so the checks look where that deploy ran; the legacy folder for steps
 * from before stacks had places of their own, which all `cd /opt/stack`.
 */
function stackDirectoryOf(commands: string[]): string {
  const dirs = commands.flatMap((c) => [...c.matchAll(/^cd (\/\S+)$/gm)].map((m) => m[1]!)).filter((d) => placeIfValid(d) !== undefined);
  return dirs.pop() ?? LEGACY_STACK_DIR;
}

/** The heredoc body a command writes to `path`, if it does. */
function writtenFile(command: string, path: string): string | undefined {
  const escaped = path.replace(/[./]/g, (c) => `\\${c}`);
  const m = command.match(new RegExp(`cat > ${escaped} <<'(\\w+)'\\n([\\s\\S]*?)\\n\\1(?=\\n|$)`));
  return m?.[2];
}

/** What the executed commands deployed: the server alias they configured and the compose file they wrote. */
export function deployedStack(commands: string[], plan: { domain?: string; tls?: boolean } = {}): DeployedStack | undefined {
  if (!commands.some((c) => c.includes(`cat > ${SSH_CONFIG} <<`))) return undefined;
  const composeText = commands.map((c) => writtenFile(c, 'stack/docker-compose.yml')).filter(Boolean).pop();
  if (!composeText) return undefined;
  let compose: { services?: Record<string, { ports?: unknown[]; expose?: unknown[]; healthcheck?: { disable?: boolean } }> };
  try {
    compose = YAML.parse(composeText) as typeof compose;
  } catch {
    return undefined;
  }
  const once = new Set(oneShotServices(compose));
  const services = Object.entries(compose.services ?? {}).map(([name, s]) => {
    const ports = (s.ports ?? []).map(String);
    return {
      name,
      published: ports.filter((p) => !p.startsWith('127.0.0.1:')).map((p) => p.split(':').slice(-2)[0]!.split('/')[0]!),
      internal: ports.map((p) => p.split(':').pop()!.split('/')[0]!),
      healthcheck: Boolean(s.healthcheck) && !s.healthcheck?.disable,
      ...(once.has(name) ? { oneShot: true } : {}),
    };
  });
  return { services, domain: plan.domain, tls: Boolean(plan.tls), dir: stackDirectoryOf(commands) };
}


/**
 * Remote: each named service has a running container that is healthy (a starting one gets a minute);
 * a task that runs once (`oneShot`) has exited 0.
 */
const servicesHealthy = (dir: string, names: string[], oneShot: string[]): string =>
  [
    DETECT_DOCKER,
    `cd ${dir}`,
    `for i in $(seq 1 20); do`,
    '  bad=0; report=',
    `  for s in ${names.join(' ')}; do`,
    '    id=$(compose ps -a -q "$s" 2>/dev/null | head -n 1)',
    '    if [ -z "$id" ]; then report+="$s: no container"$\'\\n\'; bad=2; continue; fi',
    "    st=$(docker inspect -f '{{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}no-healthcheck{{end}}' \"$id\")",
    ...(oneShot.length ? [`    case " ${oneShot.join(' ')} " in *" $s "*) code=$(docker inspect -f '{{.State.ExitCode}}' "$id"); report+="$s: runs once, $st (exit code $code)"$'\\n'; case "$st" in exited*) [ "$code" = 0 ] || bad=2 ;; *) [ $bad = 2 ] || bad=1 ;; esac; continue ;; esac`] : []),
    '    report+="$s: $st"$\'\\n\'',
    '    case "$st" in "running healthy"|"running no-healthcheck") ;; "running starting") [ $bad = 2 ] || bad=1 ;; *) bad=2 ;; esac',
    '  done',
    '  if [ $bad = 0 ]; then printf "%s" "$report"; echo "every service runs and is healthy"; exit 0; fi',
    '  if [ $bad = 2 ]; then break; fi',
    '  sleep 3',
    'done',
    'printf "%s" "$report" >&2',
    'echo "not every service of the compose file runs healthy" >&2',
    'exit 1',
  ].join('\n');

/** Services that answer people on port 80 themselves: the proxies' and the web server's (catalogue data). */
const FRONT_SERVICES = new Set(Object.values(PRODUCTS).filter((c) => c.proxy || c.category === 'web').flatMap((c) => c.services.map((x) => x.name)));

/** Checks of the live server for a stack the executed steps deployed. */
export function serverChecks(stack: DeployedStack, othersOnServer: number[] = []): Check[] {
  const names = stack.services.map((s) => s.name);
  // Services marked x-no-healthcheck cannot report "healthy": running is what exists to check.
  const oneShot = stack.services.filter((s) => s.oneShot).map((s) => s.name);
  const unchecked = stack.services.filter((s) => !s.healthcheck && !s.oneShot).map((s) => s.name);
  const published = [...new Set(stack.services.flatMap((s) => s.published))];
  // A port something else on the server holds (its inspection said so) is open whatever this stack does.
  const privatePorts = [...new Set(stack.services.flatMap((s) => s.internal).filter((p) => !published.includes(p) && !othersOnServer.includes(Number(p))))];
  const proxy = stack.services.find((s) => FRONT_SERVICES.has(s.name) && s.published.includes('80'));
  const checks: Check[] = [
    {
      title: 'Reach the server with its pinned host key',
      description: 'SSH logs in with the deploy key, and the server still presents the host key pinned at first contact.',
      commands: [`${SSH} 'echo "logged in to $(hostname) as $(id -un)"'`, 'ssh-keygen -l -f ssh-keys/known_hosts'],
    },
    {
      title: 'Every service of the compose file runs and is healthy',
      description: `On the server: ${names.join(', ')} each have a running container${unchecked.length ? `; a healthcheck passes for ${names.filter((n) => !unchecked.includes(n)).join(', ') || 'none'}, while ${unchecked.join(', ')} ${unchecked.length === 1 ? 'has' : 'have'} none in the compose file, so ${unchecked.length === 1 ? 'it is' : 'they are'} checked for running only (unless the image brings its own healthcheck)` : ' whose healthcheck passes'}${oneShot.length ? `; ${oneShot.join(', ')} run${oneShot.length === 1 ? 's' : ''} once and must have exited 0` : ''}.`,
      commands: [remote(servicesHealthy(stack.dir, names, oneShot))],
    },
  ];
  if (proxy) {
    checks.push({
      title: "The proxy answers on the server's address",
      description: `From outside (this sandbox): http://<server address>/ gets an HTTP answer from ${proxy.name}.`,
      commands: [
        SERVER_ADDRESS,
        'code=$(curl -sS -o /dev/null -w "%{http_code}" --max-time 15 "http://$IP/") || { echo "nothing answers on http://$IP/" >&2; exit 1; }',
        'echo "http://$IP/ answers HTTP $code"',
        '[ "$code" -ge 200 ] && [ "$code" -lt 500 ] || { echo "the proxy answers with an error ($code)" >&2; exit 1; }',
      ],
    });
  }
  if (stack.domain) {
    const scheme = stack.tls ? 'https' : 'http';
    checks.push({
      title: `The site answers on ${stack.domain}`,
      description: `From outside: ${scheme}://${stack.domain}/ resolves to the server and answers.`,
      commands: [
        SERVER_ADDRESS,
        `resolved=$(getent ahostsv4 ${stack.domain} | awk 'NR==1{print $1}'); [ -n "$resolved" ] || { echo "${stack.domain} does not resolve" >&2; exit 1; }`,
        `echo "${stack.domain} resolves to $resolved (server: $IP)"`,
        `code=$(curl -sS -o /dev/null -w "%{http_code}" --max-time 15 ${scheme}://${stack.domain}/); echo "${scheme}://${stack.domain}/ answers HTTP $code"; [ "$code" -ge 200 ] && [ "$code" -lt 500 ]`,
      ],
    });
  }
  if (stack.domain && stack.tls) {
    checks.push({
      title: `The certificate of ${stack.domain} is valid`,
      description: 'The certificate verifies against the system trust store for the domain and is valid for at least 14 more days.',
      commands: [
        `echo | openssl s_client -connect ${stack.domain}:443 -servername ${stack.domain} -verify_return_error 2>/dev/null | openssl x509 -noout -subject -issuer -enddate -checkend 1209600`,
        `curl -fsS -o /dev/null https://${stack.domain}/ && echo "https://${stack.domain}/ verifies"`,
      ],
    });
  }
  checks.push({
    title: 'The firewall is as planned',
    description: `From outside: ${published.length ? `the published port${published.length === 1 ? '' : 's'} ${published.join(', ')} accept connections` : 'no port is published'}${privatePorts.length ? `, and ${privatePorts.join(', ')} (kept on the server) do not` : ''}.`,
    commands: [
      SERVER_ADDRESS,
      'open() { timeout 8 bash -c "</dev/tcp/$IP/$1" 2>/dev/null; }',
      'bad=0',
      ...published.map((p) => `if open ${p}; then echo "port ${p}: open, as planned"; else echo "port ${p}: closed, but the plan publishes it" >&2; bad=1; fi`),
      ...privatePorts.map((p) => `if open ${p}; then echo "port ${p}: reachable from outside, but the plan keeps it on the server" >&2; bad=1; else echo "port ${p}: not reachable from outside, as planned"; fi`),
      'exit $bad',
    ],
  });
  return checks;
}

/** A component's service that others reach (its first with a port), and the one that reaches out (the first). */
const serviceOf = (component: string, reaching: boolean): string => {
  const c = PRODUCTS[component];
  if (!c) return component;
  return (reaching ? c.services[0] : c.services.find((x) => x.internalPort) ?? c.services[0])!.name;
};

/**
 * Checks the stack model asks for (a plan rendered from a model carries it): each public endpoint answers
 * through its proxy at its address, each link resolves from the component that uses it (in that
 * container's own network namespace), and the latest backup restores in the restore drill.
 */
export function modelChecks(model: StackModel, stack: DeployedStack, backups: boolean): Check[] {
  const checks: Check[] = [];
  for (const e of model.exposures) {
    if (e.via !== 'proxy') continue;
    const proxy = stack.services.find((s) => s.name === serviceOf(e.proxy, false));
    const port = e.tls ? '443' : proxy?.published.find((p) => p !== '443');
    if (!port) continue;
    const scheme = e.tls ? 'https' : 'http';
    const address = e.domain ? `${scheme}://${e.domain}${port === (e.tls ? '443' : '80') ? '' : `:${port}`}/` : `http://$IP${port === '80' ? '' : `:${port}`}/`;
    const resolve = e.domain ? ` --resolve ${e.domain}:${port}:$IP` : '';
    checks.push({
      title: `${e.component} answers through ${e.proxy} at ${address.replace('$IP', 'the server')}`,
      description: `From outside, at the server's address${e.domain ? ` (asked as ${e.domain}, whatever DNS says yet)` : ''}: the proxy forwards to ${e.component} and an answer comes back (an error from the proxy itself, 502 or 504, means nothing answered behind it).`,
      commands: [
        SERVER_ADDRESS,
        `code=$(curl -sS -o /dev/null -w "%{http_code}" --max-time 20${resolve} "${address}") || { echo "nothing answers at ${address}" >&2; exit 1; }`,
        `echo "${address} answers HTTP $code"`,
        '[ "$code" -ge 200 ] && [ "$code" -lt 500 ] || { echo "the proxy answers $code: nothing behind it answered" >&2; exit 1; }',
      ],
    });
  }
  for (const l of model.links) {
    const from = serviceOf(l.from, true);
    const to = serviceOf(l.to, false);
    checks.push({
      title: `${l.from} resolves ${l.to}`,
      description: `On the server, in ${from}'s own network: the name ${to} resolves to the container that serves it (run with ${to}'s image, else ${from}'s, in ${from}'s network namespace).`,
      commands: [
        remote(
          [
            DETECT_DOCKER,
            `cd ${stack.dir}`,
            `from=$(compose ps -q ${from} | head -n 1); to=$(compose ps -q ${to} | head -n 1)`,
            `[ -n "$from" ] || { echo "${from} has no container" >&2; exit 1; }`,
            `[ -n "$to" ] || { echo "${to} has no container" >&2; exit 1; }`,
            'for img in "$(docker inspect -f \'{{.Config.Image}}\' "$to")" "$(docker inspect -f \'{{.Config.Image}}\' "$from")"; do',
            `  if out=$(docker run --rm --network "container:$from" --entrypoint sh "$img" -c 'getent hosts ${to} || nslookup ${to}' 2>&1); then echo "from ${from}: $out"; exit 0; fi`,
            'done',
            `echo "${to} does not resolve from ${from}: $out" >&2`,
            'exit 1',
          ].join('\n'),
        ),
      ],
    });
  }
  if (backups) {
    // The drill the deploy installed for this stack (its place's paths).
    const drill = pathsOf(placeIfValid(stack.dir) ?? placeIfValid(LEGACY_STACK_DIR)!).drillScript;
    checks.push({
      title: 'The latest backup restores (restore drill)',
      description: `On the server: the restore drill (${drill}) checks the backup repository (restic check), restores the latest backup into throwaway containers on their own internal network (the live stack is not touched) and compares its tables, row counts and files with those recorded at backup time; everything it started is removed afterwards.`,
      commands: [remote(['if [ "$(id -u)" = 0 ]; then as_root() { "$@"; }; else as_root() { sudo -n "$@"; }; fi', `as_root ${drill}`].join('\n'))],
    });
  }
  return checks;
}
