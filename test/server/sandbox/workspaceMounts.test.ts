import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxDriver } from '../../../src/server/sandbox/driver';
import { mountsUnder } from '../../../src/server/sandbox/mountInfo';
import { createLocalDriver } from '../../../src/server/sandbox/local/localDriver';
import { mountedBelow } from '../helpers/mountTable';
import { waitFor } from './ptyHelpers';

jest.setTimeout(180_000);

const describeAsRoot = process.getuid?.() === 0 ? describe : describe.skip;
const limits = { network: false, memoryMb: 2048, maxProcesses: 64, cpuSeconds: 600 };

/**
 * The bounded workspaces (SANDBOX_DISK_MB, loop-mounted images; root only) leave nothing in the host's mount
 * table once a sandbox is stopped or the server shuts down, including workspaces a server killed before
 * this one left mounted, and the data directory can then be removed.
 */
describeAsRoot('workspace mounts of the local driver (root, for real)', () => {
  let dataDir: string;
  const drivers: SandboxDriver[] = [];
  const make = (root: string): SandboxDriver => {
    const driver = createLocalDriver({ root, limits, uidBase: 200_000, execTimeoutMs: 60_000, diskMb: 64 });
    drivers.push(driver);
    return driver;
  };
  const ref = (projectId: number) => ({ projectId, username: `user_1_${projectId}` });

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-mounts-'));
  });
  afterAll(async () => {
    for (const driver of drivers) await driver.close();
    // What a failed assertion left mounted, so the folder can go.
    for (const mountpoint of mountedBelow(dataDir)) execFileSync('umount', ['--lazy', mountpoint]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a stopped sandbox and a closed driver leave no mount, and the data directory can be removed', async () => {
    const root = path.join(dataDir, 'closed', 'sandboxes');
    const driver = make(root);
    await driver.initialise(ref(1));
    await driver.initialise(ref(2));
    expect(mountedBelow(root).sort()).toEqual([path.join(root, '1', 'workspace'), path.join(root, '2', 'workspace')]);

    await driver.stop(ref(2));
    expect(mountedBelow(root)).toEqual([path.join(root, '1', 'workspace')]);

    await driver.close();
    expect(mountedBelow(root)).toEqual([]);
    fs.rmSync(path.dirname(root), { recursive: true });
    expect(fs.existsSync(root)).toBe(false);
  });

  it('a server killed with its workspaces mounted: the next one unmounts them at its shutdown, used or not', async () => {
    const root = path.join(dataDir, 'killed', 'sandboxes');
    // The killed server: its workspaces mounted, and no close (SIGKILL runs none) until the suite ends.
    const killed = make(root);
    await killed.initialise(ref(3));
    await killed.initialise(ref(4));
    await killed.exec(ref(3), 'echo kept > kept.txt');
    expect(mountedBelow(root)).toHaveLength(2);

    const next = make(root);
    // One used by the next server, one never touched by it.
    expect((await next.exec(ref(3), 'cat kept.txt')).output).toBe('kept\n');
    await next.close();
    expect(mountedBelow(root)).toEqual([]);

    // The images kept the workspaces: mounted again on their next use.
    const again = make(root);
    expect((await again.exec(ref(3), 'cat kept.txt')).output).toBe('kept\n');
    expect(await again.status(ref(4))).toBe('Running');
    await again.close();
    expect(mountedBelow(root)).toEqual([]);
  });

  it('a shutdown out of time (killAll) leaves no mount either, though a shell was still using its workspace', async () => {
    const root = path.join(dataDir, 'out-of-time', 'sandboxes');
    const driver = make(root);
    await driver.initialise(ref(5));
    const shell = driver.shell(ref(5), { cols: 80, rows: 24 });
    // The shell starts in the workspace: while it runs there, the workspace's filesystem is busy.
    shell.write('echo busy-$((40+2)) && sleep 600\n');
    await waitFor(shell, /busy-42/);
    expect(mountedBelow(root)).toEqual([path.join(root, '5', 'workspace')]);

    driver.killAll!();
    expect(mountedBelow(root)).toEqual([]);
  });
});

describe('the mount table as the server reads it', () => {
  it('reads mount points as the kernel escapes them (a space is \\040)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-mountinfo-'));
    const table = path.join(dir, 'mountinfo');
    fs.writeFileSync(
      table,
      [
        '22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/vda rw',
        `301 22 7:3 / ${dir}/x/sandboxes/7/workspace rw,nosuid,nodev shared:2 - ext4 /dev/loop3 rw`,
        `302 22 7:4 / ${dir}/my\\040data/sandboxes/8/workspace rw shared:3 - ext4 /dev/loop4 rw`,
        '',
      ].join('\n'),
    );
    expect(mountsUnder(`${dir}/my data`, table)).toEqual([`${dir}/my data/sandboxes/8/workspace`]);
    expect(mountsUnder(dir, table)).toEqual([`${dir}/x/sandboxes/7/workspace`, `${dir}/my data/sandboxes/8/workspace`]);
    expect(mountsUnder(`${dir}/x/sandboxes/7/work`, table)).toEqual([]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
