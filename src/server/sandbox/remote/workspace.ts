import type { SandboxCommit } from '../../../shared/api/sandbox';
import { SandboxError, type SandboxRef } from '../driver';
import { COMMAND_LOADER, type CommandOnStdin } from '../commandInput';
import { baseEnv, GITIGNORE, HISTORY_FORMAT, homeOf, parseHistory, SECRET_FILE_RULES, SSH_KEYS_FOLDER, STEP_COMMIT_SCRIPT, stepCommitMessage, workspaceOf, WORKSPACE_FOLDERS } from '../workspaceLayout';

/**
 * What the container drivers (docker, kubernetes) share: the workspace's layout and its git history. Everything here runs inside the sandbox through the driver's `run`, exactly
 * as the local driver does it, so both container drivers keep the local driver's behaviour.
 */

/** The sandbox user inside a container: uid and gid 1000, never root. */
export const SANDBOX_UID = 1000;

export { homeOf, workspaceOf } from '../workspaceLayout';

/** A program run to completion inside the sandbox. */
export type RunInside = (
  sandbox: SandboxRef,
  argv: string[],
  options?: { env?: Record<string, string> },
) => Promise<{ code: number | null; stdout: string; stderr: string }>;

export const GIT_IDENTITY = {
  GIT_AUTHOR_NAME: 'DevOps Agents',
  GIT_AUTHOR_EMAIL: 'agent@devops-agents.local',
  GIT_COMMITTER_NAME: 'DevOps Agents',
  GIT_COMMITTER_EMAIL: 'agent@devops-agents.local',
  GIT_CONFIG_NOSYSTEM: '1',
};

/** The environment every sandbox program starts with (plus the caller's extras), as `KEY=value` pairs. */
export function sandboxEnv(username: string, extra: Record<string, string> = {}): string[] {
  return Object.entries(baseEnv(username, extra)).map(([k, v]) => `${k}=${v}`);
}

/** Answers true when the workspace holds nothing yet (a new volume: restore or create it). */
export async function workspaceIsEmpty(run: RunInside, s: SandboxRef): Promise<boolean> {
  const result = await run(s, ['bash', '-c', 'cd -- "$1" && [ -z "$(ls -A)" ]', 'empty', workspaceOf(s.username)]);
  if (result.code !== 0 && result.code !== 1) throw new SandboxError('failed', `Reading the workspace failed: ${result.stderr.trim()}`);
  return result.code === 0;
}

/** A new workspace: the ssh-keys, terraform and ansible folders, a .gitignore and a first commit. */
export async function createFreshWorkspace(run: RunInside, s: SandboxRef): Promise<void> {
  const script = [
    'set -e',
    'cd -- "$2"',
    `mkdir -p ${WORKSPACE_FOLDERS.join(' ')}`,
    'chmod 700 ssh-keys',
    `printf '%s' "$1" > .gitignore`,
    'git init -q -b main',
    'git add -A',
    'git commit -q -m "Workspace created"',
  ].join('\n');
  const result = await run(s, ['bash', '-c', script, 'init', GITIGNORE, workspaceOf(s.username)], { env: GIT_IDENTITY });
  if (result.code !== 0) throw new SandboxError('failed', `Creating the workspace failed: ${result.stderr.trim()}`);
}

/**
 * `~/.ssh` is the workspace's ssh-keys folder, as in the local driver: the home is fresh with every
 * container, the keys a plan puts there (and ssh's known_hosts) stay with the workspace and its backups.
 * ssh finds its home in the passwd entry, not in $HOME: the toolbox image's `/home/sandbox` leads to
 * `/tmp/.home`, which is pointed at this sandbox's home here.
 */
export async function linkSshKeys(run: RunInside, s: SandboxRef): Promise<void> {
  const result = await run(s, [
    'bash',
    '-c',
    'ln -sfn -- "$1/$3" "$2/.ssh" && ln -sfn -- "$2" /tmp/.home',
    'link',
    workspaceOf(s.username),
    homeOf(s.username),
    SSH_KEYS_FOLDER,
  ]);
  if (result.code !== 0) throw new SandboxError('failed', `Linking ~/.ssh failed: ${result.stderr.trim()}`);
}

