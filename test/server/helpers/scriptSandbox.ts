import { spawnSync } from 'node:child_process';
import type { SandboxExec } from '../../../src/server/services/releases/onServer';
import type { SleepingSandbox } from '../../../src/server/services/sandbox/wakeSandbox';
import { sshTo, type TestHost } from './testServer';

/**
 * A running sandbox whose server commands reach a real shell: the script inside the sandbox's SSH
 * here-document (onServer.ts sshScript) is run by `bash` here, or over SSH on a test server. What the
 * server prints is what the watch reads; only the sandbox container between them is left out.
 */

/** The script inside the sandbox command (the here-document sent to the server over SSH). */
export const remoteScript = (command: string): string => {
  const tag = /<<'(\w+)'\n/.exec(command)![1]!;
  return command.slice(command.indexOf(`<<'${tag}'\n`) + tag.length + 5, command.lastIndexOf(`\n${tag}`));
};

type Shell = (script: string) => { exitCode: number | null; output: string };

export const localBash: Shell = (script) => {
  const r = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
  return { exitCode: r.status, output: `${r.stdout}${r.stderr}` };
};

export const overSsh =
  (host: TestHost): Shell =>
  (script) => {
    try {
      return { exitCode: 0, output: sshTo(host, `bash -c ${`'${script.replace(/'/g, `'\\''`)}'`}`) };
    } catch (err) {
      const e = err as { status?: number; stdout?: string; stderr?: string };
      return { exitCode: e.status ?? null, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
    }
  };

export function scriptSandbox(shell: Shell): SandboxExec & SleepingSandbox {
  return {
    containerStatus: async () => ({ container_status: 'Running', username: 'u', last_sync_time: null }),
    initialise: async () => ({ status: 'success', detail: '' }),
    activity: () => ({ running: 0, started: 0 }),
    stop: async () => ({ container_status: 'NotRunning', message: 'Sandbox stopped' }),
    async exec(_project, command) {
      return { ...shell(remoteScript(command)), timedOut: false, cancelled: false, durationMs: 0 };
    },
  };
}
