import { SSH_ALIAS } from './sshTarget';

/**
 * How plan steps reach the server: every step runs in the project workspace, where `ssh-keys/config`
 * (written by the first step, out of the step history) names the server `da-server` with its user,
 * port, key and the host key pinned on first contact. Remote scripts run under `set -euo pipefail` and
 * find out what the server has (sudo or not, Compose v2 or v1) instead of assuming.
 */

export const SSH_CONFIG = 'ssh-keys/config';
export const SSH = `ssh -F ${SSH_CONFIG} ${SSH_ALIAS}`;
/** Workspace: `IP` becomes the server's address from the SSH config; no address, no step. */
export const SERVER_ADDRESS = `IP=$(awk '$1=="HostName"{print $2; exit}' ${SSH_CONFIG}); [ -n "$IP" ] || { echo "no server address in ${SSH_CONFIG}" >&2; exit 1; }`;

/**
 * `script` as the here-document a remote `bash -s` reads, ended by a tag the script does not hold. In
 * braces, bash reads the whole script before it runs, so no command in it can read the rest as input;
 * `strict` runs it under `set -euo pipefail`. Every command that sends a script to a server builds its
 * here-document here.
 */
export function hereScript(base: string, script: string, options: { strict?: boolean } = {}): { tag: string; lines: string[] } {
  let tag = base;
  while (script.includes(tag)) tag += '_';
  return { tag, lines: ['{', ...(options.strict ? ['set -euo pipefail'] : []), 'exec </dev/null', script, '}', tag] };
}

/**
 * Workspace: the line that sends the variables named in `env` to a remote `bash -s` on its stdin, as
 * `export NAME=<value quoted by printf %q>` lines, ahead of the here-document `tag`; the same line pipes
 * it all to `ssh`. A value is never an argument of any process (printf is bash's builtin): on ssh's
 * command line it would show in `ps` in the sandbox, on the server (sshd runs the remote command through
 * the login shell's `-c`) and on the host running the sandbox, for as long as the step runs. A variable
 * the workspace lacks stops the step under `set -u` before the server runs anything (pipefail).
 */
export function sendEnvAhead(ssh: string, env: string[], tag: string): string {
  const bad = env.filter((e) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(e));
  if (bad.length) throw new Error(`not variable names: ${bad.join(', ')}`);
  const args = env.map((e) => `${e} "$${e}"`).join(' ');
  return `{ printf 'export %s=%q\\n' ${args}; cat <<'${tag}'; } | ${ssh} 'bash -s'`;
}

/**
 * A script run on the server as one `bash -s` (its stdin is the script, so commands in it read from
 * /dev/null once bash has read it all). Environment variables named in `env` travel on ssh's stdin
 * ahead of the script (`sendEnvAhead`), whatever they hold; the command names them, never their values.
 */
export function remote(script: string, env: string[] = []): string {
  const doc = hereScript('REMOTE', script.trimEnd(), { strict: true });
  const first = env.length ? sendEnvAhead(SSH, env, doc.tag) : `${SSH} 'bash -s' <<'${doc.tag}'`;
  return [first, ...doc.lines].join('\n');
}

/** Remote prelude: `docker` and `compose` that work whether the user needs sudo and whichever Compose the server has. */
export const DETECT_DOCKER = [
  'if docker info >/dev/null 2>&1; then SUDO=; elif sudo -n docker info >/dev/null 2>&1; then SUDO=sudo; else echo "Docker Engine is not running on the server, or this user may not use it" >&2; exit 1; fi',
  'docker() { if [ -n "$SUDO" ]; then sudo docker "$@"; else command docker "$@"; fi; }',
  'if docker compose version >/dev/null 2>&1; then COMPOSE="docker compose"; elif command -v docker-compose >/dev/null 2>&1; then COMPOSE=docker-compose; else echo "Docker Compose (v2 plugin or v1 docker-compose) is not installed on the server" >&2; exit 1; fi',
  'compose() { if [ "$COMPOSE" = "docker compose" ]; then docker compose "$@"; elif [ -n "$SUDO" ]; then sudo docker-compose "$@"; else command docker-compose "$@"; fi; }',
].join('\n');

/**
 * Remote: waits until every container of the stack runs and is healthy (or runs and has no
 * healthcheck), for Compose v1 and v2 alike; a service that runs once (`oneShot`) must have exited 0.
 * Fails at once when another container exits, and after `seconds`. With `failUnhealthy` a container
 * whose own health check has given up (Docker's `unhealthy`, after its retries) fails it at once too: a
 * change's gate need not wait out the whole time for a service that will not come up. With `oneShotVar`
 * the tasks are read from that shell variable (`a|b`) when the script runs instead of `oneShot`.
 */
