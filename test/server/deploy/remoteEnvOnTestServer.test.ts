import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { remote } from '../../../src/server/agents/offline/remoteShell';
import { strictScript } from '../../../src/server/services/steps/stepRuns';
import { requireInCi, sshTo, testServer } from '../helpers/testServer';
import { found, settledWithin } from '../helpers/until';

/**
 * `remote(script, env)` against the real test server over real ssh: the values arrive exactly, exported,
 * and while the step runs no process, in the workspace's machine or on the server, holds one in its
 * command line (what `ps` shows every user).
 */

const server = testServer;
requireInCi(server);

/** Processes of this machine whose command line holds `text`. */
const localHolders = (text: string): string[] =>
  fs.readdirSync('/proc').filter((pid) => {
    if (!/^\d+$/.test(pid)) return false;
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`).includes(text);
    } catch {
      return false;
    }
  });

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

(server || process.env.CI ? describe : describe.skip)('variables sent to the test server', () => {
  const s = server!;
  let workspace: string;
  beforeAll(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'da-remote-env-'));
    fs.mkdirSync(path.join(workspace, 'ssh-keys'), { mode: 0o700 });
    fs.copyFileSync(s.private_key_file, path.join(workspace, 'ssh-keys/id'));
    fs.chmodSync(path.join(workspace, 'ssh-keys/id'), 0o600);
    fs.writeFileSync(
      path.join(workspace, 'ssh-keys/config'),
      `Host da-server\n  HostName ${s.host}\n  Port ${s.port}\n  User ${s.user}\n  IdentityFile ${workspace}/ssh-keys/id\n  IdentitiesOnly yes\n  UserKnownHostsFile /dev/null\n  StrictHostKeyChecking no\n  LogLevel ERROR\n  BatchMode yes\n`,
    );
  });
  afterAll(() => fs.rmSync(workspace, { recursive: true, force: true }));

  it('arrive exactly and exported, and show in no command line here or there while the step runs', async () => {
    const nonce = `n${randomUUID().replace(/-/g, '')}`;
    const marker = `/tmp/da-remote-env-${nonce.slice(0, 12)}`;
    const piece = fc.oneof(fc.constantFrom("'", '"', ' ', '\n', '$', '`', '\\', '$(id)', '`id`', '%q', 'é', '🦀', 'REMOTE'), fc.string());
    const values: string[] = fc.sample(fc.array(piece, { maxLength: 8 }).map((p) => p.join('').replace(/\0/g, '')), 4);
    // SECRET_0 is the nonce alone: printf %q leaves it as it is, so a value on a command line, quoted or not, holds it.
    values.unshift(nonce);
    const names = values.map((_, i) => `SECRET_${i}`);
    const script = [
      // Each value as the server's shell has it and as a child process sees it.
      ...names.map((n) => `printf '%s %s %s\\n' ${n} "$(printf %s "$${n}" | base64 -w0)" "$(sh -c 'printf %s "$${n}"' | base64 -w0)"`),
      // Every command line on the server, read without putting the value in one.
      'held=0',
      // The nonce is not in the script (the step's own command line holds the script): it is SECRET_0's value.
      `for f in /proc/[0-9]*/cmdline; do c=$(tr '\\0' ' ' <"$f" 2>/dev/null) || continue; case "$c" in *"$SECRET_0"*) held=$((held + 1)) ;; esac; done`,
      'echo "held on the server: $held"',
      // Stay connected until the test has looked at this machine's command lines.
      `for _ in $(seq 600); do [ -e ${marker} ] && break; sleep 0.1; done`,
      `rm -f ${marker}`,
    ].join('\n');
    const step = spawn('bash', ['-c', strictScript(remote(script, names))], {
      cwd: workspace,
      env: { PATH: process.env.PATH, HOME: workspace, ...Object.fromEntries(names.map((n, i) => [n, values[i]!])) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    step.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    step.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const ended = new Promise<number | null>((resolve) => step.once('close', resolve));
    await found(() => (stdout.includes('held on the server:') ? true : undefined), 'the server to look at its command lines', 60_000);
    const here = localHolders(nonce);
    sshTo(s, `touch ${marker}`);
    expect(await settledWithin(ended, 'the step to end', 60_000)).toBe(0);
    expect(stderr).toBe('');
    expect(here).toEqual([]);
    expect(stdout).toContain('held on the server: 0\n');
    for (const [i, n] of names.entries()) expect(stdout).toContain(`${n} ${b64(values[i]!)} ${b64(values[i]!)}\n`);

    // The look on the server sees a value on a command line when there is one (the login shell's `-c`, kept
    // running by the `; true`; remote() used to put it there, and ssh's own command line held it all along).
    const scan = script.split('\n').filter((l) => !l.startsWith('printf') && !l.includes(marker)).join('\n');
    const old = spawnSync('bash', ['-c', strictScript(`ssh -F ssh-keys/config da-server "SECRET_0=$(printf %q "$SECRET_0") bash -s; true" <<'R'\n${scan}\nR`)], {
      cwd: workspace,
      env: { PATH: process.env.PATH, HOME: workspace, SECRET_0: nonce },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(old.stdout).toMatch(/held on the server: [1-9]/);
  });
});
