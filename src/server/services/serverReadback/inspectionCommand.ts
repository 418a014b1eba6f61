import { hereScript } from '../../agents/offline/remoteShell';
import { FACTS_SCRIPT } from './readbackCommand';

/**
 * The inspection of the person's existing server before the architecture plan is final: one read-only
 * command, generated here and shown whole to the person, run in the project's sandbox only once they
 * approve it. It reads what would get in the plan's way (listening ports, running containers and their
 * published ports, compose projects) and what the plan may say about the server (OS, Docker and Compose
 * versions, CPUs, memory, free disk). Nothing on the server is written: no file, no package, no container.
 *
 * In the sandbox it writes the SSH key from User Secrets to a temporary folder it removes on exit (the
 * deploy's own SSH configuration does not exist yet at planning time). The host key is pinned on this first
 * contact in the workspace's `ssh-keys/known_hosts`, the file the deploy's steps check against
 * (remoteShell.ts `connectCommands`): a key pinned earlier must match, and the deploy refuses any key but the
 * one pinned here. Its output has the read-back check's shape (readbackCommand.ts): `== da-readback <section> ==`
 * headers, the same `facts` section, then the whole text again as base64, which redaction of secrets cannot
 * blank words of (parseInspection.ts reads it); after it, read in the sandbox, `== da-hostkey <now|earlier> ==`
 * and the pinned key's fingerprint as `ssh-keygen -l -F` prints it.
 *
 * A server the plan names only through User Secrets (SERVER_USER, SERVER_HOST, as the deploy's first step
 * reaches it) is inspected through the same variables: the command names them, never their values, and
 * checks in the sandbox that each is a user or host ssh can take before it is used.
 */

export interface InspectionTarget {
  user: string;
  host: string;
  port: number;
}

/** A server named by User Secrets: the environment variables holding its user and host, and its port. */
export interface SecretsTarget {
  userVar: string;
  hostVar: string;
  port: number;
}

/** The server the offline plans reach through User Secrets when the words named none (provisionSteps.ts, on port 22). */
export const SECRETS_TARGET: SecretsTarget = { userVar: 'SERVER_USER', hostVar: 'SERVER_HOST', port: 22 };

export type Inspected = InspectionTarget | SecretsTarget;
export const namedBySecrets = (t: Inspected): t is SecretsTarget => 'hostVar' in t;

/** The first line of the command; the target it reads follows it. */
export const INSPECTION_MARK = '# da-inspect v1 target=';

/** What the command reads, in the person's words (the first line of the command says it too). */
export const INSPECTION_READS = 'listening ports, running containers and compose projects, OS, Docker and Compose versions, CPUs, memory and free disk';

const REMOTE = `PATH="$PATH:/usr/sbin:/sbin"
say() { printf '== da-readback %s ==\\n' "$*"; }
inspect() {
${FACTS_SCRIPT}
if command -v ss >/dev/null 2>&1; then
  say listening
  sudo -n ss -Htlnup 2>/dev/null || ss -Htlnup
else
  # No ss (a minimal image): the kernel's own socket tables say the same.
  say proc-net
  for f in tcp tcp6 udp udp6; do if [ -r "/proc/net/$f" ]; then tail -n +2 "/proc/net/$f" | sed "s/^/$f /"; fi; done
fi
say containers
if [ -n "$D" ]; then $D ps --no-trunc --format '{{json .}}'; else echo "unreadable: docker"; fi
say compose-ls
if [ -n "$D" ] && $D compose version >/dev/null 2>&1; then $D compose ls --all --format json; fi
}
out=$(inspect 2>&1)
printf '%s\\n' "$out"
say record
printf '%s\\n' "$out" | base64 -w 76
say end`;

/** `[2001:db8::1]` as ssh takes it on its command line. */
const bare = (host: string): string => host.replace(/^\[|\]$/g, '');

/** How the command names its target: `deploy@203.0.113.7:2222`, or `$SERVER_USER@$SERVER_HOST:22`. */
export const targetLabel = (t: Inspected): string => (namedBySecrets(t) ? `$${t.userVar}@$${t.hostVar}:${t.port}` : `${t.user}@${bare(t.host)}:${t.port}`);

const USER_PATTERN = '^[a-z_][a-z0-9_.-]{0,31}$';
const HOST_PATTERN = '^[A-Za-z0-9.:-]{1,253}$';

/**
 * Whether a target can be written into the command as it is: the stack model's schema allows only these
 * characters, and the command quotes them anyway; anything else is refused rather than escaped.
 */
