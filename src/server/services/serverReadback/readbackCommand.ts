import { hereScript } from '../../agents/offline/remoteShell';
import { SSH_CONFIG_FILE } from '../devopsHelper/projectServers';

/**
 * The read-back check: after the deploy, one approved, read-only command reads the server's facts (system,
 * Docker and Compose versions, CPUs, memory and disk, `sshd -T`, the firewall, listening ports, TLS
 * certificates) and the files as deployed (every compose project's compose files and the files its
 * containers mount from its folder) over the SSH configuration the steps wrote. It changes nothing on the
 * server. Its output is the record the documentation is rendered from (parseReadback.ts reads it): each
 * section starts with a `== da-readback … ==` line, and a file's header gives its line count, so a file's
 * own text is never read as a header.
 */

export const READBACK_TITLE = "Read back the server's facts and the files as deployed (read-only)";
/** The first line of the command; the server it reads follows it. */
export const READBACK_MARK = '# da-readback v1 server=';

/** Files never read back: they may hold secrets (the stack's .env, keys, certificates' private parts). */
const SKIPPED = '.env|*.env|*.key|*.pem|*.p12|*.pfx|id_*|*secret*|*password*|*.kdbx|*.htpasswd';
/** The largest file read back, in bytes, and the most files. */
const MAX_FILE_BYTES = 65_536;
const MAX_FILES = 12;

/**
 * The part of a remote script that finds how this user reaches Docker (`D`: `docker`, `sudo -n docker`, or
 * empty) and prints the `facts` section: system, kernel, Docker and Compose versions, CPUs, memory and the
 * root disk (parseReadback.ts reads it). The inspection before planning prints the same section.
 */
export const FACTS_SCRIPT = `if docker info >/dev/null 2>&1; then D=docker; elif sudo -n docker info >/dev/null 2>&1; then D="sudo -n docker"; else D=; fi
say facts
if [ -r /etc/os-release ]; then . /etc/os-release; echo "os: \${PRETTY_NAME:-$(uname -sr)}"; else echo "os: $(uname -sr)"; fi
echo "kernel: $(uname -r)"
if [ -n "$D" ]; then echo "docker: $($D version --format '{{.Server.Version}}' 2>/dev/null)"; fi
if [ -n "$D" ] && $D compose version >/dev/null 2>&1; then echo "compose: $($D compose version --short 2>/dev/null) (docker compose)"
elif command -v docker-compose >/dev/null 2>&1; then echo "compose: $(docker-compose version --short 2>/dev/null) (docker-compose)"; fi
echo "cpus: $(nproc)"
awk '/^MemTotal:/ {print "memory_kb: " $2}' /proc/meminfo
df -PB1 / | awk 'NR == 2 {print "disk_total_bytes: " $2; print "disk_free_bytes: " $4}'`;

