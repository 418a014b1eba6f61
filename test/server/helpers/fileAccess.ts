import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Whether the tests run as root, which they need to act as another local user. */
export const asRoot = process.getuid?.() === 0;

/** Runs `argv` as another local user (`nobody` unless `uid` says; setpriv, as root): its exit status and output. */
export function asOtherUser(argv: string[], uid = 65534): { status: number | null; output: string } {
  const run = spawnSync('setpriv', ['--reuid', String(uid), '--regid', String(uid), '--clear-groups', '--', ...argv], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Every path under `dir` (relative) with its mode in octal, sandbox workspaces not entered. */
export function modesUnder(dir: string): Record<string, string> {
  const found: Record<string, string> = {};
  const walk = (current: string): void => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const target = path.join(current, entry.name);
      found[path.relative(dir, target)] = (fs.lstatSync(target).mode & 0o777).toString(8);
      if (entry.isDirectory() && entry.name !== 'workspace') walk(target);
    }
  };
  walk(dir);
  return found;
}