export const waitHealthy = (seconds: number, oneShot: string[] = [], options: { failUnhealthy?: boolean; oneShotVar?: string } = {}): string => {
  const running = "' running (healthy|no-healthcheck) [0-9]+$'";
  // `oneShotVar` names a shell variable holding the tasks as `a|b` when they are only known on the server.
  const v = options.oneShotVar;
  const once = v ? `"^($${v}) "` : `'^(${oneShot.join('|')}) '`;
  // A task is done once it exited 0 (still running, it is waited for); any other service once it runs (healthy where checked).
  const split = `{ grep -E ${once} <<<"$states" | grep -Ev ' exited [a-z-]+ 0$'; grep -Ev ${once} <<<"$states" | grep -Ev ${running}; } || true`;
  const plain = `grep -Ev ${running} <<<"$states" || true`;
  const open = v ? `if [ -n "$${v}" ]; then open=$(${split}); else open=$(${plain}); fi` : `open=$(${oneShot.length ? split : plain})`;
  return [
    `deadline=$((SECONDS + ${seconds}))`,
    "started=$SECONDS said='' said_at=-30",
    'while :; do',
    '  ids=$(compose ps -a -q)',
    '  [ -n "$ids" ] || { echo "the stack has no containers" >&2; exit 1; }',
    `  states=$(docker inspect -f '{{index .Config.Labels "com.docker.compose.service"}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{else}}no-healthcheck{{end}} {{.State.ExitCode}}' $ids)`,
    `  ${open}`,
    `  if [ -z "$open" ]; then printf '%s\\n' "$states"; break; fi`,
    `  if grep -qE ' (exited|dead${options.failUnhealthy ? '|running unhealthy' : ''}) ' <<<"$open"; then printf '%s\\n' "$states" >&2; compose logs --tail 40 >&2; echo '${options.failUnhealthy ? 'a container stopped or is unhealthy' : 'a container stopped'}' >&2; exit 1; fi`,
    `  if [ $SECONDS -ge $deadline ]; then printf '%s\\n' "$states" >&2; compose logs --tail 40 >&2; echo 'not every container is healthy after ${seconds} seconds' >&2; exit 1; fi`,
    // What it waits for, as it happens (a step card shows its newest lines): when that changes, else every 30 s.
    '  if [ "$open" != "$said" ] || [ $((SECONDS - said_at)) -ge 30 ]; then',
    '    summary=$(while read -r name status health _; do if [ "$health" = no-healthcheck ]; then printf \'%s %s, \' "$name" "$status"; else printf \'%s %s, \' "$name" "$health"; fi; done <<<"$open")',
    '    echo "waiting for: ${summary%, } ($((SECONDS - started)) s)"',
    '    said=$open said_at=$SECONDS',
    '  fi',
    '  sleep 3',
    'done',
  ].join('\n');
};

/**
 * Workspace commands that write the SSH config for the server at `host` (a literal or a shell
 * expression such as "$IP"), pin its host key on first contact and show the pinned fingerprints.
 * Every later step uses StrictHostKeyChecking=yes: a different host key stops it.
 */
export function connectCommands(target: { user: string; host: string; port: number | string }, keyFile: string): string[] {
  // Only an address read at run time ("$IP") can be empty; a literal one needs no test (ShellCheck SC2157).
  return [
    ...(target.host.includes('$') ? ['[ -n "' + target.host + '" ] || { echo "no server address to connect to" >&2; exit 1; }'] : []),
    `umask 077 && mkdir -p ssh-keys && touch ssh-keys/known_hosts`,
    `cat > ${SSH_CONFIG} <<EOF\nHost ${SSH_ALIAS}\n  HostName ${target.host}\n  Port ${target.port}\n  User ${target.user}\n  IdentityFile $PWD/${keyFile}\n  IdentitiesOnly yes\n  UserKnownHostsFile $PWD/ssh-keys/known_hosts\n  StrictHostKeyChecking yes\n  BatchMode yes\n  ConnectTimeout 20\n  ServerAliveInterval 15\nEOF`,
  ];
}

/** First contact: accept and record the host key if none is pinned, then print what is pinned. */
export const PIN_HOST_KEY = [
  `ssh -F ${SSH_CONFIG} -o StrictHostKeyChecking=accept-new ${SSH_ALIAS} 'echo "connected to $(hostname) as $(id -un)"'`,
  'echo "Host key pinned in ssh-keys/known_hosts (later steps refuse any other):"',
  'ssh-keygen -l -f ssh-keys/known_hosts',
].join('\n');
