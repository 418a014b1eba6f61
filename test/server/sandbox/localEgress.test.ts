import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { SandboxDriver, SandboxRef } from '../../../src/server/sandbox/driver';
import { createLocalDriver } from '../../../src/server/sandbox/local/localDriver';
import { slirpAvailable } from '../../../src/server/sandbox/local/userNetwork';
import { engineAvailable, IMAGE } from './dockerEngine';

const limits = { network: true, memoryMb: 8192, maxProcesses: 256, cpuSeconds: 600 };
const describeWithSlirp = slirpAvailable() || process.env.CI ? describe : describe.skip;

/** Every IPv4 address of this host that is not loopback: the docker bridge's gateway among them. */
const hostV4 = (): string[] =>
  Object.values(os.networkInterfaces())
    .flat()
    .filter((a) => a && a.family === 'IPv4' && !a.internal)
    .map((a) => a!.address);

/** One line from host:port, or `blocked(host): <why>`; bash's /dev/tcp, as a step would connect. */
const probe = (host: string, port: number): string =>
  `timeout 5 bash -c 'exec 3<>/dev/tcp/${host}/${port} && head -n1 <&3' 2>/tmp/why || echo "blocked(${host}): $(tail -c 200 /tmp/why)"`;

describeWithSlirp('local sandbox egress (bubblewrap + slirp4netns, for real)', () => {
  let dataDir: string;
  let driver: SandboxDriver;
  const one: SandboxRef = { projectId: 1, username: 'user_9_1' };
  /** The product listening on every address (HOST=0.0.0.0), as a host service would. */
  let product: net.Server;
  let productPort: number;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-egress-'));
    driver = createLocalDriver({ root: path.join(dataDir, 'sandboxes'), limits, uidBase: 200_000, execTimeoutMs: 30_000 });
    await driver.initialise(one);
    product = net.createServer((socket) => socket.end('hello-from-host\n'));
    await new Promise<void>((resolve) => product.listen(0, '0.0.0.0', resolve));
    productPort = (product.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    product.close();
    await driver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses every one of the host's own addresses, the docker bridge's gateway included (the product on 0.0.0.0)", async () => {
    const addresses = hostV4();
    expect(addresses.length).toBeGreaterThan(0);
    const result = await driver.exec(one, addresses.map((a) => probe(a, productPort)).join('; '));
    expect(result.output).not.toContain('hello-from-host');
    for (const address of addresses) expect(result.output).toMatch(new RegExp(`blocked\\(${address.replace(/\./g, '\\.')}\\): .*refused`));
  });

  it('refuses link-local addresses (169.254.169.254, the cloud metadata service) at once', async () => {
    const result = await driver.exec(one, `${probe('169.254.169.254', 80)}; ${probe('169.254.0.1', 443)}`);
    expect(result.output).toMatch(/blocked\(169\.254\.169\.254\): .*refused/);
    expect(result.output).toMatch(/blocked\(169\.254\.0\.1\): .*refused/);
  });

  it('cannot take the rules away: no capability, no nested user namespace', async () => {
    const [address] = hostV4();
    const result = await driver.exec(one, `iptables -F OUTPUT; echo "flush=$?"; unshare -Urn true; echo "unshare=$?"; ${probe(address!, productPort)}`);
    expect(result.output).not.toContain('flush=0');
    expect(result.output).not.toContain('unshare=0');
    expect(result.output).not.toContain('hello-from-host');
    expect(result.output).toMatch(/refused/);
  });

  (engineAvailable ? describe : describe.skip)('a machine on a private network (a container on the docker bridge)', () => {
    const name = `da-egress-lan-${randomBytes(4).toString('hex')}`;
    let lan = '';
    const docker = (...args: string[]): string => execFileSync('docker', args, { encoding: 'utf8' }).trim();

    beforeAll(() => {
      const serve = 'import socket\ns=socket.socket();s.bind(("0.0.0.0",7000));s.listen()\nwhile True:\n c,_=s.accept();c.sendall(b"hello-from-lan\\n");c.close()';
      docker('run', '-d', '--rm', '--name', name, IMAGE, 'python3', '-c', serve);
      lan = docker('inspect', '-f', '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}', name);
    });
    afterAll(() => {
      execFileSync('docker', ['rm', '-f', name], { stdio: 'ignore' });
    });

    it('stays reachable: people deploy to servers on their own networks', async () => {
      expect(lan).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
      // The container's server may take a moment to listen: the step tries for a while, as a deploy would.
      const result = await driver.exec(one, `for i in $(seq 50); do out=$(${probe(lan, 7000)}); case "$out" in hello*) break;; esac; sleep 0.2; done; echo "$out"`);
      expect(result.output).toContain('hello-from-lan');
    });

    it('is refused once SANDBOX_DENY_CIDRS lists it', async () => {
      const denying = createLocalDriver({
        root: path.join(dataDir, 'sandboxes'),
        limits,
        uidBase: 200_000,
        execTimeoutMs: 30_000,
        denyCidrs: ['198.51.100.0/24', `${lan}/32`],
      });
      const result = await denying.exec(one, probe(lan, 7000));
      expect(result.output).not.toContain('hello-from-lan');
      expect(result.output).toMatch(/refused/);
      await denying.close();
    });
  });
});
