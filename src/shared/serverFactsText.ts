import type { ServerFacts } from './stackModel';

/**
 * What an inspection of the target server found, in one paragraph the person reads (the route's answer and
 * the architecture stage's "Your server" panel say it the same way). Only what was read is said.
 */
export function describeServerFacts(f: ServerFacts): string {
  const ports = f.portsInUse.map((p) => `${p.port}/${p.protocol}${p.holder ? ` (${p.holder})` : ''}`);
  return [
    [f.os, f.dockerVersion && `Docker ${f.dockerVersion}`, f.composeVersion && `Compose ${f.composeVersion}`].filter(Boolean).join(', '),
    [f.cpus !== undefined && `${f.cpus} CPUs`, f.memoryGb !== undefined && `${f.memoryGb} GB memory`, f.freeDiskGb !== undefined && `${f.freeDiskGb} GB free disk`].filter(Boolean).join(', '),
    ports.length ? `Ports in use: ${ports.join(', ')}` : 'No ports in use',
    `${f.containers.length} running container${f.containers.length === 1 ? '' : 's'}${f.composeProjects.length ? `, compose projects: ${f.composeProjects.join(', ')}` : ''}`,
    f.hostKey &&
      `SSH host key ${f.hostKey.algorithm} ${f.hostKey.fingerprint}, ${f.hostKey.firstContact ? 'pinned at this first contact' : 'the one pinned earlier'}: the deploy refuses any other`,
  ]
    .filter(Boolean)
    .join('. ')
    .concat('.');
}
