import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { remote } from '../../../src/server/agents/offline/remoteShell';
import { heredocsOf, remoteScript } from '../../../src/server/agents/verifier/heredocs';
import { strictScript } from '../../../src/server/services/steps/stepRuns';
import { listenOnLoopback } from '../helpers/freePort';
import { found, until } from '../helpers/until';

/**
 * The values of the variables a deploy step sends to the server (`remote(script, env)`) travel on ssh's
 * stdin, never on a command line: `ps` shows every process's arguments to every user of the sandbox, of
 * the host running it and of the server. Run as the step runner runs a step (bash, set -euo pipefail).
 */

/** Every process's argv on this machine, as `ps` reads it. */
function allCommandLines(): Array<{ pid: string; argv: Buffer }> {
  const out: Array<{ pid: string; argv: Buffer }> = [];
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      out.push({ pid, argv: fs.readFileSync(`/proc/${pid}/cmdline`) });
    } catch {
      // Ended while we looked.
    }
  }
  return out;
}

/** A value holding `nonce`, around it what quoting gets wrong: quotes, spaces, newlines, `$`, backticks. */
const piece = fc.oneof(
  fc.constantFrom("'", '"', ' ', '\n', '\t', '\r', '$', '`', '\\', '$(id)', '`id`', '${HOME}', '$A', '!', '*', '?', '[x]', '~', '#', ';', '|', '&', '<', '>', '(', ')', '{', '}', '%q', '%s', '\\n', '-', '--', 'é', '☃', '🦀', 'REMOTE', '\nREMOTE\n', '\n}\n'),
  fc.string(),
);
const valueAround = (nonce: string) => fc.tuple(fc.array(piece, { maxLength: 6 }), fc.array(piece, { maxLength: 6 })).map(([a, b]) => `${a.join('')}${nonce}${b.join('')}`.replace(/\0/g, ''));

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

