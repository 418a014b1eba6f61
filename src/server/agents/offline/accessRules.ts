import type { Stack } from './composer';
import type { PlanStep } from './plannerTypes';
import { remote, SERVER_ADDRESS, SSH, SSH_CONFIG } from './remoteShell';

/**
 * Who may reach the server, as the person said it: SSH from ADMIN_CIDR (on a server the plan creates)
 * and the allowlist; the published ports from the allowlist when it covers every port, else from
 * anywhere; and SSH on the port the person moved it to.
 */

/**
 * SSH sources besides this sandbox: ADMIN_CIDR (a shell expression; a User Secret only for a server the
 * plan creates) and the person's allowlist. None: SSH stays open as the person's own server has it.
 */
export const sshSources = (stack: Stack): string[] => [...(stack.machine.existing ? [] : ['$ADMIN_CIDR']), ...stack.allowlist];

/** IPv4 sources of the published ports: the allowlist when it covers every inbound port, else anyone. */
export const webSources = (stack: Stack): string[] => (stack.allowScope === 'all' && stack.allowlist.length ? stack.allowlist : ['0.0.0.0/0']);

/** The published ports are open to anyone (so IPv6 too). */
export const webIsPublic = (stack: Stack): boolean => webSources(stack).includes('0.0.0.0/0');

/** The port the plan reaches SSH on first: the target's on the person's own server, 22 on a new one. */
export const firstSshPort = (stack: Stack): number => stack.facts.sshTarget?.port ?? 22;

/** The port SSH listens on once the plan is done: the one the person moved it to, else the first one. */
export const finalSshPort = (stack: Stack): number => stack.facts.sshPort ?? firstSshPort(stack);

/** SSH moves to another port than the one the plan first reaches. */
export const movesSsh = (stack: Stack): boolean => finalSshPort(stack) !== firstSshPort(stack);

/** SSH ports a firewall opens: the first one and, while SSH moves, the new one. */
export const sshPorts = (stack: Stack): number[] => [...new Set([firstSshPort(stack), finalSshPort(stack)])];

/**
 * Remote: ufw rules quoted for the shell, `ufw allow from SRC to any port P proto tcp` for each port
 * and source; `$SANDBOX_IP` and `$ADMIN_CIDR` stay shell variables.
 */
export const ufwAllow = (ports: Array<number | string>, sources: string[]): string[] =>
  ports.flatMap((p) => sources.map((src) => `sudo ufw allow from ${src.startsWith('$') ? `"${src}"` : src} to any port ${p} proto tcp`));

/** Remote: makes sshd's port settings take effect, with Ubuntu's socket activation (24.04) or a plain service. */
const RELOAD_SSHD = [
  'sudo sshd -t',
  'if systemctl is-active --quiet ssh.socket 2>/dev/null; then sudo systemctl daemon-reload && sudo systemctl restart ssh.socket; else sudo systemctl restart ssh 2>/dev/null || sudo systemctl restart sshd; fi',
].join('\n');

const portsDropIn = (ports: number[]): string =>
  `printf '${ports.map((p) => `Port ${p}`).join('\\n')}\\n' | sudo tee /etc/ssh/sshd_config.d/10-ssh-port.conf`;

/**
 * The step that moves SSH: sshd listens on the old and the new port, the workspace's SSH config and
 * pinned host key follow to the new port and a login proves it; on a server the plan created the old
 * port is then closed (sshd and ufw), on the person's own server it stays as they have it.
 */
