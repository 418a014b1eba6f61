import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { loadConfig, TOOLBOX_IMAGE } from '../../../src/server/config';
import { createSandboxDriver } from '../../../src/server/sandbox';
import { dockerConnection } from '../../../src/server/sandbox/docker/connection';
import { createDockerDriver } from '../../../src/server/sandbox/docker/dockerDriver';
import type { SandboxRef } from '../../../src/server/sandbox/driver';
import Docker from 'dockerode';
import { describeWithEngine, engineDrivers, IMAGE } from './dockerEngine';
import { waitFor } from './ptyHelpers';
import { readZip, streamToBuffer } from './zipHelpers';

const ref: SandboxRef = { projectId: 7, username: 'user_3_7' };
const WORKSPACE = '/home/user_3_7/workspace';

describeWithEngine('docker sandbox driver on a real Docker engine', () => {
  // Containers start in seconds on a quiet machine; a shared CI machine may be far from quiet.
  jest.setTimeout(120_000);
  const engine = engineDrivers();
  afterAll(() => engine.cleanUp());

  it('runs a hardened container as uid 1000 with a passwd entry, the workspace its own, and no way out', async () => {
    const driver = engine.driver({ pidsLimit: 200, memoryMb: 768, cpus: 1.5 });
    expect(await driver.status(ref)).toBe('NotRunning');
    await driver.initialise(ref);
    expect(await driver.status(ref)).toBe('Running');

    const info = await engine.docker.getContainer(`devops-agents-test-${driver.instanceId}-7`).inspect();
    expect(info.Config.User).toBe('1000:1000');
    expect(info.Config.Labels).toMatchObject({ 'devops-agents.instance': driver.instanceId, 'devops-agents.project': '7' });
    expect(info.HostConfig).toMatchObject({
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges:true'],
      ReadonlyRootfs: true,
      PidsLimit: 200,
      Memory: 768 * 1024 * 1024,
      NanoCpus: 1_500_000_000,
      NetworkMode: 'none',
      Privileged: false,
    });
    expect(info.HostConfig.CapAdd ?? []).toEqual([]);
    expect(info.HostConfig.Binds ?? []).toEqual([]);
    expect(info.Mounts.map((m) => m.Destination).sort()).toEqual([WORKSPACE]);
    expect(JSON.stringify(info)).not.toMatch(/docker\.sock/);

    const probe = await driver.exec(
      ref,
      [
        'id -u; id -un; stat -c "%u %a" .',
        'ls -A',
        'test -S /var/run/docker.sock || echo no-socket',
        'touch /usr/x 2>/dev/null || echo read-only-root',
        'ssh-keygen -q -t ed25519 -N "" -f ssh-keys/id_test && ls ~/.ssh/',
        'ip -o link | grep -c -v " lo:" || true',
      ].join('; '),
    );
    expect(probe.exitCode).toBe(0);
    const lines = probe.output.trim().split('\n');
    expect(lines.slice(0, 3)).toEqual(['1000', 'sandbox', '1000 700']);
    expect(probe.output).toMatch(/\.git\n\.gitignore\nansible\nssh-keys\nterraform\n/);
    expect(probe.output).toContain('no-socket');
    expect(probe.output).toContain('read-only-root');
    expect(probe.output).toMatch(/id_test\nid_test\.pub/);
    expect(lines.at(-1)).toBe('0');

    // Idempotent: a second initialise keeps the workspace.
    await driver.initialise(ref);
    expect((await driver.exec(ref, 'ls ssh-keys')).output).toContain('id_test');
  });

  it('streams stdout and stderr apart, with the exit code, the environment and secrets redacted', async () => {
    const driver = engine.driver();
    await driver.initialise(ref);
    const canary = 'canary-S3cr3t-value';
    const chunks: Array<[string, string]> = [];
    const result = await driver.exec(ref, 'echo "out $TOKEN"; echo err >&2; printf "%s" "$TOKEN" | base64; exit 3', {
      env: { TOKEN: canary },
      secrets: [canary],
      onOutput: (c, s) => chunks.push([s, c]),
    });
    expect(result).toMatchObject({ exitCode: 3, timedOut: false, cancelled: false });
    expect(result.output).not.toContain(canary);
    expect(result.output).not.toContain(Buffer.from(canary).toString('base64'));
    expect(result.output).toContain('out [REDACTED]');
    expect(chunks.filter(([s]) => s === 'stderr').map(([, c]) => c).join('')).toBe('err\n');
    expect((await driver.exec(ref, 'echo "$HOME $USER $PWD"')).output).toBe(`/home/user_3_7 user_3_7 ${WORKSPACE}\n`);
  });

  it('kills a command at its timeout even when it has used up the pids limit, and on cancel', async () => {
    const driver = engine.driver({ pidsLimit: 48 });
    await driver.initialise(ref);
    const bomb = await driver.exec(ref, 'bomb() { bomb | bomb & }; bomb; sleep 1000', { timeoutMs: 3_000 });
    expect(bomb).toMatchObject({ exitCode: null, timedOut: true });
    // Every process of the bomb is gone: the sandbox runs commands again, with only its init and sleep left.
    const after = await driver.exec(ref, 'ps -e --no-headers -o comm | grep -v -e "^ps$" -e "^bash$" | sort | uniq -c');
    expect(after.exitCode).toBe(0);
    expect(after.output).not.toMatch(/bash|sleep\s*\n.*sleep/);

    const controller = new AbortController();
    const running = driver.exec(ref, 'echo started; sleep 1000', {
      signal: controller.signal,
      onOutput: (c) => c.includes('started') && controller.abort(),
    });
    expect(await running).toMatchObject({ exitCode: null, timedOut: false, cancelled: true });
    expect((await driver.exec(ref, 'pgrep -c -x sleep')).output.trim()).toBe('1');
  });

  it('commits steps and reads the history; zips the workspace and a folder, refusing one that leads out', async () => {
    const driver = engine.driver();
    await driver.initialise(ref);
    await driver.exec(ref, 'echo "x = 1" > terraform/main.tf; ln -s /etc escape');
    const sha = await driver.commitStep(ref, 2, 'echo "x = 1" > terraform/main.tf');
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    const history = await driver.history(ref);
    expect(history[0]).toMatchObject({ sha, step_number: 2, command: 'echo "x = 1" > terraform/main.tf' });
    expect(history.at(-1)).toMatchObject({ message: 'Workspace created', step_number: null });

    const zip = await readZip(await streamToBuffer(await driver.zipWorkspace(ref)));
    expect(zip.get('terraform/main.tf')!.data.toString()).toBe('x = 1\n');
    const folder = await readZip(await streamToBuffer(await driver.zipFolder(ref, 'terraform')));
    expect([...folder.keys()]).toEqual(['main.tf']);
    await expect(driver.zipFolder(ref, 'escape')).rejects.toMatchObject({ code: 'outside_workspace' });
    await expect(driver.zipFolder(ref, 'missing')).rejects.toMatchObject({ code: 'not_found' });
  });

  it('opens a terminal: input typed before it attaches, resize, a named user, kill', async () => {
    const driver = engine.driver();
    await driver.initialise(ref);
    const shell = driver.shell(ref, { cols: 100, rows: 30 });
    shell.write('stty size; whoami\r');
    expect(await waitFor(shell, /30 100\r\nsandbox\r\n[^]*sandbox@sandbox:~\/workspace\$/)).toBeTruthy();
    // The resize and the input travel apart (the exec's resize call, the attached socket): the shell waits for the size.
    shell.resize(120, 40);
    shell.write('until [ "$(stty size)" = "40 120" ]; do sleep 0.1; done; echo "re""sized"\r');
    expect(await waitFor(shell, /resized/)).toMatch(/resized/);
    const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => shell.onExit(resolve));
    shell.kill();
    expect(await exited).toEqual({ exitCode: 0, signal: 9 });

    const second = driver.shell(ref, { cols: 80, rows: 24 });
    const done = new Promise<{ exitCode: number; signal?: number }>((resolve) => second.onExit(resolve));
    second.write('exit 4\r');
    expect(await done).toEqual({ exitCode: 4 });
  });

  it('keeps the workspace, owned by uid 1000, through two stops and starts; a failed restore leaves nothing running', async () => {
    const driver = engine.driver();
    await driver.initialise(ref);
    await driver.exec(ref, 'echo kept > notes.txt && git add notes.txt && git -c user.name=t -c user.email=t@t commit -qm notes');
    for (const round of [1, 2]) {
      await driver.backup(ref);
      await driver.stop(ref);
      expect(await driver.status(ref)).toBe('NotRunning');
      await expect(driver.exec(ref, 'true')).rejects.toMatchObject({ code: 'not_running' });
      await driver.start(ref);
      const check = await driver.exec(ref, 'cat notes.txt; stat -c %u notes.txt .git ssh-keys .; git log --format=%s | head -1');
      expect(check).toMatchObject({ exitCode: 0, output: `kept\n${round === 2 ? '1\n' : ''}1000\n1000\n1000\n1000\nnotes\n` });
      await driver.exec(ref, `echo ${round} >> notes.txt`);
    }
    await driver.backup(ref);
    await driver.stop(ref);
    const backups = path.join(driver.root, '7', 'backups');
    const good = fs.readdirSync(backups).sort();
    expect(good).toHaveLength(3);

    // A broken newest backup: the start fails, and no Running sandbox with an empty workspace is left.
    fs.writeFileSync(path.join(backups, `backup-${Date.now() + 1000}.tar.gz`), 'not a tar');
    await expect(driver.start(ref)).rejects.toMatchObject({ message: expect.stringMatching(/Restoring the backup of \S+ failed .*kept and nothing was removed/s) });
    expect(await driver.status(ref)).toBe('NotRunning');
    // A retry does the work again (and fails again) rather than answering success.
    await expect(driver.initialise(ref)).rejects.toMatchObject({ code: 'failed' });
    expect(await driver.status(ref)).toBe('NotRunning');
    expect(fs.readdirSync(backups).filter((f) => good.includes(f))).toEqual(good);

    for (const f of fs.readdirSync(backups)) if (!good.includes(f)) fs.rmSync(path.join(backups, f));
    await driver.start(ref);
    expect((await driver.exec(ref, 'cat notes.txt')).output).toBe('kept\n1\n2\n');
  });

  it('keeps two server instances on one engine apart: same project id, separate containers and volumes', async () => {
    const first = engine.driver();
    const second = engine.driver();
    await Promise.all([first.initialise(ref), second.initialise(ref)]);
    await first.exec(ref, 'echo first-only > secret.txt');
    expect((await second.exec(ref, 'ls secret.txt 2>&1 || echo absent')).output).toContain('absent');
    await second.backup(ref);
    await second.stop(ref);
    expect(await first.status(ref)).toBe('Running');
    expect((await first.exec(ref, 'cat secret.txt')).output).toBe('first-only\n');
  });

  it('with networking on: a network per project; no other project, host address or link-local address reachable; the rest of the private range is', async () => {
    const driver = engine.driver({ network: true });
    const a: SandboxRef = { projectId: 1, username: 'user_1_1' };
    const b: SandboxRef = { projectId: 2, username: 'user_1_2' };
    await Promise.all([driver.initialise(a), driver.initialise(b)]);
    const networkOf = async (s: SandboxRef) => {
      const info = await engine.docker.getContainer(`devops-agents-test-${driver.instanceId}-${s.projectId}`).inspect();
      const [name, settings] = Object.entries(info.NetworkSettings.Networks)[0]!;
      return { name, ip: settings.IPAddress, gateway: settings.Gateway };
    };
    const [netA, netB] = await Promise.all([networkOf(a), networkOf(b)]);
    expect(netA.name).toBe(`devops-agents-test-${driver.instanceId}-1-net`);
    expect(netA.name).not.toBe(netB.name);

    // Project B serves HTTP; so does the host (every address, 0.0.0.0); so does a machine on A's own private network.
    const stopServing = new AbortController();
    void driver.exec(b, 'python3 -m http.server 8080', { signal: stopServing.signal, timeoutMs: 600_000 });
    await driver.exec(b, 'until curl -s -o /dev/null http://127.0.0.1:8080/; do sleep 0.2; done');
    const host = http.createServer((_req, res) => res.end('host'));
    await new Promise<void>((resolve) => host.listen(0, '0.0.0.0', resolve));
    const hostPort = (host.address() as AddressInfo).port;
    const lan = await engine.docker.createContainer({
      name: `devops-agents-test-${driver.instanceId}-lan`,
      Image: IMAGE,
      // Without a sandbox's rules, the host answers on the gateway: this machine fetches it and serves what it got.
      Cmd: ['sh', '-c', `curl -s --max-time 10 http://${netA.gateway}:${hostPort}/ > host.txt; exec python3 -m http.server 8080`],
      Labels: { 'devops-agents.instance': driver.instanceId },
      HostConfig: { NetworkMode: netA.name },
    });
    await lan.start();
    const lanIp = (await lan.inspect()).NetworkSettings.Networks[netA.name]!.IPAddress;
    try {
      const reach = async (s: SandboxRef, url: string): Promise<string> =>
        (await driver.exec(s, `curl -s -o /dev/null -w '%{http_code}' --max-time 5 ${url} || echo unreachable`)).output.trim();
      const control = await driver.exec(a, `until curl -s -o /dev/null --max-time 2 http://${lanIp}:8080/; do sleep 0.2; done; curl -s http://${lanIp}:8080/host.txt`);
      expect(control.output).toBe('host');
      expect(await reach(a, `http://${lanIp}:8080/`)).toBe('200');
      expect(await reach(b, 'http://127.0.0.1:8080/')).toBe('200');

      expect(await reach(a, `http://${netB.ip}:8080/`)).toMatch(/unreachable|000/);
      expect(await reach(a, `http://${netA.gateway}:${hostPort}/`)).toMatch(/unreachable|000/);
      expect(await reach(a, `http://${netB.gateway}:${hostPort}/`)).toMatch(/unreachable|000/);
      // Refused at once by the sandbox's own rule (curl's exit 7), not lost on the way.
      expect((await driver.exec(a, 'curl -s --max-time 5 http://169.254.169.254/latest/meta-data/; echo "exit=$?"')).output).toBe('exit=7\n');
      // The sandbox cannot take its rules away.
      expect((await driver.exec(a, 'iptables -w -F OUTPUT')).exitCode).not.toBe(0);
      expect(await reach(a, `http://${netA.gateway}:${hostPort}/`)).toMatch(/unreachable|000/);
    } finally {
      stopServing.abort();
      await lan.remove({ force: true });
      await new Promise((resolve) => host.close(resolve));
    }

    // Rules come back with every start (a new network namespace each time).
    await driver.backup(a);
    await driver.stop(a);
    await driver.start(a);
    expect((await driver.exec(a, `curl -s --max-time 5 http://${(await networkOf(a)).gateway}:1/ || echo refused`)).output).toContain('refused');
    const rules = await engine.docker.getContainer(`devops-agents-test-${driver.instanceId}-1`).inspect();
    expect(rules.HostConfig.CapAdd ?? []).toEqual([]);
  });

  it('answers unavailable, naming the engine, when the engine cannot be reached', async () => {
    const socket = '/nonexistent/docker.sock';
    const driver = createDockerDriver({
      docker: new Docker(dockerConnection(`unix://${socket}`)),
      engine: `unix://${socket}`,
      instanceId: 'down',
      root: engine.driver().root,
      image: IMAGE,
      network: false,
      memoryMb: 0,
      cpus: 0,
      pidsLimit: 0,
      execTimeoutMs: 1_000,
    });
    await expect(driver.status(ref)).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining(socket) });
    await expect(driver.initialise(ref)).rejects.toMatchObject({ code: 'unavailable' });
  });
});

