import type { Stack } from './composer';
import { connectCommands, PIN_HOST_KEY, SSH } from './remoteShell';
import type { PlanStep } from './plannerTypes';
import { accessSummary, sshPorts, sshSources, webIsPublic, webSources } from './accessRules';
import { createVolumeCommands } from './dataVolume';
import { providerOf } from './knowledge';
import { renderTemplate, type Scope } from '../catalogue/template';
import type { ProvisionCommand } from '../catalogue/providerSchema';

/**
 * The first steps of a plan: reaching the server. The person's own server needs its key and its host
 * key pinned; a server created at a provider is found by name before anything is created (re-executing
 * a step creates nothing twice), and ends as the same kind of SSH target (`ssh-keys/config`).
 */

const DEPLOY_KEY = 'ssh-keys/deploy_key';
const KEYGEN = `umask 077 && mkdir -p ssh-keys && (test -f ${DEPLOY_KEY} || ssh-keygen -t ed25519 -N "" -C deploy -f ${DEPLOY_KEY})`;

/**
 * The sandbox's own public address: the cloud firewall lets it in next to ADMIN_CIDR, so the plan's own
 * later SSH steps are never locked out. No address, no firewall: the step stops instead of guessing.
 */
const SANDBOX_CIDR = 'SANDBOX_IP=$(curl -fsS --max-time 15 https://checkip.amazonaws.com | tr -d "[:space:]"); [ -n "$SANDBOX_IP" ] || { echo "cannot tell this sandbox\'s public address, so the firewall could lock the deploy steps out" >&2; exit 1; }; SANDBOX_CIDR="$SANDBOX_IP/32"; echo "SSH allowed from ADMIN_CIDR and this sandbox ($SANDBOX_CIDR)"';

/** Waits until the new server answers on SSH (pinning its host key), without ending the step early. */
const WAIT_SSH = [
  'for i in $(seq 1 30); do',
  `  if ${SSH} -o StrictHostKeyChecking=accept-new true 2>/dev/null; then break; fi`,
  '  if [ "$i" = 30 ]; then echo "the server does not answer on SSH after 5 minutes" >&2; exit 1; fi',
  '  sleep 10',
  'done',
].join('\n');

/** After creation: the SSH target, the pinned host key, and the person's own key for their own logins. */
const reachServer = (user: string, hostExpr: string): string[] => [
  ...connectCommands({ user, host: hostExpr, port: 22 }, DEPLOY_KEY),
  WAIT_SSH,
  PIN_HOST_KEY,
  `printf '%s\\n' "$SSH_PUBLIC_KEY" | ${SSH} 'umask 077; mkdir -p ~/.ssh; k=$(cat); grep -qxF "$k" ~/.ssh/authorized_keys 2>/dev/null || printf "%s\\n" "$k" >> ~/.ssh/authorized_keys'`,
];

/** A source for the shell: a variable in double quotes, a literal CIDR as it is. */
const quote = (src: string): string => (src.startsWith('$') ? `"${src}"` : src);

const webPortsOf = (stack: Stack): string[] => [...new Set(stack.published.filter((p) => !p.port.startsWith('127.0.0.1')).map((p) => p.port.split(':')[0]!))];

/** What the provider file's templates read (PROVISION_NAMES): the server, its firewall's ports and sources, the person's own server. */
function provisionScope(stack: Stack, name: string): Scope {
  const m = stack.machine;
  const webPorts = webPortsOf(stack);
  // SSH from the person's sources and from this sandbox, so the plan's own later steps are never locked out.
  const sshFrom = [...sshSources(stack), '$SANDBOX_CIDR'].map((source) => ({ source, quoted: quote(source) }));
  const webFrom = webSources(stack).map((source) => ({ source }));
  const target = stack.facts.sshTarget;
  return {
    name,
    region: m.region,
    instanceType: m.instanceType,
    diskGb: m.diskGb,
    volumeGb: m.volumeGb ?? 0,
    deployKey: DEPLOY_KEY,
    access: accessSummary(stack, webPorts),
    costs: 'Creates resources that cost money and opens firewall ports.',
    ...(target ? { target: { user: target.user, host: target.host, port: target.port } } : {}),
    sshPorts: sshPorts(stack).map((port) => ({ port })),
    sshSources: sshFrom,
    sshRules: sshPorts(stack).flatMap((port) => sshFrom.map((s) => ({ port, ...s }))),
    webPorts: webPorts.map((port) => ({ port })),
    webSources: webFrom,
    webRules: webPorts.flatMap((port) => webFrom.map((s) => ({ port, ...s }))),
    webPublic: webIsPublic(stack),
    hasWeb: webPorts.length > 0,
  };
}

/** The building blocks every provider's steps share (a provider file's `use`). */
function sharedCommands(use: string, stack: Stack, name: string, user: string | undefined): string[] {
  switch (use) {
    case 'keygen':
      return [KEYGEN];
    case 'sandboxCidr':
      return [SANDBOX_CIDR];
    case 'reachServer':
      return reachServer(user ?? 'root', '$IP');
    case 'createVolume':
      return createVolumeCommands(stack, name);
    case 'connect':
      return connectCommands(stack.facts.sshTarget ?? { user: '$SERVER_USER', host: '$SERVER_HOST', port: 22 }, DEPLOY_KEY);
    case 'pinHostKey':
      return [PIN_HOST_KEY];
    default:
      throw new Error(`no shared commands named ${use}`);
  }
}

function commandsOf(entry: ProvisionCommand, scope: Scope, stack: Stack, name: string, user: string | undefined): string[] {
  if (typeof entry === 'string') return [renderTemplate(entry, scope)];
  if ('use' in entry) return sharedCommands(entry.use, stack, name, user);
  const items = scope[entry.each] as Scope[];
  return items.map((item) => renderTemplate(entry.command, { ...scope, ...item }));
}

/**
 * The steps that create (or reach) the server, from its provider's file: each command template filled
 * from the stack, one per item where the file says `each`; a template that renders empty (a section for
 * something the stack does not have) is left out.
 */
export function provisionSteps(stack: Stack): PlanStep[] {
  const name = `da-${stack.name}`;
  const provider = providerOf(stack.machine.provider);
  const scope = provisionScope(stack, name);
  return provider.provision.steps.map((step) => ({
    title: step.title,
    description: renderTemplate(step.description, scope),
    commands: step.commands.flatMap((c) => commandsOf(c, scope, stack, name, provider.provision.user)).filter((c) => c.trim() !== ''),
  }));
}

export { webPortsOf };
