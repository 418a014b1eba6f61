import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/** Every child the bench started: killed (with its process group) when the bench exits, however it exits. */
const children = new Set<ChildProcess>();
/** Where each child writes its output: quoted when it fails to start. */
const logFiles = new WeakMap<ChildProcess, string>();

export function killChildren(): void {
  for (const child of children) {
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  children.clear();
}
process.on('exit', killChildren);

/**
 * Starts `node --import tsx <script>` in its own process group, its output to `logFile`; `nodeArgs`
 * go before the script (`--cpu-prof`). `tsx: false` starts built JavaScript as production does, with
 * no TypeScript loader hooking every import.
 */
export function startNode(
  script: string,
  options: { cwd: string; env: Record<string, string>; logFile: string; nodeArgs?: string[]; tsx?: boolean },
): ChildProcess {
  const out = fs.openSync(options.logFile, 'a');
  const loader = options.tsx === false ? [] : ['--import', 'tsx'];
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ...loader, script], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', out, out],
    detached: true,
  });
  fs.closeSync(out);
  children.add(child);
  logFiles.set(child, options.logFile);
  child.once('exit', () => children.delete(child));
  return child;
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.pid === undefined) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(-child.pid, 'SIGTERM');
  const timer = setTimeout(() => child.pid !== undefined && process.kill(-child.pid, 'SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU time (utime + stime) in µs from a stat(5) file: the process's, or one thread's under task/. */
function statCpuMicros(file: string): number {
  const stat = fs.readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // fields 14 and 15 of stat(5)
  return (ticks * 1_000_000) / TICKS_PER_SECOND;
}

/** CPU time the process has used so far, in µs, from /proc/<pid>/stat (every thread). */
export function cpuMicros(pid: number): number {
  return statCpuMicros(`/proc/${pid}/stat`);
}

/** CPU time of the process's main thread (JavaScript, the event loop) so far, in µs; the rest is GC, JIT and libuv's pool. */
export function mainThreadCpuMicros(pid: number): number {
  return statCpuMicros(`/proc/${pid}/task/${pid}/stat`);
}

/** A memory figure of /proc/<pid>/status in bytes: VmRSS (resident now) or VmHWM (the most it has been resident). */
function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) * 1024 : 0;
}

/** Resident memory of the process in bytes. */
export function rssBytes(pid: number): number {
  return statusBytes(pid, 'VmRSS');
}

/** The most memory the process has held resident since it started, in bytes (its peak RSS). */
export function peakRssBytes(pid: number): number {
  return statusBytes(pid, 'VmHWM');
}

/** The end of a child's output, to quote in an error. */
function lastLines(child: ChildProcess): string {
  const file = logFiles.get(child);
  try {
    return file ? `; its last output:\n${fs.readFileSync(file, 'utf8').trim().split('\n').slice(-15).join('\n')}` : '';
  } catch {
    return '';
  }
}

/** Waits until `url` answers 2xx, or fails after `ms`. */
export async function waitForUrl(url: string, ms: number, child?: ChildProcess): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (child && child.exitCode !== null) throw new Error(`${url}: the server exited with ${child.exitCode}${lastLines(child)}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
