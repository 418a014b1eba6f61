import type { Stack } from './composer';
import type { PlanStep } from './plannerTypes';
import { remote } from './remoteShell';

/** Who may reach SSH: ADMIN_CIDR, plus the allowlist the person gave. */
const sshSources = (stack: Stack): string[] => ['$ADMIN_CIDR', ...stack.allowlist];

/**
 * A host-only plan: the firewall, fail2ban and automatic security updates, no Docker. Ports something
 * already listens on stay open, so a live server keeps serving what it serves.
 */
export function hostOnlySteps(stack: Stack): PlanStep[] {
  const tasks = stack.facts.hostTasks.size ? stack.facts.hostTasks : new Set(['ufw']);
  const packages = [...tasks].join(' ');
  const script = ['sudo apt-get update -q', `sudo DEBIAN_FRONTEND=noninteractive apt-get install -yq ${packages}`];
  if (tasks.has('ufw')) {
    script.push(
      `for p in $(sudo ss -Htln | awk '$4 !~ /^(127\\.|\\[::1\\])/ {n=split($4,a,":"); print a[n]}' | sort -un); do [ "$p" = ${stack.sshPort} ] || sudo ufw allow "$p/tcp"; done`,
      ...sshSources(stack).map((src) => `sudo ufw allow from "${src}" to any port ${stack.sshPort} proto tcp`),
      'sudo ufw default deny incoming',
      'sudo ufw default allow outgoing',
      'sudo ufw --force enable',
    );
  }
  if (tasks.has('fail2ban')) script.push("printf '[sshd]\\nenabled = true\\nport = %s\\n' " + String(stack.sshPort) + ' | sudo tee /etc/fail2ban/jail.d/sshd.local', 'sudo systemctl enable --now fail2ban', 'sudo systemctl restart fail2ban');
  if (tasks.has('unattended-upgrades')) {
    script.push("printf 'APT::Periodic::Update-Package-Lists \"1\";\\nAPT::Periodic::Unattended-Upgrade \"1\";\\n' | sudo tee /etc/apt/apt.conf.d/20auto-upgrades", 'sudo systemctl enable --now unattended-upgrades');
  }
  const checks: string[] = [];
  if (tasks.has('ufw')) checks.push('sudo ufw status verbose');
  if (tasks.has('fail2ban')) checks.push('sudo fail2ban-client status sshd');
  if (tasks.has('unattended-upgrades')) checks.push('systemctl is-active unattended-upgrades');
  return [
    {
      title: 'Harden the host: ' + [...tasks].join(', '),
      description: 'No Docker and no containers: ' + [
        tasks.has('ufw') ? `ufw allows SSH (port ${stack.sshPort}) from ADMIN_CIDR${stack.allowlist.length ? ` and ${stack.allowlist.join(', ')}` : ''} and keeps every port something already listens on, then closes the rest` : '',
        tasks.has('fail2ban') ? 'fail2ban bans addresses that fail SSH logins' : '',
        tasks.has('unattended-upgrades') ? 'security updates install themselves daily' : '',
      ].filter(Boolean).join('; ') + '.',
      commands: [remote(script.join('\n'), ['ADMIN_CIDR'])],
    },
    { title: 'Verify the host', description: 'Each service reports its state.', commands: [remote(checks.join('\n'))] },
  ];
}

