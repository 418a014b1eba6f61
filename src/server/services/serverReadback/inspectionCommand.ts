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
 * deploy's own SSH configuration does not exist yet at planning time), and trusts the host key it meets in a
 * throwaway known_hosts: the deploy's first step pins the key for good. Its output has the read-back
 * check's shape (readbackCommand.ts): `== da-readback <section> ==` headers, the same `facts` section, then the
 * whole text again as base64, which redaction of secrets cannot blank words of (parseInspection.ts reads it).
 */

export interface InspectionTarget {
  user: string;
  host: string;
  port: number;
}

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

/** How the command names its target: `deploy@203.0.113.7:2222`. */
export const targetLabel = (t: InspectionTarget): string => `${t.user}@${bare(t.host)}:${t.port}`;

/**
 * Whether a target can be written into the command as it is: the stack model's schema allows only these
 * characters, and the command quotes them anyway; anything else is refused rather than escaped.
 */
export const safeTarget = (t: InspectionTarget): boolean =>
  /^[a-z_][a-z0-9_.-]{0,31}$/.test(t.user) && /^[A-Za-z0-9.:-]{1,253}$/.test(bare(t.host)) && Number.isInteger(t.port) && t.port >= 1 && t.port <= 65535;

/** The sandbox command that inspects `target` with the key in the SSH_PRIVATE_KEY User Secret. */
export function inspectionCommand(target: InspectionTarget): string {
  if (!safeTarget(target)) throw new Error(`not a target the inspection can name: ${JSON.stringify(target)}`);
  const doc = hereScript('INSPECT', REMOTE);
  return [
    `${INSPECTION_MARK}${targetLabel(target)}: reads ${INSPECTION_READS}; it changes nothing on the server.`,
    `[ -n "\${SSH_PRIVATE_KEY:-}" ] || { echo "There is no SSH_PRIVATE_KEY in User Secrets: add the private key that logs in to the server." >&2; exit 3; }`,
    `d=$(mktemp -d) && trap 'rm -rf "$d"' EXIT`,
    `(umask 077 && printf '%s\\n' "$SSH_PRIVATE_KEY" > "$d/key")`,
    `ssh -i "$d/key" -p ${target.port} -o IdentitiesOnly=yes -o BatchMode=yes -o ConnectTimeout=20 -o StrictHostKeyChecking=accept-new -o UserKnownHostsFile="$d/known_hosts" -o LogLevel=ERROR '${target.user}@${bare(target.host)}' 'bash -s' <<'${doc.tag}'`,
    ...doc.lines,
  ].join('\n');
}