describe('docker driver configuration', () => {
  it('maps DOCKER_HOST forms to dockerode options', () => {
    expect(dockerConnection('unix:///var/run/docker.sock')).toEqual({ socketPath: '/var/run/docker.sock' });
    expect(dockerConnection('tcp://10.0.0.5:2375')).toEqual({ host: '10.0.0.5', port: 2375, protocol: 'http' });
    expect(dockerConnection('https://docker.internal:2376')).toEqual({ host: 'docker.internal', port: 2376, protocol: 'https' });
  });

  it('is chosen by SANDBOX_DRIVER=docker, with the toolbox image by default', async () => {
    const config = loadConfig({ DATA_DIR: '/srv/da', SANDBOX_DRIVER: 'docker', SANDBOX_DOCKER_RUNTIME: 'runsc', SANDBOX_DOCKER_CPUS: '0.5', DOCKER_HOST: 'tcp://10.0.0.5:2375' });
    expect(config.sandbox.docker).toEqual({ host: 'tcp://10.0.0.5:2375', image: TOOLBOX_IMAGE, runtime: 'runsc', cpus: 0.5 });
    expect(loadConfig({ SANDBOX_DRIVER: 'kubernetes' }).sandbox.kubernetes?.image).toBe(TOOLBOX_IMAGE);
    expect((await createSandboxDriver(config.sandbox, undefined, 'abc')).kind).toBe('docker');
    expect(loadConfig({}).sandbox.docker).toBeUndefined();
    expect(() => loadConfig({ SANDBOX_DRIVER: 'docker', SANDBOX_DOCKER_RUNTIME: 'runsc; rm -rf /' })).toThrow('SANDBOX_DOCKER_RUNTIME');
  });
});
