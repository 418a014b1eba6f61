import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Files of one commit: path → content. */
export type Files = Record<string, string>;

const gitEnv = (date: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: '/nonexistent',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_AUTHOR_DATE: date,
  GIT_COMMITTER_DATE: date,
});

export function runGit(dir: string, args: string[], date = '2025-01-02T03:04:05Z'): string {
  return execFileSync('git', ['-C', dir, ...args], { env: gitEnv(date), encoding: 'utf8' });
}

function writeFiles(dir: string, files: Files): void {
  for (const [p, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    fs.writeFileSync(path.join(dir, p), content);
  }
}

/**
 * A real git work tree at `dir` with the given branches, each a commit on top of the first branch's
 * (the first branch is the default). Answers each branch's commit sha.
 */
export function makeRepository(dir: string, branches: Array<{ name: string; files: Files; date?: string }>): Record<string, string> {
  fs.mkdirSync(dir, { recursive: true });
  const [first, ...rest] = branches;
  runGit(dir, ['init', '--quiet', `--initial-branch=${first!.name}`]);
  const shas: Record<string, string> = {};
  const commit = (b: { name: string; files: Files; date?: string }): void => {
    writeFiles(dir, b.files);
    runGit(dir, ['add', '-A']);
    runGit(dir, ['commit', '--quiet', '-m', `commit on ${b.name}`], b.date);
    shas[b.name] = runGit(dir, ['rev-parse', 'HEAD']).trim();
  };
  commit(first!);
  for (const b of rest) {
    runGit(dir, ['checkout', '--quiet', '-b', b.name, first!.name]);
    commit(b);
  }
  runGit(dir, ['checkout', '--quiet', first!.name]);
  return shas;
}

/** A bare clone of a work tree (a repository without a work tree, as on a git server). */
export function makeBareClone(source: string, dir: string): void {
  execFileSync('git', ['clone', '--quiet', '--bare', source, dir], { env: gitEnv('2025-01-01T00:00:00Z') });
}
