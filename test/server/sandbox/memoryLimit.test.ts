import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxRef } from '../../../src/server/sandbox/driver';
import { createLocalDriver } from '../../../src/server/sandbox/local/localDriver';
import { probeMemoryCgroups } from '../../../src/server/sandbox/local/memoryCgroup';

/**
 * SANDBOX_MEMORY_MB bounds the whole sandbox where a memory cgroup can be made (cgroup v2, or v1's memory
 * controller on hybrid hosts): three processes of 120 MiB each cannot all live under 256 MiB. Where no
 * cgroup can be made the limit is per process (RLIMIT_AS), the driver says so, and this is what it says.
 */
const LIMIT_MB = 256;
const cgroups = probeMemoryCgroups(LIMIT_MB);
const ref: SandboxRef = { projectId: 4, username: 'user_9_4' };

/** Three processes each holding 120 MiB of written memory for a while: `held` for each that got it. */
const HOGS = `for i in 1 2 3; do python3 -c "import time; b=b'x'*(120<<20); print('held', flush=True); time.sleep(6); print('kept', flush=True)" & done; wait; echo done`;

describe('sandbox memory limit (for real)', () => {
  let dataDir: string;
  const warnings: string[] = [];

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-memory-'));
  });
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  const driverWith = (memoryMb: number) =>
    createLocalDriver({
      root: path.join(dataDir, 'sandboxes'),
      limits: { network: false, memoryMb, maxProcesses: 256, cpuSeconds: 600 },
      uidBase: 200_000,
      execTimeoutMs: 60_000,
      log: { warn: (message) => warnings.push(message) },
    });

  (cgroups.cgroups ? it : it.skip)(`holds every process of a sandbox together under SANDBOX_MEMORY_MB (cgroup ${cgroups.cgroups?.kind ?? ''})`, async () => {
    const driver = driverWith(LIMIT_MB);
    try {
      await driver.initialise(ref);
      const result = await driver.exec(ref, HOGS);
      // A process is counted when it outlived its sleep: the kernel may end one after it said 'held'.
      const held = result.output.split('\n').filter((line) => line === 'kept').length;
      expect(result.output).toContain('done');
      // 3 × 120 MiB do not fit in 256 MiB: the kernel ends at least one of them.
      expect(held < 3 ? 'limited' : result.output.slice(0, 500)).toBe('limited');
      expect(warnings.filter((w) => w.includes('No memory cgroup'))).toEqual([]);
      // Without the limit, the same sandbox holds all three: it is the limit that ended them.
      const unlimited = driverWith(0);
      const free = await unlimited.exec(ref, HOGS);
      expect(free.output.split('\n').filter((line) => line === 'kept')).toHaveLength(3);
      await unlimited.close();
    } finally {
      await driver.close();
    }
  }, 120_000);

  (cgroups.cgroups ? it : it.skip)('gives drivers made in one process groups of their own, each with its own limit', async () => {
    // A test worker runs several suites in one process, with different limits for the same project id.
    const small = probeMemoryCgroups(128).cgroups!;
    const large = probeMemoryCgroups(1024).cgroups!;
    try {
      const dirs = [small.procsFile(4), large.procsFile(4)].map((file) => path.dirname(file));
      expect(dirs[0]).not.toBe(dirs[1]);
      const figure = (dir: string): number => Number(fs.readFileSync(path.join(dir, small.kind === 'v2' ? 'memory.max' : 'memory.limit_in_bytes'), 'utf8'));
      expect(dirs.map(figure)).toEqual([128 << 20, 1024 << 20]);
    } finally {
      await small.removeAll();
      await large.removeAll();
    }
  });

  (cgroups.cgroups ? it : it.skip)('leaves no group behind when it closes, though a process the sandbox started in the background still runs', async () => {
    const probe = cgroups.cgroups!;
    const base = path.dirname(path.dirname(probe.procsFile(99)));
    await probe.remove(99);
    const groups = (): string[] => fs.readdirSync(base).filter((name) => name.startsWith('devops-agents-'));
    const before = groups();
    const driver = driverWith(LIMIT_MB);
    await driver.initialise(ref);
    await driver.exec(ref, 'setsid sleep 300 >/dev/null 2>&1 < /dev/null & echo started');
    expect(groups().length).toBe(before.length + 1);
    await driver.close();
    expect(groups()).toEqual(before);
  }, 60_000);

  (cgroups.cgroups ? it : it.skip)('removes at start the empty groups a server killed before it left, and no other', async () => {
    const probe = cgroups.cgroups!;
    const base = path.dirname(path.dirname(probe.procsFile(98)));
    await probe.remove(98);
    // A pid above the kernel's pid_max names no process: the server that made the group is gone.
    const ended = path.join(base, 'devops-agents-4194305-1-sandbox-7');
    const living = path.join(base, `devops-agents-${process.pid}-999-sandbox-7`);
    fs.mkdirSync(ended);
    fs.mkdirSync(living);
    try {
      expect(probeMemoryCgroups(LIMIT_MB).cgroups).not.toBeNull();
      expect([fs.existsSync(ended), fs.existsSync(living)]).toEqual([false, true]);
    } finally {
      for (const dir of [ended, living]) if (fs.existsSync(dir)) fs.rmdirSync(dir);
    }
  });

  (cgroups.cgroups ? it.skip : it)('says, when a sandbox first starts, that the limit is per process where no memory cgroup can be made', async () => {
    const driver = driverWith(LIMIT_MB);
    try {
      await driver.initialise(ref);
      expect(warnings.join('\n')).toMatch(/No memory cgroup for sandboxes \(.+\): SANDBOX_MEMORY_MB=256 limits each process's address space \(RLIMIT_AS\)/);
    } finally {
      await driver.close();
    }
  }, 60_000);
});
