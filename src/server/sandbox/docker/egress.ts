/**
 * What a sandbox on a network may not reach: the engine host's own addresses (its services listening on
 * 0.0.0.0, every bridge gateway) and link-local addresses (169.254.0.0/16 holds cloud metadata services).
 * Private LAN ranges stay reachable: people deploy to servers on their LAN. Other projects' containers
 * are out of reach already, each project having a network of its own.
 */
export const LINK_LOCAL = { v4: '169.254.0.0/16', v6: 'fe80::/10' };

/** The command listing the host's addresses, run in a container on the host's network. */
export const LIST_ADDRESSES = ['ip', '-o', 'addr', 'show'];

/**
 * The addresses in `ip -o addr show` output, loopback left out (inside a sandbox, loopback is its own).
 *
 * @example
 *   parseAddresses('2: eth0    inet 10.0.0.5/24 brd 10.0.0.255 scope global eth0\n')  // { v4: ['10.0.0.5'], v6: [] }
 */
export function parseAddresses(output: string): { v4: string[]; v6: string[] } {
  const v4 = new Set<string>();
  const v6 = new Set<string>();
  for (const match of output.matchAll(/\binet(6?)\s+([0-9a-fA-F.:]+)\//g)) {
    const [, six, address] = match as unknown as [string, string, string];
    if (six) {
      // Link-local ones are left to the fe80::/10 rule, which spares neighbour discovery.
      if (address !== '::1' && !/^fe[89ab]/i.test(address)) v6.add(address);
    } else if (!address.startsWith('127.')) v4.add(address);
  }
  return { v4: [...v4], v6: [...v6] };
}

/**
 * The shell script that rejects, in the sandbox's network namespace, every packet it sends to `host`
 * addresses or link-local ranges. It runs as root with NET_ADMIN in a helper container joined to that
 * namespace; the sandbox itself has no capability to undo it. IPv6 rules are added only where the
 * namespace has IPv6; there, link-local TCP and UDP are rejected but ICMPv6 (neighbour discovery) is not.
 * `extra` are the operator's SANDBOX_DENY_CIDRS (addresses or CIDRs), rejected as well.
 */
export function egressScript(host: { v4: string[]; v6: string[] }, extra: string[] = []): string {
  const reject = (tool: string, target: string, protocol = ''): string => `${tool} -w -A OUTPUT -d ${target}${protocol} -j REJECT`;
  const extraV6 = extra.filter((c) => c.includes(':'));
  return [
    'set -e',
    reject('iptables', LINK_LOCAL.v4),
    ...host.v4.map((a) => reject('iptables', `${a}/32`)),
    ...extra.filter((c) => !c.includes(':')).map((c) => reject('iptables', c)),
    'if ip6tables -w -L OUTPUT >/dev/null 2>&1; then',
    `  ${reject('ip6tables', LINK_LOCAL.v6, ' -p tcp')}`,
    `  ${reject('ip6tables', LINK_LOCAL.v6, ' -p udp')}`,
    ...host.v6.map((a) => `  ${reject('ip6tables', `${a}/128`)}`),
    ...extraV6.map((c) => `  ${reject('ip6tables', c)}`),
    'fi',
  ].join('\n');
}
