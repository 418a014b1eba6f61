import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxDriver, SandboxRef } from '../../../src/server/sandbox/driver';
import { isMountpoint } from '../../../src/server/sandbox/diskImage';
import { createLocalDriver } from '../../../src/server/sandbox/local/localDriver';
import { describeWithEngine, engineDrivers } from './dockerEngine';
import { waitFor } from './ptyHelpers';

jest.setTimeout(180_000);

const asRoot = process.getuid?.() === 0;
const describeAsRoot = asRoot ? describe : describe.skip;
const limits = { network: false, memoryMb: 2048, maxProcesses: 64, cpuSeconds: 600 };

/** Bytes the host's disk really holds for a file (a sparse image holds only what was written). */
const allocated = (file: string): number => fs.statSync(file).blocks * 512;

/**
 * Writes past SANDBOX_DISK_MB inside the sandbox: ENOSPC there, the host's disk holds no more than the
 * workspace's filesystem, and the workspace still works (and is backed up and restored) afterwards.
 */
async function writesPastTheQuota(driver: SandboxDriver, s: SandboxRef, image: string): Promise<void> {
  // Reserved from the start: nothing the sandbox writes can take more of the host's disk.
  expect(allocated(image)).toBeGreaterThanOrEqual(64 * 1024 * 1024);
  const dd = await driver.exec(s, 'dd if=/dev/urandom of=big.bin bs=1M count=100 2>&1; echo "exit=$?"; df -m --output=size . | tail -1');
  expect(dd.output).toContain('No space left on device');
  expect(dd.output).not.toContain('exit=0');
  expect(Number(dd.output.trim().split('\n').at(-1))).toBeLessThanOrEqual(64);
  expect(fs.statSync(image).size).toBe(64 * 1024 * 1024);
  expect(allocated(image)).toBeLessThanOrEqual(64 * 1024 * 1024 + 1024 * 1024);
  expect(allocated(image)).toBeGreaterThanOrEqual(64 * 1024 * 1024);
  // The rest of the workspace is unharmed; once space is freed, writes work again.
  const after = await driver.exec(s, 'rm big.bin && echo fine > small.txt && cat small.txt && git status --porcelain');
  expect(after).toMatchObject({ exitCode: 0 });
  expect(after.output).toContain('fine');
  expect(await driver.stop(s)).not.toBeNull();
  expect(fs.existsSync(image)).toBe(false);
  await driver.start(s);
  expect((await driver.exec(s, 'cat small.txt')).output).toBe('fine\n');
  await driver.stop(s);
}

describeAsRoot('SANDBOX_DISK_MB and host uids on the local driver (root, for real)', () => {
  let dataDir: string;
  const drivers: SandboxDriver[] = [];
  const make = (name: string, diskMb: number): { driver: SandboxDriver; root: string } => {
    const root = path.join(dataDir, name, 'sandboxes');
    const driver = createLocalDriver({ root, limits, uidBase: 200_000, execTimeoutMs: 60_000, diskMb });
    drivers.push(driver);
    return { driver, root };
  };

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-quota-'));
  });
  afterAll(async () => {
    for (const driver of drivers) await driver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('bounds a workspace: dd past the quota fails with ENOSPC inside, and the host holds no more than the quota', async () => {
    const { driver, root } = make('one', 64);
    const s = { projectId: 1, username: 'user_1_1' };
    await driver.initialise(s);
    const workspace = path.join(root, '1', 'workspace');
    expect(isMountpoint(workspace)).toBe(true);
    expect((await driver.exec(s, 'ls -A')).output).toBe('.git\n.gitignore\nansible\nssh-keys\nterraform\n');
    await writesPastTheQuota(driver, s, `${workspace}.img`);
    expect(isMountpoint(workspace)).toBe(false);
  });

  it('mounts a workspace again after the server closed (a restart) with its files', async () => {
    const { driver, root } = make('restart', 64);
    const s = { projectId: 3, username: 'user_1_3' };
    await driver.initialise(s);
    await driver.exec(s, 'echo before > before.txt');
    await driver.close();
    expect(isMountpoint(path.join(root, '3', 'workspace'))).toBe(false);
    const again = createLocalDriver({ root, limits, uidBase: 200_000, execTimeoutMs: 60_000, diskMb: 64 });
    drivers.push(again);
    expect(await again.status(s)).toBe('Running');
    expect((await again.exec(s, 'cat before.txt')).output).toBe('before\n');
    await again.stop(s);
  });

  it('keeps a workspace made before SANDBOX_DISK_MB was set: running and whole, bounded from its next start', async () => {
    const { driver, root } = make('upgrade', 0);
    const s = { projectId: 4, username: 'user_1_4' };
    await driver.initialise(s);
    await driver.exec(s, 'echo older > older.txt');
    await driver.close();
    const bounded = createLocalDriver({ root, limits, uidBase: 200_000, execTimeoutMs: 60_000, diskMb: 64 });
    drivers.push(bounded);
    expect(await bounded.status(s)).toBe('Running');
    expect((await bounded.exec(s, 'cat older.txt')).output).toBe('older\n');
    expect(await bounded.stop(s)).not.toBeNull();
    await bounded.start(s);
    expect(isMountpoint(path.join(root, '4', 'workspace'))).toBe(true);
    expect((await bounded.exec(s, 'cat older.txt')).output).toBe('older\n');
    await bounded.stop(s);
  });

  it('gives two server instances on one host different uids: one instance\'s fork bomb takes none of the other\'s process slots', async () => {
    const a = make('instance-a', 0);
    const b = make('instance-b', 0);
    const s = { projectId: 2, username: 'user_1_2' };
    await a.driver.initialise(s);
    await b.driver.initialise(s);
    const uidA = fs.statSync(path.join(a.root, '2', 'workspace')).uid;
    const uidB = fs.statSync(path.join(b.root, '2', 'workspace')).uid;
    expect(uidA).not.toBe(uidB);
    expect((uidA - 200_000) % 1_000_000).toBe(2);
    expect((uidB - 200_000) % 1_000_000).toBe(2);

    const shell = a.driver.shell(s, { cols: 80, rows: 24 });
    await waitFor(shell, /\$ $/);
    shell.write('bomb() { bomb | bomb & }; bomb\n');
    await new Promise((r) => setTimeout(r, 3_000));
    const starved = await a.driver.exec(s, 'ls >/dev/null && echo ran', { timeoutMs: 15_000 });
    expect(starved.output).not.toContain('ran');
    // The other instance's sandbox of the same project id still has every slot.
    const other = await b.driver.exec(s, 'for i in $(seq 20); do sleep 0.2 & done; wait; echo ran');
    expect(other).toMatchObject({ exitCode: 0, output: 'ran\n' });
    await a.driver.stop(s);
    await b.driver.stop(s);
  });
});

describeWithEngine('SANDBOX_DISK_MB on the docker driver (real engine)', () => {
  const engine = engineDrivers();
  afterAll(() => engine.cleanUp());

  (asRoot ? it : it.skip)('bounds a workspace volume: dd past the quota fails with ENOSPC inside, the host holds no more than the quota', async () => {
    const driver = engine.driver({ diskMb: 64 });
    const s = { projectId: 5, username: 'user_1_5' };
    await driver.initialise(s);
    await writesPastTheQuota(driver, s, path.join(driver.root, '5', 'workspace.img'));
  });
});