export async function commitStep(run: RunInside, s: SandboxRef, stepNumber: number, command: string, secretForms: readonly string[] = []): Promise<string> {
  const message = stepCommitMessage(stepNumber, command);
  const result = await run(
    s,
    ['bash', '-c', STEP_COMMIT_SCRIPT, 'commit', message, workspaceOf(s.username), SECRET_FILE_RULES.join('\n')],
    { env: { ...GIT_IDENTITY, ...(secretForms.length ? { SECRET_FORMS: secretForms.join('\n') } : {}) } },
  );
  if (result.code !== 0) throw new SandboxError('failed', `Committing step ${stepNumber} failed: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

export async function history(run: RunInside, s: SandboxRef, limit: number): Promise<SandboxCommit[]> {
  const result = await run(
    s,
    ['git', '-C', workspaceOf(s.username), 'log', `-n${limit}`, `--format=${HISTORY_FORMAT}`],
    { env: GIT_IDENTITY },
  );
  if (result.code !== 0) {
    if (/does not have any commits|not a git repository/.test(result.stderr)) return [];
    throw new SandboxError('failed', `Reading the history failed: ${result.stderr.trim()}`);
  }
  return parseHistory(result.stdout);
}


/**
 * The real path of a workspace folder, resolved inside the sandbox: a symlink there may point anywhere in
 * the container's view, and one leading out of the workspace is refused.
 */
export async function resolveFolder(run: RunInside, s: SandboxRef, relativePath: string): Promise<string> {
  const workspace = workspaceOf(s.username);
  const target = relativePath ? `${workspace}/${relativePath}` : workspace;
  const check = await run(s, [
    'bash',
    '-c',
    'p=$(realpath -e -- "$1") || exit 3; case "$p/" in "$2"/*) ;; *) exit 4;; esac; [ -d "$p" ] || exit 5; printf %s "$p"',
    'check',
    target,
    workspace,
  ]);
  if (check.code === 3 || check.code === 5) throw new SandboxError('not_found', `No such folder: ${target}`);
  if (check.code === 4) throw new SandboxError('outside_workspace', 'The path leads outside the workspace');
  if (check.code !== 0) throw new SandboxError('failed', check.stderr.trim());
  return check.stdout;
}

/**
 * Wraps a command so that it leads a process group of its own and leaves its id in `pidFile`, to be killed
 * as a group. The command travels on stdin (../commandInput.ts): the inner bash reads it from there.
 */
export function killableArgv(command: string, pidFile: string): CommandOnStdin {
  const stdin = Buffer.from(command, 'utf8');
  const script = 'echo $$ > "$1"; bash -c "$3" bash "$2"; s=$?; rm -f -- "$1"; exit $s';
  return { argv: ['setsid', '-w', 'bash', '-c', script, 'exec', pidFile, String(stdin.length), COMMAND_LOADER], stdin };
}

/**
 * Wraps a command so that a watcher started with it kills it: the command leads a process group of its
 * own, and the watcher (a subshell forked before the command runs) kills that group with bash's builtin
 * `kill` as soon as a line arrives on the exec's stdin or stdin is dropped. The kill needs no new process,
 * so it works even when the command has used up the sandbox's pids limit.
 *
 * The command's bytes come first on that stdin: they are read whole before the watcher starts reading, and
 * handed to the command's own bash through a pipe (a forked subshell's `printf`, so no argv holds them).
 */
export function stdinKillableArgv(command: string): CommandOnStdin {
  const stdin = Buffer.from(command, 'utf8');
  const script = [
    'IFS= LC_ALL=C read -r -N "$1" c || exit 125',
    'exec 3<&0',
    'setsid bash -c "$2" bash "$1" < <(printf %s "$c") 3<&- &',
    'pg=$!',
    'unset -v c',
    '{ read -r _ <&3; kill -KILL -- "-$pg"; } 2>/dev/null &',
    'w=$!',
    'exec 3<&-',
    'wait "$pg"; s=$?',
    'kill "$w" 2>/dev/null',
    'exit "$s"',
  ].join('\n');
  return { argv: ['bash', '-c', script, 'exec', String(stdin.length), COMMAND_LOADER], stdin };
}

/** Kills the process group a `killableArgv` command leads. */
export function killArgv(pidFile: string): string[] {
  return ['bash', '-c', 'p=$(cat -- "$1" 2>/dev/null) && kill -KILL -- "-$p"; rm -f -- "$1"', 'kill', pidFile];
}
