import { spawn } from 'node:child_process';
import os from 'node:os';
import { egressScript } from '../docker/egress';

/**
 * What a local sandbox may not reach, the same rules as the docker driver's: this host's own addresses
 * (every interface but loopback, so the docker bridge's 172.17.0.1, a compose network's gateway and the
 * product itself when it listens on 0.0.0.0), link-local ranges (cloud metadata at 169.254.169.254) and
 * the operator's SANDBOX_DENY_CIDRS. Private LANs stay reachable: a container at 172.17.0.5 or a server
 * at 192.168.1.20 is another machine. slirp4netns makes the sandbox's connections from this host's
 * sockets, so the rules must sit in the sandbox's own network namespace, where its packets start.
 */

/** This host's addresses now, loopback and IPv6 link-local left out (the rules cover fe80::/10 whole). */
export function hostAddresses(): { v4: string[]; v6: string[] } {
  const v4 = new Set<string>();
  const v6 = new Set<string>();
  for (const address of Object.values(os.networkInterfaces()).flat()) {
    if (!address || address.internal) continue;
    if (address.family === 'IPv4') v4.add(address.address);
    else if (!/^fe[89ab]/i.test(address.address)) v6.add(address.address.replace(/%.*$/, ''));
  }
  return { v4: [...v4], v6: [...v6] };
}

/**
 * Writes the rules into the network namespace held open at fd 5 (and its user namespace at fd 6, which
 * an unprivileged server needs in order to administer it), before the sandboxed program is released.
 * The program itself runs later without capabilities and in a nested user namespace, so it cannot
 * remove them. Addresses are read at every start: docker adds a bridge for each compose network.
 */
export function applyEgressRules(namespaces: { net: number; user: number }, extraDeny: string[]): Promise<void> {
  const asRoot = process.getuid?.() === 0;
  const join = asRoot ? ['--net=/proc/self/fd/5'] : ['--user=/proc/self/fd/6', '--net=/proc/self/fd/5', '--preserve-credentials'];
  const script = egressScript(hostAddresses(), extraDeny);
  return new Promise((resolve, reject) => {
    const child = spawn('nsenter', [...join, 'sh', '-c', script], {
      stdio: ['ignore', 'ignore', 'pipe', 'ignore', 'ignore', namespaces.net, namespaces.user],
    });
    let stderr = '';
    child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-2_000)));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(stderr.trim().split('\n').join(' / ') || `exit status ${code}`)),
    );
  });
}
