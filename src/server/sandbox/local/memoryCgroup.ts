import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A memory limit for the whole sandbox (every process of it together), through a cgroup of its own per
 * project: cgroup v2's memory.max (swap off with memory.swap.max), or cgroup v1's memory controller
 * (memory.limit_in_bytes and memory.memsw.limit_in_bytes) on hybrid hosts. The server makes the groups
 * under its own cgroup; a sandbox's processes join theirs before its program starts (the wrapper writes
 * its pid to cgroup.procs, then execs). Where neither can be used (no memory controller, cgroups not
 * writable, v2 without delegation), SANDBOX_MEMORY_MB falls back to RLIMIT_AS, a limit per process of
 * its address space: several processes together can use more, and the driver says so at start.
 */
export interface MemoryCgroups {
  kind: 'v2' | 'v1';
  /** The cgroup.procs file of the project's group, made (with its limit) if missing. */
  procsFile(projectId: number): string;
  /**
   * Ends whatever is still in the project's group (its members are exactly the sandbox's processes, a
   * background one its shell left among them) and removes the group once the kernel has let them go.
   */
  remove(projectId: number): Promise<void>;
  /** Removes every group this driver made. */
  removeAll(): Promise<void>;
}

export type CgroupProbe = { cgroups: MemoryCgroups } | { cgroups: null; reason: string };

const V2_ROOT = '/sys/fs/cgroup';
const V1_ROOT = '/sys/fs/cgroup/memory';

/** The server's own cgroup paths from /proc/self/cgroup: the v2 one (`0::/…`) and the v1 memory one. */
function ownCgroups(): { v2?: string; v1?: string } {
  const found: { v2?: string; v1?: string } = {};
  for (const line of fs.readFileSync('/proc/self/cgroup', 'utf8').split('\n')) {
    const [id, controllers, where] = line.split(':');
    if (where === undefined) continue;
    if (id === '0' && controllers === '') found.v2 = where;
    else if (controllers!.split(',').includes('memory')) found.v1 = where;
  }
  return found;
}

const write = (file: string, value: string): void => fs.writeFileSync(file, value);

