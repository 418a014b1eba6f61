import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { SandboxDriver, SandboxRef } from '../../../src/server/sandbox/driver';
import { createLocalDriver } from '../../../src/server/sandbox/local/localDriver';
import { slirpAvailable } from '../../../src/server/sandbox/local/userNetwork';
import { processesWith } from '../helpers/processes';
import { settledWithin, until } from '../helpers/until';
import { probeMemoryCgroups } from '../../../src/server/sandbox/local/memoryCgroup';
import { asOtherUser, asRoot, modesUnder } from '../helpers/fileAccess';
import { waitFor } from './ptyHelpers';
import { readZip, streamToBuffer } from './zipHelpers';

const limits = { network: true, memoryMb: 8192, maxProcesses: 256, cpuSeconds: 600 };

describe('local sandbox driver (bubblewrap, for real)', () => {
  let dataDir: string;
  let driver: SandboxDriver;
  const one: SandboxRef = { projectId: 1, username: 'user_7_1' };
  const two: SandboxRef = { projectId: 2, username: 'user_8_2' };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-sandbox-'));
    fs.writeFileSync(path.join(dataDir, 'server-secret.key'), 'server-private-key-material');
    driver = createLocalDriver({ root: path.join(dataDir, 'sandboxes'), limits, uidBase: 200_000, execTimeoutMs: 30_000 });
    await driver.initialise(one);
    await driver.initialise(two);
  });
  afterAll(async () => {
    await driver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  describe('layout', () => {
    it('is Running with a git workspace at /home/{username}/workspace holding ssh-keys, terraform and ansible', async () => {
      expect(await driver.status(one)).toBe('Running');
      const result = await driver.exec(one, 'pwd; whoami; ls -A; stat -c %a ssh-keys; git log --format=%s');
      expect(result.exitCode).toBe(0);
      const lines = result.output.trim().split('\n');
      expect(lines[0]).toBe('/home/user_7_1/workspace');
      expect(lines[1]).toBe('user_7_1');
      expect(lines.slice(2, 7).sort()).toEqual(['.git', '.gitignore', 'ansible', 'ssh-keys', 'terraform']);
      expect(lines).toContain('700');
      expect(lines).toContain('Workspace created');
    });

    it('keeps ~/.ssh across commands: it is the workspace ssh-keys folder, outside the history', async () => {
      const first = await driver.exec(one, 'mkdir -p ~/.ssh && chmod 700 ~/.ssh && ssh-keygen -q -t ed25519 -N "" -C deploy -f ~/.ssh/deploy_key && echo made');
      expect(first).toMatchObject({ exitCode: 0, output: 'made\n' });
      // A later command (a new sandbox process with a fresh home) still finds the key, in ssh-keys.
      const later = await driver.exec(one, 'test -f ~/.ssh/deploy_key && ls ssh-keys && git status --porcelain --ignored ssh-keys');
      expect(later.exitCode).toBe(0);
      expect(later.output).toContain('deploy_key\ndeploy_key.pub\n');
      expect(later.output).toContain('!! ssh-keys/');
      // The link is resolved inside the sandbox: pointing ssh-keys elsewhere shows nothing of the host.
      const moved = await driver.exec(one, 'mv ssh-keys keys.bak && ln -s / ssh-keys && ls ~/.ssh/ | head -3; rm ssh-keys && mv keys.bak ssh-keys');
      expect(moved.output).not.toContain('server-secret.key');
      expect((await driver.exec(one, 'ls ~/.ssh')).output).toContain('deploy_key');
    });

    it('initialising again changes nothing', async () => {
      await driver.exec(one, 'echo keep > keep.txt');
      await driver.initialise(one);
      expect((await driver.exec(one, 'cat keep.txt')).output).toBe('keep\n');
    });
  });

  describe('exec', () => {
    it('streams stdout and stderr and answers the exit code', async () => {
      const chunks: string[] = [];
      const result = await driver.exec(one, 'echo out; echo err >&2; exit 3', { onOutput: (c) => chunks.push(c) });
      expect(result).toMatchObject({ exitCode: 3, timedOut: false, cancelled: false });
      expect(result.output).toContain('out\n');
      expect(result.output).toContain('err\n');
      expect(chunks.join('')).toBe(result.output);
    });

    it('passes environment variables and redacts secrets and their base64 from the output', async () => {
      const canary = 'canary-secret-5d1e2f';
      const chunks: string[] = [];
      const result = await driver.exec(one, 'echo "value=$API_TOKEN"; printf %s "$API_TOKEN" | base64; echo "$API_TOKEN" >&2', {
        env: { API_TOKEN: canary },
        secrets: [canary],
        onOutput: (c) => chunks.push(c),
      });
      expect(result.exitCode).toBe(0);
      expect(result.output).toContain('value=[REDACTED]');
      expect(result.output).not.toContain(canary);
      expect(result.output).not.toContain(Buffer.from(canary).toString('base64'));
      expect(chunks.join('')).not.toContain(canary);
    });

    it('kills a command at its timeout', async () => {
      // A limit a busy machine's sandbox start (bwrap, its network) fits well within; a sleep no test waits out.
      const sleep = `600.${process.pid}1`;
      const result = await driver.exec(one, `echo started; sleep ${sleep}; echo never`, { timeoutMs: 3_000 });
      expect(result).toMatchObject({ exitCode: null, timedOut: true });
      expect(result.output).toBe('started\n');
      await until(() => processesWith(['sleep', sleep]).length === 0, 'the timed-out sleep to end');
    });

    it('kills a command and everything it started when its signal aborts', async () => {
      const controller = new AbortController();
      // Aborted once both sleeps run; neither would end by itself while the test runs.
      const [background, foreground] = [`600.${process.pid}2`, `600.${process.pid}3`];
      const pending = driver.exec(one, `(sleep ${background} &) ; echo started; sleep ${foreground}`, {
        signal: controller.signal,
        onOutput: (chunk) => {
          if (chunk.includes('started')) controller.abort();
        },
      });
      const result = await pending;
      expect(result).toMatchObject({ exitCode: null, cancelled: true });
      await until(() => processesWith(['sleep', background]).length + processesWith(['sleep', foreground]).length === 0, 'both sleeps to end');
    });

    it('refuses to run in a stopped sandbox', async () => {
      const stopped: SandboxRef = { projectId: 99, username: 'user_9_99' };
      await expect(driver.exec(stopped, 'true')).rejects.toThrow('not running');
      expect(await driver.status(stopped)).toBe('NotRunning');
    });
  });

  describe('isolation', () => {
    it('cannot see or read the data directory, the server key or the database', async () => {
      const result = await driver.exec(one, `cat ${dataDir}/server-secret.key; ls ${dataDir}; find / -xdev -name 'server-secret.key' 2>/dev/null; ls /`);
      expect(result.output).not.toContain('server-private-key-material');
      expect(result.output).toMatch(/No such file or directory/);
      expect(result.output).not.toContain('server-secret.key\n');
      expect(result.output.split('\n')).not.toContain('work');
    });

    it("cannot see another project's workspace", async () => {
      await driver.exec(two, 'echo project-two-private > private.txt');
      const hostPath = path.join(dataDir, 'sandboxes', '2', 'workspace', 'private.txt');
      const result = await driver.exec(one, `cat ${hostPath}; cat /home/user_8_2/workspace/private.txt; grep -rs project-two-private /home /tmp /var /run; ls /home`);
      expect(result.output).not.toContain('project-two-private');
      expect(result.output.trim().split('\n').pop()).toBe('user_7_1');
    });

    it("cannot see the server's processes or their environment (/proc)", async () => {
      process.env.DA_SERVER_CANARY = 'server-env-canary-91b2';
      try {
        // The server's own environ is not there: its error goes to stdout so it comes before the count, not racing it.
        const result = await driver.exec(one, `ls /proc | grep -E '^[0-9]+$' | wc -l; cat /proc/1/cmdline | tr '\\0' ' '; echo; cat /proc/${process.pid}/environ 2>&1; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c DA_SERVER_CANARY`);
        const lines = result.output.trim().split('\n');
        expect(Number(lines[0])).toBeLessThan(10);
        expect(lines[1]).toMatch(/bwrap|bash/);
        expect(result.output).not.toContain('server-env-canary-91b2');
        expect(result.output).not.toMatch(/jest|node /);
        expect(lines[lines.length - 1]).toBe('0');
      } finally {
        delete process.env.DA_SERVER_CANARY;
      }
    });

    it('cannot write to /usr or /etc, and runs without capabilities', async () => {
      const result = await driver.exec(one, 'touch /usr/pwned; echo "rc=$?"; echo x >> /etc/hosts; echo "rc=$?"; grep CapEff /proc/self/status');
      expect(result.output).toMatch(/Read-only file system/);
      expect(result.output).toContain('rc=1');
      expect(result.output).not.toContain('rc=0');
      expect(result.output).toMatch(/CapEff:\s+0+\n/);
      expect(fs.existsSync('/usr/pwned')).toBe(false);
    });

    (asRoot ? it : it.skip)("keeps the data directory from another local user and another project's uid, and still reaches its workspace", async () => {
      expect((await driver.exec(one, 'echo private-note > note.txt && cat note.txt')).output).toBe('private-note\n');
      const sandboxes = path.join(dataDir, 'sandboxes');
      expect(Object.entries(modesUnder(sandboxes)).filter(([, mode]) => mode !== '700' && mode !== '600')).toEqual([]);
      fs.chmodSync(dataDir, 0o755); // even were DATA_DIR itself open, what the driver made stays closed
      try {
        for (const uid of [65534, 200_002]) {
          for (const argv of [['ls', sandboxes], ['cat', path.join(sandboxes, '1', 'etc', 'passwd')], ['cat', path.join(sandboxes, '1', 'workspace', 'note.txt')]]) {
            expect({ uid, argv, output: asOtherUser(argv, uid).output }).toEqual({ uid, argv, output: expect.stringMatching(/Permission denied/) });
          }
        }
      } finally {
        fs.chmodSync(dataDir, 0o700);
      }
    });

    it('cannot make nested user namespaces (bwrap --disable-userns): unshare -Ur gives no uid 0', async () => {
      // Errors into stdout: the combined output keeps the two streams' order only within each one.
      const result = await driver.exec(one, 'unshare -Ur id -u 2>&1; echo "rc=$?"; unshare -U true 2>&1; echo "rc=$?"; id -u');
      expect(result.output).not.toMatch(/^0$/m);
      expect(result.output).not.toContain('rc=0');
      expect(result.output.trim().split('\n').pop()).toBe('1000');
    });

    it('applies the process, memory and CPU limits', async () => {
      const result = await driver.exec(one, 'ulimit -v; ulimit -t; ulimit -u');
      const [memory, cpu, processes] = result.output.trim().split('\n');
      // The memory limit is the sandbox's cgroup where there is one (memoryLimit.test.ts), else per process.
      if (probeMemoryCgroups(8192).cgroups) expect(memory).toBe('unlimited');
      else expect(Number(memory)).toBe(8192 * 1024);
      expect(Number(cpu)).toBe(600);
      if (process.getuid?.() === 0) expect(Number(processes)).toBe(256);
    });

    /** A host address that is not loopback (the sandbox's way out), or null on a machine without one. */
    const externalAddress = (): string | null =>
      Object.values(os.networkInterfaces())
        .flat()
        .find((a) => a && a.family === 'IPv4' && !a.internal)?.address ?? null;

    /** A TCP server on the host answering one line; closed by the returned function. */
    const hostServer = async (host: string): Promise<{ port: number; close(): void }> => {
      const server = net.createServer((socket) => socket.end('hello-from-host\n'));
      await new Promise<void>((resolve) => server.listen(0, host, resolve));
      return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
    };
    const probe = (host: string, port: number): string => `timeout 5 bash -c 'exec 3<>/dev/tcp/${host}/${port} && head -n1 <&3'`;

    it('has a network of its own (slirp4netns) that reaches out but not the host loopback or its other addresses; none when configured off', async () => {
      if (process.env.CI) expect(slirpAvailable()).toBe(true);
      const loopback = await hostServer('127.0.0.1');
      const address = externalAddress();
      const outside = address ? await hostServer(address) : null;
      try {
        const own = slirpAvailable();
        const toLoopback = await driver.exec(one, `${probe('127.0.0.1', loopback.port)}; ${probe('10.0.2.2', loopback.port)}`);
        if (own) {
          expect(toLoopback.output).not.toContain('hello-from-host');
          const setup = await driver.exec(one, 'cat /etc/resolv.conf; cut -f1 /proc/net/route | sort -u');
          expect(setup.output).toContain('nameserver 10.0.2.3');
          expect(setup.output).toContain('tap0');
        } else {
          expect(toLoopback.output).toContain('hello-from-host');
        }
        // The host's other addresses are its own too: refused inside the sandbox (localEgress.test.ts).
        if (outside && address && own) expect((await driver.exec(one, probe(address, outside.port))).output).not.toContain('hello-from-host');

        const offline = createLocalDriver({
          root: path.join(dataDir, 'sandboxes'),
          limits: { ...limits, network: false },
          uidBase: 200_000,
          execTimeoutMs: 30_000,
        });
        const result = await offline.exec(one, `${probe('127.0.0.1', loopback.port)}; ${address && outside ? probe(address, outside.port) : 'false'}`);
        expect(result.exitCode).not.toBe(0);
        expect(result.output).not.toContain('hello-from-host');
        await offline.close();
      } finally {
        loopback.close();
        outside?.close();
      }
    });

    it('gives the interactive shell the same network', async () => {
      if (!slirpAvailable()) return;
      const loopback = await hostServer('127.0.0.1');
      const shell = driver.shell(one, { cols: 200, rows: 24 });
      try {
        shell.write(`cut -f1 /proc/net/route | sort -u | tr '\\n' ' '; echo; ${probe('10.0.2.2', loopback.port)} || echo loopback-$((1+1))-refused\r`);
        const seen = await waitFor(shell, /loopback-2-refused/);
        expect(seen).toContain('tap0');
        expect(seen).not.toContain('hello-from-host');
      } finally {
        shell.kill();
        loopback.close();
      }
    });
  });

  describe('shutdown', () => {
    it('close ends every command, shell and slirp4netns and waits for them; killAll ends them at once; nothing starts after', async () => {
      const ref: SandboxRef = { projectId: 5, username: 'user_9_5' };
      const own = createLocalDriver({ root: path.join(dataDir, 'sandboxes'), limits, uidBase: 200_000, execTimeoutMs: 60_000 });
      await own.initialise(ref);
      const running = own.exec(ref, 'echo started; sleep 300');
      const shell = own.shell(ref, { cols: 80, rows: 24 });
      await waitFor(shell, /\$ $/);
      const shellExit = new Promise((resolve) => shell.onExit(resolve));
      own.killAll!();
      // Each wait is named: a hang (one run beside another suite timed out here once) says which it was.
      expect(await settledWithin(running, 'the command to end after killAll')).toMatchObject({ exitCode: null });
      await settledWithin(shellExit, 'the shell to exit after killAll');
      expect(() => own.shell(ref, { cols: 80, rows: 24 })).toThrow('shutting down');
      await expect(own.exec(ref, 'true')).rejects.toThrow('shutting down');
      await settledWithin(own.close(), 'close after killAll');

      const again = createLocalDriver({ root: path.join(dataDir, 'sandboxes'), limits, uidBase: 200_000, execTimeoutMs: 60_000 });
      const step = again.exec(ref, 'sleep 300');
      const pty = again.shell(ref, { cols: 80, rows: 24 });
      await waitFor(pty, /\$ $/);
      const closed = again.close();
      expect(await settledWithin(step, 'the command to end on close')).toMatchObject({ exitCode: null });
      await settledWithin(closed, 'close to end every process');
      // No slirp4netns of this driver's left: every one the test process started has been reaped.
      const slirps = fs.readdirSync('/proc').filter((pid) => {
        try {
          return /^\d+$/.test(pid) && fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'slirp4netns' && fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1] === String(process.pid);
        } catch {
          return false;
        }
      });
      expect(slirps).toEqual([]);
    });
  });

  describe('interactive shell', () => {
    it('runs commands typed into the pty, resizes, and Ctrl-C interrupts the foreground program', async () => {
      const shell = driver.shell(one, { cols: 80, rows: 24 });
      try {
        shell.write('echo $((6*7))-answer\r');
        await waitFor(shell, /42-answer/);
        shell.resize(120, 40);
        shell.write('stty size\r');
        await waitFor(shell, /40 120/);
        const marker = `600.${process.pid}`;
        shell.write(`sleep ${marker}; echo slept\r`);
        await until(() => processesWith(['sleep', marker]).length === 1, 'the sleep to run in the foreground');
        shell.write('\x03');
        shell.write('echo after-interrupt\r');
        // The output line of its own, not the terminal's echo of the typed command ("echo after-interrupt"), which
        // comes back while the sleep still runs.
        const seen = await waitFor(shell, /[\r\n]after-interrupt\r?\n/);
        // The shell answered the next command: the sleep (600 s, never waited out) was interrupted.
        expect(processesWith(['sleep', marker])).toEqual([]);
        // The typed line may still be echoed after this point ("sleep …; echo slept"): only a line of its own is the output.
        expect(seen).not.toMatch(/^slept\r?$/m);
      } finally {
        shell.kill();
      }
    });
  });

  describe('backup, stop and start', () => {
    it('keeps the workspace across a stop and start through the newest backup', async () => {
      const ref: SandboxRef = { projectId: 3, username: 'user_7_3' };
      await driver.initialise(ref);
      expect(await driver.lastBackupTime(ref)).toBeNull();
      await driver.exec(ref, 'mkdir -p terraform/env && echo "resource {}" > terraform/env/main.tf && echo key > ssh-keys/id_ed25519');
      await driver.commitStep(ref, 1, 'terraform init');
      const shell = driver.shell(ref, { cols: 80, rows: 24 });
      const exited = new Promise((resolve) => shell.onExit(resolve));
      const { lastSyncTime } = await driver.backup(ref);
      expect(await driver.lastBackupTime(ref)).toEqual(lastSyncTime);

      await driver.stop(ref);
      await exited;
      expect(await driver.status(ref)).toBe('NotRunning');
      expect(fs.existsSync(path.join(dataDir, 'sandboxes', '3', 'workspace'))).toBe(false);
      await expect(driver.backup(ref)).rejects.toThrow('not running');

      await driver.start(ref);
      expect(await driver.status(ref)).toBe('Running');
      const result = await driver.exec(ref, 'cat terraform/env/main.tf ssh-keys/id_ed25519; git log --format=%s');
      expect(result.output).toBe('resource {}\nkey\nStep 1: terraform init\nWorkspace created\n');
    });

    it('keeps the three newest backups', async () => {
      const ref: SandboxRef = { projectId: 4, username: 'user_7_4' };
      await driver.initialise(ref);
      for (let i = 0; i < 5; i++) {
        await driver.backup(ref);
        // Backups are named by their millisecond: the next one gets a name of its own.
        const last = (await driver.lastBackupTime(ref))!.getTime();
        await until(() => Date.now() > last, 'the clock to pass the last backup');
      }
      expect(fs.readdirSync(path.join(dataDir, 'sandboxes', '4', 'backups'))).toHaveLength(3);
    });
  });

  describe('history', () => {
    it('commits each step with its number and command and reads them newest first', async () => {
      const ref: SandboxRef = { projectId: 5, username: 'user_7_5' };
      await driver.initialise(ref);
      await driver.exec(ref, 'echo a > ansible/hosts');
      const sha = await driver.commitStep(ref, 1, 'ansible-playbook -i ansible/hosts site.yml');
      await driver.commitStep(ref, 2, 'echo "multi\nline" && true');
      const history = await driver.history(ref);
      expect(history).toHaveLength(3);
      expect(history[0]).toMatchObject({ step_number: 2, command: 'echo "multi\nline" && true', message: 'Step 2: echo "multi' });
      expect(history[1]).toMatchObject({ sha, step_number: 1, command: 'ansible-playbook -i ansible/hosts site.yml' });
      expect(history[2]).toMatchObject({ step_number: null, command: null, message: 'Workspace created' });
      expect(new Date(history[0]!.created_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    });

    it('never runs git hooks planted in the workspace on the host', async () => {
      const ref: SandboxRef = { projectId: 6, username: 'user_7_6' };
      await driver.initialise(ref);
      const marker = path.join(dataDir, 'hook-ran');
      await driver.exec(ref, `printf '#!/bin/sh\\ntouch ${marker}\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit`);
      await driver.commitStep(ref, 1, 'true');
      expect(fs.existsSync(marker)).toBe(false);
    });
  });

  describe('zips', () => {
    it('zips the workspace with files, folders and symlinks stored as links, not followed', async () => {
      await driver.exec(one, 'mkdir -p terraform/mod && echo "hello zip" > terraform/mod/a.tf && ln -sf /etc/shadow escape-link && head -c 300000 /dev/urandom > big.bin');
      const entries = await readZip(await streamToBuffer(await driver.zipWorkspace(one)));
      expect(entries.get('terraform/mod/a.tf')!.data.toString()).toBe('hello zip\n');
      expect(entries.has('ansible/')).toBe(true);
      expect(entries.has('.git/HEAD')).toBe(true);
      expect(entries.get('big.bin')!.data).toHaveLength(300_000);
      const link = entries.get('escape-link')!;
      expect(link.mode & 0o170000).toBe(0o120000);
      expect(link.data.toString()).toBe('/etc/shadow');
    });

    it('zips one folder with names relative to it', async () => {
      const entries = await readZip(await streamToBuffer(await driver.zipFolder(one, 'terraform')));
      expect(entries.get('mod/a.tf')!.data.toString()).toBe('hello zip\n');
      expect([...entries.keys()].some((k) => k.startsWith('terraform/'))).toBe(false);
    });

    it('refuses a folder that is a symlink leading out of the workspace, and a missing one', async () => {
      await driver.exec(one, 'ln -sfn / root-link; ln -sfn /home/user_7_1 home-link');
      await expect(driver.zipFolder(one, 'root-link')).rejects.toMatchObject({ code: 'outside_workspace' });
      await expect(driver.zipFolder(one, 'home-link')).rejects.toMatchObject({ code: 'outside_workspace' });
      await expect(driver.zipFolder(one, 'no/such/folder')).rejects.toMatchObject({ code: 'not_found' });
    });
  });
});
