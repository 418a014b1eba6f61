import fs from 'node:fs';
import { until } from './until';

/** Host pids of the processes whose arguments are exactly `args` (the sandbox's processes are the host's, in namespaces). */
export function processesWith(args: string[]): number[] {
  const cmdline = `${args.join('\0')}\0`;
  return fs
    .readdirSync('/proc')
    .filter((pid) => {
      try {
        return /^\d+$/.test(pid) && fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8') === cmdline;
      } catch {
        return false; // ended meanwhile
      }
    })
    .map(Number);
}

/** Resolves once `pid` sleeps and has written nothing over five checks in a row: blocked on its writes. */
export async function untilBlocked(pid: number): Promise<void> {
  const written = (): string => /^wchar: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))![1]!;
  const sleeping = (): boolean => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.startsWith('S');
  let last = written();
  let still = 0;
  await until(() => {
    const now = written();
    still = now === last && sleeping() ? still + 1 : 0;
    last = now;
    return still >= 5;
  }, `process ${pid} to block on its writes`);
}
