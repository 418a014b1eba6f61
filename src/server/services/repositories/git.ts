import { execFile } from 'node:child_process';

/** What one `git` run may take; a repository read never needs more. */
const GIT_TIMEOUT_MS = 30_000;
const GIT_MAX_BUFFER = 64 * 1024 * 1024;

/**
 * Runs a read-only git command in `dir` (a work tree or a bare repository). The user's and the
 * system's git configuration are ignored, prompts are off, and `safe.directory` is granted on the
 * command line because the server may not own the repositories it reads. Arguments are never passed
 * through a shell.
 */
export function git(dir: string, args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      ['-C', dir, '-c', 'safe.directory=*', '-c', 'core.fsmonitor=false', '--no-pager', ...args],
      {
        encoding: 'buffer',
        maxBuffer: GIT_MAX_BUFFER,
        timeout: GIT_TIMEOUT_MS,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_TERMINAL_PROMPT: '0',
          GIT_OPTIONAL_LOCKS: '0',
          LC_ALL: 'C',
        },
      },
      (err, stdout, stderr) => {
        if (err) {
          const detail = Buffer.isBuffer(stderr) ? stderr.toString('utf8').trim() : '';
          reject(Object.assign(new Error(`git ${args[0]} failed: ${detail || err.message}`), { code: (err as { code?: unknown }).code }));
        } else resolve(stdout);
      },
    );
  });
}

export const gitText = async (dir: string, args: string[]): Promise<string> => (await git(dir, args)).toString('utf8');

/** One entry of `git ls-tree -r -l -z`. */
export interface TreeEntry {
  mode: string;
  type: string;
  sha: string;
  size: number;
  path: string;
}

/** Parses `git ls-tree -r -l -z` output: `<mode> <type> <sha> <size>\t<path>\0`. */
export function parseLsTree(out: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const record of out.toString('utf8').split('\0')) {
    if (!record) continue;
    const tab = record.indexOf('\t');
    const [mode, type, sha, size] = record.slice(0, tab).trim().split(/\s+/);
    entries.push({ mode: mode!, type: type!, sha: sha!, size: size === '-' ? 0 : Number(size), path: record.slice(tab + 1) });
  }
  return entries;
}