/** The pids in a group; none when it is gone. */
function members(dir: string): number[] {
  try {
    return fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** v2: memory must be enabled for the children of the server's cgroup; a cgroup with processes of its own cannot, so the server moves to a leaf first. */
function v2Base(own: string): string {
  const base = path.join(V2_ROOT, own);
  const enabled = (): boolean => fs.readFileSync(path.join(base, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('memory');
  if (enabled()) return base;
  // Another server or test process in the same cgroup may be doing this at the same moment: a pid can exit
  // or be moved by it between the read and the write (ESRCH, EINVAL), and a fork can land in the base after
  // the move, so each pid's move may fail and the whole move is tried again a few times.
  for (let attempt = 0; ; attempt++) {
    try {
      write(path.join(base, 'cgroup.subtree_control'), '+memory');
      break;
    } catch (err) {
      if (attempt >= 5) throw err;
      const leaf = path.join(base, 'devops-agents-server');
      fs.mkdirSync(leaf, { recursive: true });
      for (const pid of fs.readFileSync(path.join(base, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
        try {
          write(path.join(leaf, 'cgroup.procs'), pid);
        } catch {
          // gone or moved meanwhile: the retry reads the list again
        }
      }
    }
  }
  if (!enabled()) throw new Error('the memory controller could not be enabled');
  return base;
}

/** Drivers made in one process (a test worker runs several) each have groups of their own: their limits may differ. */
let instances = 0;

function cgroupsAt(kind: 'v2' | 'v1', base: string, limitBytes: number): MemoryCgroups {
  const made = new Set<number>();
  const instance = `${process.pid}-${++instances}`;
  const dirOf = (projectId: number): string => path.join(base, `devops-agents-${instance}-sandbox-${projectId}`);
  const limit = (dir: string): void => {
    if (kind === 'v2') {
      write(path.join(dir, 'memory.max'), String(limitBytes));
      if (fs.existsSync(path.join(dir, 'memory.swap.max'))) write(path.join(dir, 'memory.swap.max'), '0');
    } else {
      // Memory and swap together get the same figure, so the sandbox cannot spill into swap. v1 refuses
      // (EINVAL) a memory limit above the memory+swap one, and a memory+swap limit below the memory one: the
      // group may hold other figures (left by an earlier run), so memory+swap is lifted first, set last.
      const memsw = path.join(dir, 'memory.memsw.limit_in_bytes');
      const hasMemsw = fs.existsSync(memsw);
      if (hasMemsw) write(memsw, '-1');
      write(path.join(dir, 'memory.limit_in_bytes'), String(limitBytes));
      if (hasMemsw) write(memsw, String(limitBytes));
    }
  };
  /** True once the group is gone; false while the kernel still counts a process in it (EBUSY). */
  const tryRemove = (projectId: number): boolean => {
    try {
      fs.rmdirSync(dirOf(projectId));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'EBUSY') return false;
      // ENOENT: already gone
    }
    made.delete(projectId);
    return true;
  };
  const remove = async (projectId: number): Promise<void> => {
    // A process that has just been killed stays a member until it is reaped: a left group would keep this
    // driver's limit under a name the next driver of the same process could meet.
    for (let attempt = 0; attempt < 50 && !tryRemove(projectId); attempt++) {
      for (const pid of members(dirOf(projectId))) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 40));
    }
  };
  return {
    kind,
    procsFile(projectId) {
      const dir = dirOf(projectId);
      if (!made.has(projectId) || !fs.existsSync(dir)) {
        fs.mkdirSync(dir, { recursive: true });
        limit(dir);
        made.add(projectId);
      }
      return path.join(dir, 'cgroup.procs');
    },
    remove,
    async removeAll() {
      await Promise.all([...made].map(remove));
    },
  };
}

/**
 * Groups a server killed before it (SIGKILL runs no close) left behind, named by its pid: removed when that
 * process is gone and the group is empty (bwrap ends a sandbox with the server that started it).
 */
function removeGroupsOfEndedServers(base: string): void {
  for (const name of fs.readdirSync(base)) {
    const pid = /^devops-agents-(\d+)-/.exec(name)?.[1];
    if (pid === undefined || fs.existsSync(`/proc/${pid}`)) continue;
    try {
      fs.rmdirSync(path.join(base, name));
    } catch {
      // still holds a process, or removed by another server meanwhile
    }
  }
}

/** Finds a usable memory cgroup (v2 first), proven by moving a throwaway process into a limited group. */
export function probeMemoryCgroups(limitMb: number): CgroupProbe {
  if (limitMb <= 0) return { cgroups: null, reason: 'SANDBOX_MEMORY_MB is 0' };
  const own = ownCgroups();
  const attempts: string[] = [];
  const candidates: ['v2' | 'v1', () => string][] = [];
  if (own.v2 !== undefined && fs.existsSync(path.join(V2_ROOT, 'cgroup.controllers'))) {
    if (fs.readFileSync(path.join(V2_ROOT, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('memory')) candidates.push(['v2', () => v2Base(own.v2!)]);
    else attempts.push('cgroup v2 has no memory controller');
  } else attempts.push('no cgroup v2 hierarchy at /sys/fs/cgroup');
  if (own.v1 !== undefined && fs.existsSync(V1_ROOT)) candidates.push(['v1', () => path.join(V1_ROOT, own.v1!)]);
  for (const [kind, base] of candidates) {
    let cgroups: MemoryCgroups | null = null;
    try {
      const dir = base();
      removeGroupsOfEndedServers(dir);
      cgroups = cgroupsAt(kind, dir, limitMb * 1024 * 1024);
      const procs = cgroups.procsFile(0);
      const joined = spawnSync('sh', ['-c', 'echo $$ > "$1"', 'sh', procs], { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 5_000 });
      if (joined.status !== 0) throw new Error(joined.stderr.trim() || `exit status ${joined.status}`);
      void cgroups.remove(0);
      return { cgroups };
    } catch (err) {
      void cgroups?.remove(0);
      attempts.push(`cgroup ${kind}: ${(err as Error).message}`);
    }
  }
  return { cgroups: null, reason: attempts.join('; ') || 'no memory cgroup' };
}