describe('remote(): variables travel on stdin, not on a command line', () => {
  let dir: string;
  let bin: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-remote-env-'));
    bin = path.join(dir, 'bin');
    fs.mkdirSync(bin);
    // ssh as far as the script is concerned: keeps its argv, then runs the remote command as sshd does
    // (the login shell's -c) with the client's stdin, in an environment without the workspace's variables.
    fs.writeFileSync(
      path.join(bin, 'ssh'),
      '#!/bin/bash\nprintf \'%s\\0\' "$@" > "$SSH_ARGV_FILE"\nexec env -i PATH="$PATH" HOME="$HOME" REMOTE_RAN="$REMOTE_RAN" bash -c "${@: -1}"\n',
      { mode: 0o755 },
    );
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const runStep = (command: string, env: Record<string, string>) => {
    const argvFile = path.join(dir, `argv-${randomUUID()}`);
    const r = spawnSync('bash', ['-c', strictScript(command)], {
      cwd: dir,
      env: { PATH: `${bin}:${process.env.PATH}`, HOME: dir, SSH_ARGV_FILE: argvFile, REMOTE_RAN: path.join(dir, 'ran'), ...env },
      encoding: 'utf8',
      timeout: 30_000,
    });
    const argv = fs.existsSync(argvFile) ? fs.readFileSync(argvFile) : Buffer.alloc(0);
    fs.rmSync(argvFile, { force: true });
    return { ...r, argv };
  };

  it('any value reaches the server exactly, exported, and never shows in ssh’s arguments', () => {
    // The server prints each value in base64, as its shell has it and as a child process sees it.
    const script = ['for v in "$DB_PASSWORD" "$TOKEN"; do printf %s "$v" | base64 -w0; echo; done', 'sh -c \'printf %s "$DB_PASSWORD"\' | base64 -w0; echo', 'echo REMOTE'].join('\n');
    const command = remote(script, ['DB_PASSWORD', 'TOKEN']);
    const nonce = `n${randomUUID().replace(/-/g, '')}`;
    const other = piece.map((p) => p.replace(/\0/g, ''));
    fc.assert(
      fc.property(valueAround(nonce), other, (password, token) => {
        const r = runStep(command, { DB_PASSWORD: password, TOKEN: token });
        expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
        expect(r.stdout).toBe(`${b64(password)}\n${b64(token)}\n${b64(password)}\nREMOTE\n`);
        expect(r.argv.length).toBeGreaterThan(0);
        expect(r.argv.includes(nonce)).toBe(false);
        expect(command.includes(nonce)).toBe(false);
      }),
      { numRuns: 60 },
    );
  });

  it('the command names the variables, never their values, and the verifier reads them as passed', () => {
    const command = remote('echo "$BACKUP_PASSWORD" | wc -c', ['BACKUP_PASSWORD', 'AWS_SECRET_ACCESS_KEY']);
    expect(command.split('\n')[0]).toBe(
      `{ printf 'export %s=%q\\n' BACKUP_PASSWORD "$BACKUP_PASSWORD" AWS_SECRET_ACCESS_KEY "$AWS_SECRET_ACCESS_KEY"; cat <<'REMOTE'; } | ssh -F ssh-keys/config da-server 'bash -s'`,
    );
    const [doc] = heredocsOf(command);
    expect(remoteScript(doc!)).toEqual({ passed: ['BACKUP_PASSWORD', 'AWS_SECRET_ACCESS_KEY'], onCommandLine: [] });
    // Without variables the command is what it always was.
    expect(remote('uptime')).toBe("ssh -F ssh-keys/config da-server 'bash -s' <<'REMOTE'\n{\nset -euo pipefail\nexec </dev/null\nuptime\n}\nREMOTE");
    expect(() => remote('true', ['NOT A NAME'])).toThrow(/not variable names/);
  });

  it('a variable the workspace lacks fails the step before the server runs anything', () => {
    fs.rmSync(path.join(dir, 'ran'), { force: true });
    const r = runStep(remote('touch "$REMOTE_RAN"', ['MISSING_SECRET']), {});
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('MISSING_SECRET: unbound variable');
    expect(fs.existsSync(path.join(dir, 'ran'))).toBe(false);
  });

  it('while the real ssh runs, no process on the machine has the value in its command line', async () => {
    // A server that accepts and never answers holds ssh in its connection for as long as the test looks.
    const silent = net.createServer(() => undefined);
    const sockets = new Set<net.Socket>();
    silent.on('connection', (s) => sockets.add(s));
    const port = await listenOnLoopback(silent);
    const workspace = fs.mkdtempSync(path.join(dir, 'ws-'));
    fs.mkdirSync(path.join(workspace, 'ssh-keys'));
    fs.writeFileSync(path.join(workspace, 'ssh-keys/config'), `Host da-server\n  HostName 127.0.0.1\n  Port ${port}\n  User deploy\n  BatchMode yes\n  StrictHostKeyChecking yes\n  UserKnownHostsFile /dev/null\n  ConnectTimeout 60\n`);
    const nonce = `n${randomUUID().replace(/-/g, '')}`;
    const value = `it's "${nonce}" $(id) \`id\`\nsecond line`;
    const step = spawn('bash', ['-c', strictScript(remote('echo "$BACKUP_PASSWORD" >/dev/null', ['BACKUP_PASSWORD']))], {
      cwd: workspace,
      env: { PATH: process.env.PATH, HOME: workspace, BACKUP_PASSWORD: value },
      stdio: 'ignore',
      detached: true,
    });
    try {
      await until(() => sockets.size > 0, 'ssh to connect');
      const ssh = await found(
        () => allCommandLines().find(({ pid, argv }) => argv.toString().startsWith('ssh\0-F\0') && fs.readlinkSync(`/proc/${pid}/cwd`) === workspace),
        "the step's ssh process",
      );
      expect(ssh.argv.toString().split('\0')).toEqual(['ssh', '-F', 'ssh-keys/config', 'da-server', 'bash -s', '']);
      expect(allCommandLines().filter(({ argv }) => argv.includes(nonce))).toEqual([]);
      // The look itself sees a value on a command line when there is one.
      const shown = spawn('bash', ['-c', 'sleep 30; :', nonce], { stdio: 'ignore' });
      try {
        await found(() => allCommandLines().find(({ argv }) => argv.includes(nonce)), 'a command line holding the value');
      } finally {
        shown.kill('SIGKILL');
      }
    } finally {
      process.kill(-step.pid!, 'SIGKILL');
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});
