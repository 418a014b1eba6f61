import type { NestedShell } from './nestedShell';
import { readSecrets, secretArgumentFindings, type Machine, type SecretOptions } from './secretArguments';
import type { Finding } from './types';

/**
 * The findings of where a script's secrets go, in its own commands and in the shell text they run
 * (`sh -c '…'`, `ssh host '…'`, `docker compose exec db sh -c '…'`): a secret in a program's argument, a
 * secret used where it does not reach (empty there), and nested text the verifier could not read.
 */

/** Why a variable of the outer script does not reach a nested shell, and the way that passes it. */
function cutOff(via: NestedShell[]): { why: string; way: string } {
  const first = via.find((v) => !v.inherits) ?? via[via.length - 1]!;
  const runner = first.runner.split(' ')[0]!;
  if (first.place === 'server') {
    return { why: `ssh passes none of the calling shell's variables to the server`, way: `send it on ssh's stdin ahead of the script ({ printf 'export %s=%q\\n' NAME "$NAME"; cat <<'REMOTE'; } | ssh … 'bash -s')` };
  }
  if (runner.endsWith('sudo')) return { why: 'sudo starts the command with a fresh environment (env_reset)', way: 'keep it with sudo --preserve-env=NAME' };
  if (runner.endsWith('su') || runner.endsWith('runuser')) return { why: `a login shell (${first.runner}) starts with a fresh environment`, way: 'use su without - (it keeps the environment)' };
  return { why: `${first.runner} clears the environment`, way: 'keep the environment (no env -i)' };
}

const place = (via: NestedShell[]): string => `the shell text of ${via.map((v) => v.runner).join(', then of ')}`;

export function secretFindings(script: string, secrets: Iterable<string>, machine: Machine, where: (line: number) => string, options: SecretOptions = {}): Finding[] {
  const reading = readSecrets(script, secrets, options);
  return [
    ...secretArgumentFindings(reading.hits, machine, where),
    ...reading.unreached.map((u): Finding => {
      const { why, way } = cutOff(u.via);
      return {
        severity: 'error',
        code: 'secret-not-passed',
        message: `$${u.secret} is used in ${place(u.via)}, but ${why}: there it is empty. ${way.replace(/NAME/g, u.secret).replace(/^./, (c) => c.toUpperCase())}`,
        where: where(u.line),
      };
    }),
    ...reading.unread.map(
      (u): Finding => ({
        severity: 'warning',
        code: 'nested-shell-unread',
        message: `${place(u.via).replace(/^t/, 'T')} is built as the script runs (from ${u.unread}), so the verifier could not read the commands in it (where a secret goes, its syntax): write it in single quotes and give it the values as arguments (sh -c '… "$1" …' _ "$VALUE") or in its environment`,
        where: where(u.line),
      }),
    ),
  ];
}
