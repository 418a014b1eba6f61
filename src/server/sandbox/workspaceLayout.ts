import type { SandboxCommit } from '../../shared/api/sandbox';

/**
 * What every driver's sandbox looks like from inside, whoever runs it (bubblewrap, a container, a pod):
 * the home and workspace paths, the folders and ignore rules of a new workspace, the environment a
 * program starts with, and the shape of the git history that records each executed step.
 */

export const homeOf = (username: string): string => `/home/${username}`;
export const workspaceOf = (username: string): string => `/home/${username}/workspace`;

/** Where private keys live in the workspace (out of the git history). */
export const SSH_KEYS_FOLDER = 'ssh-keys';
export const WORKSPACE_FOLDERS = [SSH_KEYS_FOLDER, 'terraform', 'ansible'];
export const GITIGNORE = '# Private keys stay out of the history; provider plugins are re-downloaded.\nssh-keys/\n.terraform/\n';

/** The environment every sandbox program starts with (plus the caller's extras). */
export function baseEnv(username: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
    HOME: homeOf(username),
    USER: username,
    LOGNAME: username,
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    ...extra,
  };
}

const STEP_TRAILER = 'Step-Number';
/** Field and record separators of the history format. */
const FS = '\x1f';
const RS = '\x1e';

/** `git log --format=` value that `parseHistory` reads. */
export const HISTORY_FORMAT = `%H${FS}%cI${FS}%s${FS}%b${RS}`;

/** The commit message of an executed step: subject, the whole command, and a Step-Number trailer. */
export function stepCommitMessage(stepNumber: number, command: string): string {
  const subject = `Step ${stepNumber}: ${command.split('\n')[0]!.slice(0, 72)}`;
  return `${subject}\n\n${command}\n\n${STEP_TRAILER}: ${stepNumber}\n`;
}

/** Reads `git log --format=${HISTORY_FORMAT}` output into the history the API answers. */
export function parseHistory(stdout: string): SandboxCommit[] {
  return stdout
    .split(RS)
    .map((r) => r.replace(/^\n/, ''))
    .filter(Boolean)
    .map((record) => {
      const [sha, date, subject, body = ''] = record.split(FS);
      const trailer = new RegExp(`^${STEP_TRAILER}: (\\d+)\\s*$`, 'm').exec(body);
      const step = trailer ? Number(trailer[1]) : null;
      const command = step !== null ? body.slice(0, trailer!.index).trim() : null;
      return { sha: sha!, message: subject!, step_number: step, command, created_at: new Date(date!).toISOString() };
    });
}
