import { SSH_CONFIG } from '../../agents/offline/remoteShell';
import { SSH_ALIAS } from '../../agents/offline/sshTarget';
import type { ExecOptions, ExecResult } from '../../sandbox/driver';
import type { DriftCheckRun } from '../../../shared/api/releases';

/**
 * Read-only commands on a project's server, run the way its deploy steps reach it: from the sandbox's
 * workspace through `ssh-keys/config` (the host key pinned by the first step, nothing new accepted).
 * Each run is kept with its exact command and output, so the person sees what was asked of the server.
 */

export interface SandboxExec {
  exec(project: { id: number; installationId: number }, command: string, options?: ExecOptions): Promise<ExecResult>;
}

export const NO_SERVER = `There is no server to read yet: the deploy's first step writes ${SSH_CONFIG}.`;
const ON_SERVER_TIMEOUT_MS = 120_000;

/** The sandbox command that runs `script` on the server (a quoted here-document: nothing in it is expanded locally). */
export function sshScript(script: string): string {
  let tag = 'CHECK';
  while (script.includes(tag)) tag += '_';
  return `test -f ${SSH_CONFIG} || { echo ${JSON.stringify(NO_SERVER)} >&2; exit 3; }\nssh -F ${SSH_CONFIG} ${SSH_ALIAS} 'bash -s' <<'${tag}'\n${script}\n${tag}`;
}

export class ServerCommandError extends Error {
  override name = 'ServerCommandError';
}

/**
 * A runner of read-only server commands for one project, recording every run in `runs`; a command that
 * fails throws with its output's end, after it is recorded.
 */
export function serverRunner(sandbox: SandboxExec, project: { id: number; installationId: number }, hidden: string[]) {
  const runs: DriftCheckRun[] = [];
  return {
    runs,
    async run(script: string, title: string): Promise<string> {
      const command = sshScript(script);
      const result = await sandbox.exec(project, command, { secrets: hidden, timeoutMs: ON_SERVER_TIMEOUT_MS });
      runs.push({ title, command, output: result.output, exit_code: result.exitCode });
      if (result.exitCode !== 0) {
        const end = result.output.trim().split('\n').slice(-3).join(' ');
        throw new ServerCommandError(`${title}: ${result.timedOut ? 'timed out' : `exit ${result.exitCode ?? 'killed'}`}${end ? ` (${end})` : ''}`);
      }
      return result.output;
    },
  };
}