export function moveSshStep(stack: Stack): PlanStep {
  const from = firstSshPort(stack);
  const to = finalSshPort(stack);
  const own = stack.machine.existing;
  const pinned = from === 22 ? '"$IP"' : `"[$IP]:${from}"`;
  const commands = [
    remote([portsDropIn([from, to]), RELOAD_SSHD, `sudo ss -Htln | grep -E ':(${from}|${to})\\b'`].join('\n')),
    SERVER_ADDRESS,
    // The host key pinned for the old port is the same key on the new one: pin it for [IP]:new too.
    `ssh-keygen -F ${pinned} -f ssh-keys/known_hosts | grep -v '^#' | awk -v h="[$IP]:${to}" '{$1=h; print}' >> ssh-keys/known_hosts`,
    `sed -i -E 's/^  Port [0-9]+$/  Port ${to}/' ${SSH_CONFIG}`,
    `${SSH} 'echo "SSH answers on port ${to}"'`,
  ];
  if (!own) {
    const sources = ['$SANDBOX_IP', ...sshSources(stack)];
    commands.push(
      remote(
        [
          'SANDBOX_IP=${SSH_CLIENT%% *}',
          portsDropIn([to]),
          RELOAD_SSHD,
          'if sudo ufw status | grep -q "^Status: active"; then',
          ...ufwAllow([from], sources).map((rule) => `  ${rule.replace('ufw allow', 'ufw delete allow')}`),
          '  sudo ufw status verbose',
          'fi',
        ].join('\n'),
        ['ADMIN_CIDR'],
      ),
      `${SSH} 'echo "SSH answers on port ${to}; port ${from} is closed"'`,
    );
  }
  return {
    title: `Move SSH to port ${to}`,
    description: own
      ? `sshd also listens on ${to}, the workspace reaches the server there from now on (same pinned host key); port ${from} stays open as you have it: this plan closes nothing on your own server.`
      : `sshd listens on ${to} and ${from}, the workspace moves to ${to} (same pinned host key) and logs in there, then sshd stops listening on ${from} and ufw closes it. Can lock out anyone who still uses port ${from}.`,
    commands,
  };
}

/**
 * Remote, for the person's own server: published ports bypass ufw (Docker's own iptables rules), so an
 * allowlist over every port is enforced in the DOCKER-USER chain on the external interface: the
 * allowlisted sources return to Docker's rules, everyone else is dropped. Rules are added once.
 */
export function dockerUserAllowlist(ports: string[], allowlist: string[]): string[] {
  if (!ports.length || !allowlist.length) return [];
  const rule = (p: string, match: string, target: string): string => `-i "$EXT" ${match}-p tcp -m conntrack --ctorigdstport "${p}" --ctdir ORIGINAL -j ${target}`;
  return [
    'EXT=$(ip route show default | awk \'{print $5; exit}\'); [ -n "$EXT" ] || { echo "no default route: cannot tell the external interface" >&2; exit 1; }',
    `for p in ${ports.join(' ')}; do`,
    `  sudo iptables -C DOCKER-USER ${rule('$p', '', 'DROP')} 2>/dev/null || sudo iptables -I DOCKER-USER ${rule('$p', '', 'DROP')}`,
    ...allowlist.map((src) => `  sudo iptables -C DOCKER-USER ${rule('$p', `-s ${src} `, 'RETURN')} 2>/dev/null || sudo iptables -I DOCKER-USER ${rule('$p', `-s ${src} `, 'RETURN')}`),
    'done',
    'sudo iptables -S DOCKER-USER',
    'if command -v netfilter-persistent >/dev/null 2>&1; then sudo netfilter-persistent save; else echo "note: iptables-persistent is not installed, so these DOCKER-USER rules last until the next reboot"; fi',
  ];
}

/**
 * The inbound rules in words, as the steps make them (documents, step descriptions and the diagram say
 * the same): `webPorts` are the ports published to the outside.
 */
export function accessSummary(stack: Stack, webPorts: string[]): string {
  const web = webPorts.length ? `${webPorts.map((p) => `${p}/tcp`).join(', ')} from ${webIsPublic(stack) ? 'anywhere' : webSources(stack).join(', ')}` : 'no other port';
  const to = finalSshPort(stack);
  if (stack.machine.existing) {
    const ssh = movesSsh(stack) ? `SSH on ${firstSshPort(stack)} as the server has it, and on ${to} too` : `SSH on ${to} as the server has it`;
    return `${ssh}; ${web}, opened where a host firewall is active${webIsPublic(stack) ? '' : ' and in Docker\'s DOCKER-USER chain'}; the server's other services left as they are`;
  }
  const sources = [...sshSources(stack).map((x) => x.replace(/^\$/, '')), 'the deploy sandbox'].join(', ');
  return `SSH on ${to} from ${sources}${movesSsh(stack) ? ` (22 only until SSH moves to ${to})` : ''}; ${web}; everything else closed`;
}