export const safeTarget = (t: InspectionTarget): boolean =>
  new RegExp(USER_PATTERN).test(t.user) && new RegExp(HOST_PATTERN).test(bare(t.host)) && Number.isInteger(t.port) && t.port >= 1 && t.port <= 65535;

const VAR = /^[A-Z_][A-Z0-9_]{0,63}$/;
const safeSecrets = (t: SecretsTarget): boolean => VAR.test(t.userVar) && VAR.test(t.hostVar) && Number.isInteger(t.port) && t.port >= 1 && t.port <= 65535;

/** Where the deploy's steps keep the pinned host keys (relative to the workspace; remoteShell.ts). */
export const KNOWN_HOSTS = 'ssh-keys/known_hosts';
/** The header of the host key section: `now` when this run pinned it, `earlier` when it matched one pinned before. */
export const HOSTKEY_MARK = '== da-hostkey';

/** The name ssh files a host key under in known_hosts: the bare host on port 22, `[host]:port` otherwise. */
export const knownHostsName = (t: InspectionTarget): string => (t.port === 22 ? bare(t.host) : `[${bare(t.host)}]:${t.port}`);

/**
 * How the command writes the target, as shell words: the destination ssh logs in to and the name of its key
 * in known_hosts, single-quoted literals or double-quoted variables; with the checks a variable needs first.
 */
function shellTarget(target: Inspected): { checks: string[]; destination: string; name: string } {
  if (!namedBySecrets(target)) {
    if (!safeTarget(target)) throw new Error(`not a target the inspection can name: ${JSON.stringify(target)}`);
    return { checks: [], destination: `'${target.user}@${bare(target.host)}'`, name: `'${knownHostsName(target)}'` };
  }
  if (!safeSecrets(target)) throw new Error(`not variables the inspection can name: ${JSON.stringify(target)}`);
  const { userVar: u, hostVar: h, port } = target;
  const missing = (v: string, what: string) => `[ -n "\${${v}:-}" ] || { echo "There is no ${v} in User Secrets: add ${what}." >&2; exit 3; }`;
  return {
    checks: [
      missing(u, 'the user that logs in to the server'),
      missing(h, "the server's address"),
      // Checked before ssh sees them: a value that is not a plain user or host could be read as an option.
      `user_ok='${USER_PATTERN}' host_ok='${HOST_PATTERN}'`,
      `[[ $${u} =~ $user_ok ]] || { echo "${u} in User Secrets is not a user name ssh can log in as." >&2; exit 3; }`,
      `[[ $${h} =~ $host_ok ]] || { echo "${h} in User Secrets is not a host name or IP address (no brackets, no port)." >&2; exit 3; }`,
    ],
    destination: `"$${u}@$${h}"`,
    name: port === 22 ? `"$${h}"` : `"[$${h}]:${port}"`,
  };
}

/** The sandbox command that inspects `target` with the key in the SSH_PRIVATE_KEY User Secret. */
export function inspectionCommand(target: Inspected): string {
  const { checks, destination, name } = shellTarget(target);
  const doc = hereScript('INSPECT', REMOTE);
  return [
    `${INSPECTION_MARK}${targetLabel(target)}: reads ${INSPECTION_READS}; it changes nothing on the server.`,
    `[ -n "\${SSH_PRIVATE_KEY:-}" ] || { echo "There is no SSH_PRIVATE_KEY in User Secrets: add the private key that logs in to the server." >&2; exit 3; }`,
    ...checks,
    `d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT`,
    `(umask 077 && printf '%s\\n' "$SSH_PRIVATE_KEY" > "$d/key" && mkdir -p ssh-keys && touch ${KNOWN_HOSTS}) || exit 1`,
    // Pinned before (an earlier inspection, a deploy): ssh must meet that key again, or it refuses.
    `if ssh-keygen -F ${name} -f ${KNOWN_HOSTS} >/dev/null; then pinned=earlier; else pinned=now; fi`,
    `ssh -i "$d/key" -p ${target.port} -o IdentitiesOnly=yes -o BatchMode=yes -o ConnectTimeout=20 -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile="$PWD/${KNOWN_HOSTS}" -o LogLevel=ERROR ${destination} 'bash -s' <<'${doc.tag}'`,
    ...doc.lines,
    'status=$?',
    `printf '${HOSTKEY_MARK} %s ==\\n' "$pinned"`,
    `ssh-keygen -l -F ${name} -f ${KNOWN_HOSTS} | grep -v '^#'`,
    'exit $status',
  ].join('\n');
}
