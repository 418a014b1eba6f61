import { egressScript, parseAddresses } from '../../../src/server/sandbox/docker/egress';

describe('docker sandbox egress rules', () => {
  const listed = [
    '1: lo    inet 127.0.0.1/8 scope host lo',
    '1: lo    inet6 ::1/128 scope host',
    '2: eth0    inet 192.168.1.20/24 brd 192.168.1.255 scope global eth0',
    '2: eth0    inet6 2001:db8::20/64 scope global',
    '2: eth0    inet6 fe80::1/64 scope link',
    '3: docker0    inet 172.17.0.1/16 brd 172.17.255.255 scope global docker0',
  ].join('\n');

  it("lists the host's own addresses, loopback and IPv6 link-local left out", () => {
    expect(parseAddresses(listed)).toEqual({ v4: ['192.168.1.20', '172.17.0.1'], v6: ['2001:db8::20'] });
  });

  it('rejects exactly those addresses and link-local ranges: the rest of a private LAN stays reachable', () => {
    const script = egressScript(parseAddresses(listed));
    const targets = [...script.matchAll(/-d (\S+)/g)].map((m) => m[1]);
    expect(targets).toEqual(['169.254.0.0/16', '192.168.1.20/32', '172.17.0.1/32', 'fe80::/10', 'fe80::/10', '2001:db8::20/128']);
    expect(script).not.toMatch(/192\.168\.0\.0|10\.0\.0\.0|172\.16\.0\.0/);
  });

  it('rejects the CIDRs of SANDBOX_DENY_CIDRS too, each with its own family', () => {
    const script = egressScript({ v4: [], v6: [] }, ['10.20.0.0/16', 'fd00::/8']);
    expect(script).toContain('iptables -w -A OUTPUT -d 10.20.0.0/16 -j REJECT');
    expect(script).toContain('ip6tables -w -A OUTPUT -d fd00::/8 -j REJECT');
    expect(script).not.toContain('ip6tables -w -A OUTPUT -d 10.20.0.0/16');
  });
});
