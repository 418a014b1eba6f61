import fc from 'fast-check';
import { compareToRelease, DISK_MIN_FREE_BYTES, type LiveState, type ReleaseBaseline } from '../../../src/server/services/releases/drift';
import { parseInspect } from '../../../src/server/services/releases/serverChecks';
import { changedServices, rollbackScript } from '../../../src/server/services/releases/releaseScripts';
import { firewallLines, parseDf, serverChecks } from '../../../src/server/services/releases/serverChecks';

const release: ReleaseBaseline = {
  containers: [{ service: 'web', image: 'nginx:1', digest: 'sha256:aaaa', ports: ['0.0.0.0:80->80/tcp'] }],
  baseline: { firewall: ['-A INPUT -p tcp --dport 22 -j ACCEPT'], cron: ['0 3 * * * backup'] },
};
const live = (over: Partial<LiveState> = {}): LiveState => ({
  containers: [{ ...release.containers[0]!, state: 'running' }],
  firewall: [...release.baseline.firewall],
  cron: [...release.baseline.cron],
  disk: { size: 100 * DISK_MIN_FREE_BYTES, available: 50 * DISK_MIN_FREE_BYTES },
  ...over,
});

describe('drift against the last release', () => {
  it('the release itself shows no drift, and every kind of change is named', () => {
    expect(compareToRelease(release, live())).toEqual([]);
    const d = compareToRelease(release, live({
      containers: [{ service: 'web', image: 'nginx:2', digest: 'sha256:bbbb', ports: ['0.0.0.0:8080->80/tcp'], state: 'running' }, { service: 'x', image: 'x', digest: 'sha256:c', ports: [], state: 'running' }],
      firewall: [],
      cron: ['0 3 * * * backup', '* * * * * miner'],
      disk: { size: 100 * DISK_MIN_FREE_BYTES, available: DISK_MIN_FREE_BYTES / 2 },
    }));
    expect([...new Set(d.map((x) => x.kind))].sort()).toEqual(['containers', 'cron', 'disk', 'firewall', 'images', 'ports']);
    expect(d.find((x) => x.kind === 'disk')!.detail).toBe('512 MiB free of 100.0 GiB (0%) where the stack lives: below 1.0 GiB or 10% free');
    // A small disk is said in MiB, not as 0.0 GiB.
    expect(compareToRelease(release, live({ disk: { size: 16 * 1024 ** 2, available: 1024 ** 2 } })).map((x) => x.detail)).toEqual(['1 MiB free of 16 MiB (6%) where the stack lives: below 1.0 GiB or 10% free']);
  });

  it('a task that had run once and exited when the release was recorded is not drift; a service that stopped is', () => {
    const withTask: ReleaseBaseline = { ...release, containers: [...release.containers, { service: 'migrate', image: 'app:1', digest: 'sha256:m', ports: [], state: 'exited' }] };
    const task = { service: 'migrate', image: 'app:1', digest: 'sha256:m', ports: [], state: 'exited' };
    expect(compareToRelease(withTask, live({ containers: [{ ...release.containers[0]!, state: 'running' }, task] }))).toEqual([]);
    expect(compareToRelease(withTask, live({ containers: [{ ...release.containers[0]!, state: 'exited' }, task] }))).toEqual([{ kind: 'containers', detail: 'web: exited, the release had it running' }]);
  });

  it('any extra cron line or firewall rule is reported, exactly once', () => {
    fc.assert(fc.property(fc.uniqueArray(fc.stringMatching(/^[a-z0-9 *]{1,20}$/), { maxLength: 5 }), (extra) => {
      const added = extra.filter((l) => !release.baseline.cron.includes(l));
      const d = compareToRelease(release, live({ cron: [...release.baseline.cron, ...added] }));
      expect(d.map((x) => x.detail)).toEqual(added.map((l) => `cron entry added on the server: ${l}`));
    }));
  });

  it("Docker's own chains are not the person's firewall", () => {
    expect(firewallLines('-N DOCKER\n-A DOCKER -d 10.0.0.2/32 ! -i br-ab12 -o br-ab12 -p tcp -j ACCEPT\n-A FORWARD -o docker0 -j DOCKER\n-A DOCKER-USER -s 1.2.3.4 -j DROP\n-A INPUT -p tcp --dport 22 -j ACCEPT'))
      .toEqual(['-A DOCKER-USER -s 1.2.3.4 -j DROP', '-A INPUT -p tcp --dport 22 -j ACCEPT']);
    expect(parseDf('Filesystem 1-blocks Used Available Capacity Mounted on\n/dev/sda1 1000 400 600 40% /\n')).toEqual({ size: 1000, available: 600 });
  });
});

describe('release scripts', () => {
  it('gates only the services the change touches', () => {
    const one = 'services:\n  web:\n    image: nginx:1\n  db:\n    image: pg:16\n';
    const two = 'services:\n  web:\n    image: nginx:2\n  db:\n    image: pg:16\n  cache:\n    image: redis:7\n';
    expect(changedServices(one, two)).toEqual(['cache', 'web']);
    expect(changedServices(two, two)).toEqual([]);
  });

  it('refuses names that could leave the stack directory or the shell word', () => {
    expect(() => serverChecks('shop; rm -rf /', '/opt/stack')).toThrow('not a compose project name');
    expect(() => serverChecks('shop', '/opt/../etc')).toThrow('not a stack directory');
    expect(() => rollbackScript({ project: 'shop', directory: '/opt/stack', target: { number: 1, files: { '../x': '' } }, gateSeconds: 5 })).toThrow('not a stack file name');
    // File text travels base64-encoded: a quote or a here-document end cannot break out.
    expect(rollbackScript({ project: 'shop', directory: '/opt/stack', target: { number: 1, files: { 'a.conf': "'; rm -rf / #\nEOF\n" } }, gateSeconds: 5 })).not.toContain('rm -rf /');
  });
});

describe('containers as docker inspect describes them', () => {
  it('a stopped container is exited, not the health status it kept', () => {
    const inspect = (status: string, health?: string) => ({ Image: 'sha256:a', Config: { Image: 'redis:7', Labels: { 'com.docker.compose.service': 'redis' } }, State: { Status: status, ...(health ? { Health: { Status: health } } : {}) }, NetworkSettings: { Ports: {} } });
    expect(parseInspect(JSON.stringify([inspect('exited', 'unhealthy')]))[0]!.state).toBe('exited');
    expect(parseInspect(JSON.stringify([inspect('running', 'healthy')]))[0]!.state).toBe('healthy');
    expect(parseInspect(JSON.stringify([inspect('running')]))[0]!.state).toBe('running');
  });
});