const REMOTE = `PATH="$PATH:/usr/sbin:/sbin"
say() { printf '== da-readback %s ==\\n' "$*"; }
readback() {
${FACTS_SCRIPT}
say sshd
sshd=$(command -v sshd || echo /usr/sbin/sshd)
{ sudo -n "$sshd" -T 2>/dev/null || "$sshd" -T 2>/dev/null; } | grep -Ei '^(port|passwordauthentication|permitrootlogin|pubkeyauthentication|kbdinteractiveauthentication|permitemptypasswords|maxauthtries|allowusers|x11forwarding) ' || echo "unreadable: sshd -T needs root"
say firewall
if command -v ufw >/dev/null 2>&1; then echo "ufw: $(sudo -n ufw status 2>/dev/null | sed -n 's/^Status: //p' | head -n 1)"; fi
if command -v firewall-cmd >/dev/null 2>&1; then echo "firewalld: $(sudo -n firewall-cmd --state 2>/dev/null || echo 'not running')"; fi
if command -v nft >/dev/null 2>&1; then echo "nftables input policy: $(sudo -n nft list chain inet filter input 2>/dev/null | grep -o 'policy [a-z]*' | head -n 1 | cut -d' ' -f2)"; fi
if command -v iptables >/dev/null 2>&1; then echo "iptables input policy: $(sudo -n iptables -S INPUT 2>/dev/null | awk '$1 == "-P" {print $3}')"; fi
say listening
sudo -n ss -Hltunp 2>/dev/null || ss -Hltun
say tls
cert() { printf 'certificate %s | %s\\n' "$1" "$(openssl x509 -noout -subject -issuer -enddate 2>/dev/null | paste -sd'|' -)"; }
for f in $(sudo -n sh -c 'ls -d /etc/letsencrypt/live/*/cert.pem /var/lib/docker/volumes/*/_data/caddy/certificates/*/*/*.crt /var/lib/docker/volumes/*/_data/certs/*.crt 2>/dev/null' 2>/dev/null); do sudo -n cat -- "$f" | cert "$f"; done
if command -v openssl >/dev/null 2>&1 && ss -Hltn '( sport = :443 )' 2>/dev/null | grep -q .; then echo | timeout 10 openssl s_client -connect 127.0.0.1:443 2>/dev/null | cert 'served on port 443'; fi
say compose
declare -A seen; files=0
show() {
  local project=$1 f=$2 n content
  [ -z "\${seen[$f]:-}" ] || return 0; seen[$f]=1
  case "\${f##*/}" in ${SKIPPED}) echo "skipped $f: it may hold secrets"; return 0 ;; esac
  [ -f "$f" ] || return 0
  [ "$files" -lt ${MAX_FILES} ] || { echo "skipped $f: more than ${MAX_FILES} files"; return 0; }
  [ "$(stat -c %s -- "$f")" -le ${MAX_FILE_BYTES} ] || { echo "skipped $f: larger than ${MAX_FILE_BYTES} bytes"; return 0; }
  content=$(cat -- "$f" 2>/dev/null || sudo -n cat -- "$f") || { echo "skipped $f: unreadable"; return 0; }
  [ ! -s "$f" ] || grep -qI . "$f" 2>/dev/null || sudo -n grep -qI . "$f" || { echo "skipped $f: not text"; return 0; }
  n=$(printf '%s\\n' "$content" | wc -l); files=$((files + 1))
  say "file $project $n $f"; printf '%s\\n' "$content"
}
[ -n "$D" ] && $D ps -a --filter label=com.docker.compose.project --format '{{.Label "com.docker.compose.project"}}|{{.Label "com.docker.compose.project.working_dir"}}|{{.Label "com.docker.compose.project.config_files"}}' | sort -u | while IFS='|' read -r project dir configs; do
  echo "project $project | $dir | $configs"
  IFS=, read -ra cfg <<<"$configs"
  for c in "\${cfg[@]}"; do case "$c" in /*) show "$project" "$c" ;; *) show "$project" "$dir/$c" ;; esac; done
  for m in $($D ps -aq --filter "label=com.docker.compose.project=$project" | xargs -r $D inspect -f '{{range .Mounts}}{{if eq .Type "bind"}}{{.Source}}{{"\\n"}}{{end}}{{end}}' | sort -u); do
    case "$m" in "$dir"/*) if [ -d "$m" ]; then for f in $(find "$m" -maxdepth 2 -type f 2>/dev/null | sort); do show "$project" "$f"; done; else show "$project" "$m"; fi ;; esac
  done
done
}
out=$(readback 2>&1)
printf '%s\\n' "$out"
# The same text again as the record the documentation reads: the step's output blanks every 8-character run
# of a secret, which would blank words like "postgres" in the files; base64 keeps them whole.
say record
printf '%s\\n' "$out" | base64 -w 76
say end`;

/** The workspace command that reads server `server` (a `Host` of the steps' SSH configuration). */
export function readbackCommand(server: string): string {
  const doc = hereScript('READBACK', REMOTE);
  return [
    `${READBACK_MARK}${server}: reads the server's facts and the files as deployed; it changes nothing there.`,
    `ssh -F ${SSH_CONFIG_FILE} ${server} 'bash -s' <<'${doc.tag}'`,
    ...doc.lines,
  ].join('\n');
}

/**
 * The server a command reads when it is the read-back command exactly (a changed one is not trusted).
 * `redact` is how the command was stored (a step's command is blanked of the project's secrets).
 */
export function readbackServer(command: string | null | undefined, redact: (text: string) => string = (t) => t): string | undefined {
  if (!command?.startsWith(READBACK_MARK)) return undefined;
  const server = command.slice(READBACK_MARK.length).split(':')[0]!;
  return command === redact(readbackCommand(server)) ? server : undefined;
}
