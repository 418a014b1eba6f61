import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { loadConfig } from '../../../src/server/config';
import { createSandboxDriver } from '../../../src/server/sandbox';
import type { SandboxRef } from '../../../src/server/sandbox/driver';
import { dockerConnection } from '../../../src/server/sandbox/docker/connection';
import { createDockerDriver, type DockerDriverOptions } from '../../../src/server/sandbox/docker/dockerDriver';
import { FakeDockerEngine, HELPER_ID } from './fakeDockerEngine';
import { waitFor } from './ptyHelpers';
import { readZip, streamToBuffer } from './zipHelpers';

const ref: SandboxRef = { projectId: 7, username: 'user_3_7' };
const WORKSPACE = '/home/user_3_7/workspace';

interface CreateBody {
  User: string;
  Cmd: string[];
  HostConfig: Record<string, unknown> & { Mounts: Array<{ Type: string; Source: string; Target: string }>; Binds?: string[] };
}

/** A real tar of a folder laid out by `files`, as the engine's GET /archive sends it. */
function tarOf(files: Record<string, string>): Buffer {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docker-tar-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  const tar = execFileSync('tar', ['-cf', '-', '-C', dir, '.']);
  fs.rmSync(dir, { recursive: true, force: true });
  return tar;
}

describe('docker sandbox driver (against a replay of the Docker Engine API)', () => {
  let engine: FakeDockerEngine;
  let root: string;

  const driverWith = (overrides: Partial<DockerDriverOptions> = {}) =>
    createDockerDriver({
      docker: new Docker({ host: '127.0.0.1', port: engine.port, protocol: 'http', version: 'v1.45' }),
      root,
      image: 'buildpack-deps:bookworm-scm',
      network: true,
      memoryMb: 2048,
      cpus: 1.5,
      pidsLimit: 256,
      execTimeoutMs: 10_000,
      ...overrides,
    });

  beforeEach(async () => {
    engine = new FakeDockerEngine();
    await engine.listen();
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'docker-driver-'));
  });

  afterEach(async () => {
    await engine.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('creates a hardened container: uid 1000, no capabilities, no-new-privileges, read-only root, limits, the workspace volume, no docker.sock', async () => {
    const driver = driverWith();
    expect(await driver.status(ref)).toBe('NotRunning');
    await driver.initialise(ref);
    expect(await driver.status(ref)).toBe('Running');

    const creates = engine.calls('POST', /^\/containers\/create$/);
    const sandbox = creates.find((c) => c.query.get('name') === 'devops-agents-sandbox-7')!.body as CreateBody;
    expect(sandbox.User).toBe('1000:1000');
    expect(sandbox.HostConfig).toMatchObject({
      CapDrop: ['ALL'],
      SecurityOpt: ['no-new-privileges:true'],
      ReadonlyRootfs: true,
      PidsLimit: 256,
      Memory: 2048 * 1024 * 1024,
      MemorySwap: 2048 * 1024 * 1024,
      NanoCpus: 1_500_000_000,
      NetworkMode: 'bridge',
      Init: true,
    });
    expect(sandbox.HostConfig.Mounts).toEqual([{ Type: 'volume', Source: 'devops-agents-sandbox-7-workspace', Target: WORKSPACE }]);
    expect(sandbox.HostConfig.Tmpfs).toHaveProperty('/tmp');
    expect(sandbox.HostConfig).not.toHaveProperty('Runtime');
    expect(sandbox.HostConfig).not.toHaveProperty('Privileged');
    expect(sandbox.HostConfig.CapAdd).toBeUndefined();
    for (const c of creates) {
      expect(JSON.stringify(c.body)).not.toMatch(/docker\.sock/);
      expect((c.body as CreateBody).HostConfig.Binds).toBeUndefined();
    }

    // The new volume is handed to uid 1000 by a one-shot helper that may only chown, without network.
    const helper = creates.find((c) => c.query.get('name') === 'devops-agents-sandbox-7-volume')!.body as CreateBody;
    expect(helper.HostConfig).toMatchObject({ CapDrop: ['ALL'], CapAdd: ['CHOWN'], NetworkMode: 'none', ReadonlyRootfs: true });
    expect(helper.Cmd.join(' ')).toMatch(/chown 1000:1000 \/workspace/);
    expect(engine.calls('DELETE', new RegExp(`^/containers/${HELPER_ID}$`))).toHaveLength(1);

    // No backup yet: a fresh git workspace is created inside, as the sandbox user.
    const initExec = engine.calls('POST', /\/exec$/).map((r) => r.body as { User: string; Cmd: string[] });
    expect(initExec.every((e) => e.User === '1000:1000')).toBe(true);
    expect(initExec.some((e) => e.Cmd.join(' ').includes('git init -q -b main'))).toBe(true);

    // Idempotent: a second initialise creates nothing.
    const before = engine.requests.length;
    await driver.initialise(ref);
    expect(engine.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['GET /containers/devops-agents-sandbox-7/json']);
  });

  it('sets the runtime when configured and no network when networking is off', async () => {
    await driverWith({ runtime: 'runsc', network: false }).initialise(ref);
    const body = engine.calls('POST', /^\/containers\/create$/).find((c) => c.query.get('name') === 'devops-agents-sandbox-7')!.body as CreateBody & {
      NetworkDisabled: boolean;
    };
    expect(body.HostConfig).toMatchObject({ Runtime: 'runsc', NetworkMode: 'none' });
    expect(body.NetworkDisabled).toBe(true);
  });

  it('streams demultiplexed stdout and stderr, reports the exit code from exec inspect and passes the environment', async () => {
    const driver = driverWith();
    await driver.initialise(ref);
    engine.onExec = (cmd) =>
      cmd[0] === 'setsid'
        ? {
            // A frame split mid-character and stderr interleaved, as the engine may send them.
            frames: [
              ['stdout', 'héllo '],
              ['stderr', 'warn\n'],
              ['stdout', Buffer.from('wörld\n', 'utf8')],
            ],
            exitCode: 3,
          }
        : { exitCode: 0 };
    const chunks: Array<[string, string]> = [];
    const result = await driver.exec(ref, 'echo hello; exit 3', { env: { TOKEN: 'x' }, onOutput: (c, s) => chunks.push([s, c]) });
    expect(result).toMatchObject({ exitCode: 3, output: 'héllo warn\nwörld\n', timedOut: false, cancelled: false });
    expect(chunks).toEqual([
      ['stdout', 'héllo '],
      ['stderr', 'warn\n'],
      ['stdout', 'wörld\n'],
    ]);
    const exec = engine.calls('POST', /\/exec$/).at(-1)!.body as { Cmd: string[]; Env: string[]; User: string; WorkingDir: string; Tty: boolean };
    expect(exec.Cmd[0]).toBe('setsid');
    expect(exec.Cmd.at(-1)).toBe('echo hello; exit 3');
    expect(exec).toMatchObject({ User: '1000:1000', WorkingDir: WORKSPACE, Tty: false });
    expect(exec.Env).toEqual(expect.arrayContaining(['TOKEN=x', 'HOME=/home/user_3_7', 'USER=user_3_7']));
    expect(engine.calls('GET', /^\/exec\/[^/]+\/json$/).length).toBeGreaterThan(0);
  });

  it('redacts secrets (and their base64 forms) from the output and every chunk, even split across frames', async () => {
    const driver = driverWith();
    await driver.initialise(ref);
    const canary = 'canary-S3cr3t-value';
    const b64 = Buffer.from(canary).toString('base64');
    engine.onExec = (cmd) =>
      cmd[0] === 'setsid'
        ? { frames: [['stdout', `key=${canary.slice(0, 8)}`], ['stdout', `${canary.slice(8)}\n`], ['stderr', `b64 ${b64}\n`]], exitCode: 0 }
        : { exitCode: 0 };
    const chunks: string[] = [];
    const result = await driver.exec(ref, 'env', { secrets: [canary], onOutput: (c) => chunks.push(c) });
    expect(result.output).not.toContain(canary);
    expect(result.output).not.toContain(b64);
    expect(result.output).toContain('[REDACTED]');
    expect(chunks.join('')).not.toContain(canary);
  });

  it('kills the command on timeout and on cancel, through its process group', async () => {
    const driver = driverWith({ execTimeoutMs: 200 });
    await driver.initialise(ref);
    engine.onExec = (cmd) => (cmd[0] === 'setsid' ? { frames: [['stdout', 'y\n']], hang: true } : { exitCode: 0 });
    const timedOut = await driver.exec(ref, 'yes');
    expect(timedOut).toMatchObject({ exitCode: null, timedOut: true, cancelled: false });
    expect(timedOut.output).toContain('y');
    const kills = engine.execCommands().filter((c) => c[3] === 'kill');
    expect(kills).toHaveLength(1);
    expect(kills[0]![2]).toMatch(/kill -KILL -- "-\$p"/);
    const started = engine.execCommands().filter((c) => c[0] === 'setsid').at(-1)!;
    expect(kills[0]![4]).toBe(started[6]);

    const controller = new AbortController();
    const running = driver.exec(ref, 'sleep 1000', { signal: controller.signal, timeoutMs: 10_000 });
    setTimeout(() => controller.abort(), 100);
    expect(await running).toMatchObject({ exitCode: null, timedOut: false, cancelled: true });
  });

  it('backs the workspace up with GET /archive and restores it with PUT /archive on start after a stop', async () => {
    const driver = driverWith();
    await driver.initialise(ref);
    engine.archives.set(`${WORKSPACE}/.`, tarOf({ 'main.tf': 'resource "null_resource" "x" {}\n', '.git/HEAD': 'ref: refs/heads/main\n' }));
    expect(await driver.lastBackupTime(ref)).toBeNull();
    const { lastSyncTime } = await driver.backup(ref);
    expect(await driver.lastBackupTime(ref)).toEqual(lastSyncTime);
    const files = fs.readdirSync(path.join(root, '7', 'backups'));
    expect(files).toEqual([`backup-${lastSyncTime.getTime()}.tar.gz`]);

    await driver.stop(ref);
    expect(engine.calls('DELETE', /^\/containers\/devops-agents-sandbox-7$/)[0]!.query.get('force')).toBe('true');
    expect(engine.calls('DELETE', /^\/volumes\/devops-agents-sandbox-7-workspace$/)).toHaveLength(1);
    expect(await driver.status(ref)).toBe('NotRunning');
    await expect(driver.exec(ref, 'true')).rejects.toMatchObject({ code: 'not_running' });

    const execsBefore = engine.execCommands().length;
    await driver.start(ref);
    const put = engine.calls('PUT', /^\/containers\/devops-agents-sandbox-7\/archive$/);
    expect(put).toHaveLength(1);
    expect(put[0]!.query.get('path')).toBe(WORKSPACE);
    expect(put[0]!.query.get('copyUIDGID')).toBe('true');
    const restored = execFileSync('tar', ['-tzf', '-'], { input: put[0]!.raw }).toString();
    expect(restored).toContain('./main.tf');
    // Restored, not re-created.
    expect(engine.execCommands().slice(execsBefore).some((c) => c.join(' ').includes('git init'))).toBe(false);
  });

  it('zips the workspace and a folder from the archive, refusing a folder that leads out', async () => {
    const driver = driverWith();
    await driver.initialise(ref);
    engine.archives.set(`${WORKSPACE}/.`, tarOf({ 'README.md': '# hi\n', 'terraform/main.tf': 'x\n' }));
    const zip = await readZip(await streamToBuffer(await driver.zipWorkspace(ref)));
    expect(zip.get('README.md')!.data.toString()).toBe('# hi\n');
    expect(zip.get('terraform/main.tf')!.data.toString()).toBe('x\n');

    engine.archives.set(`${WORKSPACE}/terraform/.`, tarOf({ 'main.tf': 'x\n' }));
    engine.onExec = (cmd) => (cmd[3] === 'check' ? { frames: [['stdout', `${WORKSPACE}/terraform`]], exitCode: 0 } : { exitCode: 0 });
    const folder = await readZip(await streamToBuffer(await driver.zipFolder(ref, 'terraform')));
    expect([...folder.keys()]).toEqual(['main.tf']);

    engine.onExec = (cmd) => (cmd[3] === 'check' ? { exitCode: 4 } : { exitCode: 0 });
    await expect(driver.zipFolder(ref, 'escape')).rejects.toMatchObject({ code: 'outside_workspace' });
  });

  it('commits a step and reads the history inside the container', async () => {
    const driver = driverWith();
    await driver.initialise(ref);
    const sha = 'a'.repeat(40);
    engine.onExec = (cmd) => {
      if (cmd[3] === 'commit') return { frames: [['stdout', `${sha}\n`]], exitCode: 0 };
      if (cmd[0] === 'git') {
        return {
          frames: [['stdout', `${sha}\x1f2025-01-15T09:20:00+00:00\x1fStep 2: terraform init\x1fterraform init\n\nStep-Number: 2\n\x1e\n`]],
          exitCode: 0,
        };
      }
      return { exitCode: 0 };
    };
    expect(await driver.commitStep(ref, 2, 'terraform init')).toBe(sha);
    const commit = engine.execCommands().find((c) => c[3] === 'commit')!;
    expect(commit[4]).toContain('Step-Number: 2');
    expect(await driver.history(ref)).toEqual([
      { sha, message: 'Step 2: terraform init', step_number: 2, command: 'terraform init', created_at: '2025-01-15T09:20:00.000Z' },
    ]);
  });

  it('opens a shell over a tty exec: input, resize, kill', async () => {
    const driver = driverWith();
    await driver.initialise(ref);
    const shell = driver.shell(ref, { cols: 100, rows: 30 });
    shell.write('echo typed-early\r');
    expect(await waitFor(shell, /typed-early/)).toContain('typed-early');
    const exec = engine.calls('POST', /\/exec$/).at(-1)!.body as { Tty: boolean; AttachStdin: boolean; Cmd: string[]; User: string };
    expect(exec).toMatchObject({ Tty: true, AttachStdin: true, User: '1000:1000' });
    expect(exec.Cmd.join(' ')).toContain('exec bash -l');
    await new Promise((r) => setTimeout(r, 50));
    expect(engine.calls('POST', /^\/exec\/[^/]+\/resize$/)[0]!.query.get('w')).toBe('100');
    shell.resize(120, 40);
    await new Promise((r) => setTimeout(r, 50));
    expect(engine.calls('POST', /^\/exec\/[^/]+\/resize$/).at(-1)!.query.get('h')).toBe('40');

    const exited = new Promise<{ exitCode: number; signal?: number }>((resolve) => shell.onExit(resolve));
    shell.kill();
    expect(await exited).toEqual({ exitCode: 0, signal: 9 });
    expect(engine.execCommands().some((c) => c[3] === 'kill')).toBe(true);

    // A shell that exits by itself reports the exit code from exec inspect.
    const second = driver.shell(ref, { cols: 80, rows: 24 });
    const done = new Promise<{ exitCode: number; signal?: number }>((resolve) => second.onExit(resolve));
    second.write('exit\r');
    expect(await done).toEqual({ exitCode: 0 });
  });

  it('maps DOCKER_HOST forms to dockerode options', () => {
    expect(dockerConnection('unix:///var/run/docker.sock')).toEqual({ socketPath: '/var/run/docker.sock' });
    expect(dockerConnection('tcp://10.0.0.5:2375')).toEqual({ host: '10.0.0.5', port: 2375, protocol: 'http' });
    expect(dockerConnection('https://docker.internal:2376')).toEqual({ host: 'docker.internal', port: 2376, protocol: 'https' });
  });

  it('is chosen by SANDBOX_DRIVER=docker with its settings from the environment', () => {
    const config = loadConfig({ DATA_DIR: '/srv/da', SANDBOX_DRIVER: 'docker', SANDBOX_DOCKER_RUNTIME: 'runsc', SANDBOX_DOCKER_CPUS: '0.5', DOCKER_HOST: 'tcp://10.0.0.5:2375' });
    expect(config.sandbox.docker).toEqual({ host: 'tcp://10.0.0.5:2375', image: 'buildpack-deps:bookworm-scm', runtime: 'runsc', cpus: 0.5 });
    expect(createSandboxDriver(config.sandbox).kind).toBe('docker');
    expect(loadConfig({}).sandbox.docker).toBeUndefined();
    expect(() => loadConfig({ SANDBOX_DRIVER: 'docker', SANDBOX_DOCKER_RUNTIME: 'runsc; rm -rf /' })).toThrow('SANDBOX_DOCKER_RUNTIME');
  });
});
