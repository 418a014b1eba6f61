import type { Stack } from './composer';
import type { PlanStep } from './plannerTypes';
import { finalSshPort, moveSshStep, movesSsh, sshPorts, sshSources, ufwAllow } from './accessRules';
import { remote } from './remoteShell';

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
      `for p in $(sudo ss -Htln | awk '$4 !~ /^(127\\.|\\[::1\\])/ {n=split($4,a,":"); print a[n]}' | sort -un); do case "$p" in ${sshPorts(stack).join('|')}) ;; *) sudo ufw allow "$p/tcp" ;; esac; done`,
      // SSH stays open to this sandbox whatever else is limited, so the plan's own next steps get in.
      ...(sshSources(stack).length ? ['SANDBOX_IP=${SSH_CLIENT%% *}', ...ufwAllow(sshPorts(stack), ['$SANDBOX_IP', ...sshSources(stack)])] : sshPorts(stack).map((p) => `sudo ufw allow ${p}/tcp`)),
      'sudo ufw default deny incoming',
      'sudo ufw default allow outgoing',
      'sudo ufw --force enable',
    );
  }
  if (tasks.has('fail2ban')) script.push("printf '[sshd]\\nenabled = true\\nport = %s\\n' " + String(finalSshPort(stack)) + ' | sudo tee /etc/fail2ban/jail.d/sshd.local', 'sudo systemctl enable --now fail2ban', 'sudo systemctl restart fail2ban');
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
        tasks.has('ufw') ? `ufw allows SSH (port ${sshPorts(stack).join(', ')}) from ${sshSources(stack).length ? [...sshSources(stack).map((x) => x.replace(/^\$/, '')), 'this sandbox'].join(', ') : 'anywhere'} and keeps every port something already listens on, then closes the rest` : '',
        tasks.has('fail2ban') ? 'fail2ban bans addresses that fail SSH logins' : '',
        tasks.has('unattended-upgrades') ? 'security updates install themselves daily' : '',
      ].filter(Boolean).join('; ') + '.',
      commands: [remote(script.join('\n'), sshSources(stack).includes('$ADMIN_CIDR') ? ['ADMIN_CIDR'] : [])],
    },
    ...(movesSsh(stack) ? [moveSshStep(stack)] : []),
    { title: 'Verify the host', description: 'Each service reports its state.', commands: [remote(checks.join('\n'))] },
  ];
}

