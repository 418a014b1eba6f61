import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxDriver, SandboxRef } from '../../../src/server/sandbox/driver';
import fc from 'fast-check';
import { waitFor } from './ptyHelpers';
import { processesHolding } from './processTable';
import { readZip, streamToBuffer } from './zipHelpers';
import { secretFinder } from '../../../src/server/sandbox/redactor';
import { secretSearchStrings } from '../../../src/server/sandbox/secretForms';
import { LEFT_OUT_NOTE_NAME, LEFT_OUT_TRAILER } from '../../../src/server/sandbox/workspaceLayout';

/** One driver under test, as each driver's contract file makes it. */
export interface ContractSubject {
  driver: SandboxDriver;
  /** DATA_DIR/sandboxes of the driver: `<projectId>/backups/` holds the archives. */
  root: string;
  /** Kills the archiver of a backup under way (for the drivers whose archiver is a process this host can see). */
  killArchiver?: (sandbox: SandboxRef) => boolean;
  /** Whether a fork bomb can be let loose (a process limit the sandbox cannot escape). */
  forkBomb?: boolean;
  /** Whether the archiver runs as the sandbox user (tar inside the sandbox), so that a file it cannot read fails it. */
  archiverIsSandboxUser?: boolean;
  /** After a stop: what makes the next start restore a backup (kubernetes keeps its claim: it is lost here). */
  loseWorkspace?: (sandbox: SandboxRef) => void;
}

/**
 * Kills (SIGKILL, by pid) the `tar` that archives this sandbox's workspace, when it runs on this host (the
 * local driver's, and the replayed cluster's execs); answers whether there was one.
 */
export function killHostTar(s: SandboxRef): boolean {
  const wanted = ['tar', '-czf', '-', '-C', `/home/${s.username}/workspace`, '.'].join('\0');
  for (const pid of fs.readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let cmdline: string;
    try {
      cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0$/, '');
    } catch {
      continue;
    }
    if (cmdline !== wanted) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
      return true;
    } catch {
      // gone already
    }
  }
  return false;
}

export const backupsOf = (root: string, s: SandboxRef): string[] => {
  const dir = path.join(root, String(s.projectId), 'backups');
  return fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
};

/** Pieces of secret values people type: quotes, newlines, expansions, flags, non-ASCII. */
const secretPiece = fc.oneof(
  fc.constantFrom("'", '"', '\n', '\r\n', '\t', ' ', '$', '`', '\\', '$(id)', '`id`', '${HOME}', '$1', '!', ';', '&&', '|', '*', '~', '#', '%s', '-p', '--password=', 'é', '日本', '🔑', '\u00a0'),
  fc.string({ unit: 'grapheme', maxLength: 8 }).filter((piece) => !piece.includes('\0')),
);

/**
 * A secret value around a token of its own (searched for, since quoting may change the rest of it on a
 * command line), sometimes long: past the 128 KiB one argv string may hold.
 */
const secretValue = fc
  .record({ head: fc.array(secretPiece, { maxLength: 10 }), tail: fc.array(secretPiece, { maxLength: 10 }), long: fc.boolean() })
  .map(({ head, tail, long }) => {
    const token = `tok-${randomUUID()}`;
    const end = tail.join('') || 'x';
    return { token, value: `${head.join('')}${token}${long ? end.repeat(Math.ceil(140_000 / end.length)) : tail.join('')}` };
  });

const singleQuoted = (value: string): string => `'${value.replace(/'/g, `'\\''`)}'`;
const sha256Of = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

async function sh(driver: SandboxDriver, s: SandboxRef, command: string): Promise<string> {
  const result = await driver.exec(s, command);
  if (result.exitCode !== 0) throw new Error(`${command} exited ${result.exitCode}: ${result.output}`);
  return result.output;
}

/**
 * The lifecycle rules every driver keeps (../../../src/server/sandbox/rules.ts), run against each driver
 * for real: a stop, a restart or a backup never loses files.
 */
export function driverContract(
  name: string,
  make: () => Promise<ContractSubject> | ContractSubject,
  cleanUp: () => Promise<void>,
  firstProjectId: number,
): void {
  describe(`${name}: the sandbox rules every driver keeps`, () => {
    let subject: ContractSubject;
    let driver: SandboxDriver;
    let next = firstProjectId;
    /** A project of its own for each case. */
    const fresh = async (): Promise<SandboxRef> => {
      const projectId = next++;
      // The installation part is this test process: killHostTar finds the archiver by its command line,
      // which must name this run's workspace, not that of a test run beside it.
      const s = { projectId, username: `user_${process.pid}_${projectId}` };
      await driver.initialise(s);
      return s;
    };

    beforeAll(async () => {
      subject = await make();
      driver = subject.driver;
    });
    afterAll(cleanUp);

    it('keeps a backup only once it reads back whole and lists the workspace, and restores it after a stop', async () => {
      const s = await fresh();
      await sh(driver, s, 'mkdir -p app && printf "kept\\n" > app/notes.txt && git add -A && git -c user.name=t -c user.email=t@t commit -qm notes');
      const { lastSyncTime } = await driver.backup(s);
      expect(await driver.lastBackupTime(s)).toEqual(lastSyncTime);
      const [file] = backupsOf(subject.root, s);
      expect(file).toBe(`backup-${lastSyncTime.getTime()}.tar.gz`);
      const listed = execFileSync('tar', ['-tzf', path.join(subject.root, String(s.projectId), 'backups', file!)]).toString();
      expect(listed).toContain('./app/notes.txt');

      await sh(driver, s, 'printf "after\\n" >> app/notes.txt');
      const stopped = await driver.stop(s);
      expect(stopped?.lastSyncTime).toBeInstanceOf(Date);
      expect(await driver.status(s)).not.toBe('Running');
      subject.loseWorkspace?.(s);
      await driver.start(s);
      expect(await sh(driver, s, 'cat app/notes.txt; git log --format=%s -1')).toBe('kept\nafter\nnotes\n');
      await driver.stop(s);
    });

    it('never backs up an empty workspace: the newest backup is kept and a stop removes nothing it needs', async () => {
      const s = await fresh();
      await sh(driver, s, 'echo one > one.txt');
      await driver.backup(s);
      const before = backupsOf(subject.root, s);
      await sh(driver, s, 'find . -mindepth 1 -delete; ls -A | wc -l');
      await expect(driver.backup(s)).rejects.toThrow('The workspace is empty; the newest backup is kept');
      expect(backupsOf(subject.root, s)).toEqual(before);
      // Nothing to keep: the stop goes ahead, and the start brings back the last good backup.
      expect(await driver.stop(s)).toBeNull();
      expect(backupsOf(subject.root, s)).toEqual(before);
      subject.loseWorkspace?.(s);
      await driver.start(s);
      expect(await sh(driver, s, 'cat one.txt')).toBe('one\n');
      await driver.stop(s);
    });

    it('aborts a stop whose backup fails: the sandbox keeps running with every file, and the last good backup stays newest', async () => {
      const s = await fresh();
      await sh(driver, s, 'echo good > good.txt');
      await driver.backup(s);
      const before = backupsOf(subject.root, s);
      await sh(driver, s, 'echo unreadable > locked.txt');
      // The backup cannot be written: its folder is not a folder.
      const dir = path.join(subject.root, String(s.projectId), 'backups');
      fs.renameSync(dir, `${dir}.aside`);
      fs.writeFileSync(dir, '');
      await expect(driver.stop(s)).rejects.toMatchObject({ code: 'backup_failed' });
      expect(await driver.status(s)).toBe('Running');
      fs.rmSync(dir);
      fs.renameSync(`${dir}.aside`, dir);
      expect(await sh(driver, s, 'cat good.txt locked.txt')).toBe('good\nunreadable\n');
      if (subject.archiverIsSandboxUser) {
        // A file the archiver cannot read: tar fails, so no archive may count.
        await sh(driver, s, 'chmod 000 locked.txt');
        await expect(driver.stop(s)).rejects.toMatchObject({ code: 'backup_failed' });
        expect(await driver.status(s)).toBe('Running');
        expect(await sh(driver, s, 'ls')).toContain('locked.txt');
        await sh(driver, s, 'chmod 600 locked.txt');
      }
      expect(backupsOf(subject.root, s)).toEqual(before);
      expect(await driver.stop(s)).not.toBeNull();
      await driver.start(s);
      expect(await sh(driver, s, 'cat locked.txt good.txt')).toBe('unreadable\ngood\n');
      await driver.stop(s);
    });

    it('keeps the last good backup when a restore fails, and says which one failed', async () => {
      const s = await fresh();
      await sh(driver, s, 'echo precious > precious.txt');
      await driver.stop(s);
      subject.loseWorkspace?.(s);
      const [name] = backupsOf(subject.root, s);
      const file = path.join(subject.root, String(s.projectId), 'backups', name!);
      const good = fs.readFileSync(file);
      // The disk under the backups spoiled it after it was written.
      fs.writeFileSync(file, good.subarray(0, Math.floor(good.length / 2)));
      const failure = driver.start(s);
      await expect(failure).rejects.toThrow(/Restoring the backup of \S+ failed .*kept and nothing was removed/s);
      expect(await driver.status(s)).not.toBe('Running');
      expect(backupsOf(subject.root, s)).toEqual([name]);
      fs.writeFileSync(file, good);
      await driver.start(s);
      expect(await sh(driver, s, 'cat precious.txt')).toBe('precious\n');
      await driver.stop(s);
    });

    it('keeps the workspace when the archiver is killed mid-backup, and leaves no partial archive behind as a backup', async () => {
      if (!subject.killArchiver) return;
      const s = await fresh();
      await sh(driver, s, 'echo small > small.txt');
      await driver.backup(s);
      const before = backupsOf(subject.root, s);
      await sh(driver, s, 'head -c 40000000 /dev/urandom > big.bin');
      const backup = driver.backup(s);
      const deadline = Date.now() + 30_000;
      while (!subject.killArchiver(s)) {
        if (Date.now() > deadline) throw new Error('the archiver never showed');
        await new Promise((r) => setTimeout(r, 5));
      }
      await expect(backup).rejects.toThrow();
      expect(backupsOf(subject.root, s)).toEqual(before);
      expect(await sh(driver, s, 'stat -c %s big.bin; cat small.txt')).toBe('40000000\nsmall\n');
      expect(await driver.stop(s)).not.toBeNull();
      await driver.start(s);
      expect(await sh(driver, s, 'stat -c %s big.bin; cat small.txt')).toBe('40000000\nsmall\n');
      await driver.stop(s);
    });

    it('stops a sandbox whose process slots a fork bomb took, keeping every file', async () => {
      if (!subject.forkBomb) return;
      const s = await fresh();
      await sh(driver, s, 'echo survives > survives.txt && git add -A && git -c user.name=t -c user.email=t@t commit -qm survives');
      const shell = driver.shell(s, { cols: 80, rows: 24 });
      await waitFor(shell, /\$ $/);
      shell.write('bomb() { bomb | bomb & }; bomb\n');
      await new Promise((r) => setTimeout(r, 3_000));
      // The slots are taken: a new command cannot start, or cannot fork once started.
      const starved = await driver.exec(s, 'ls >/dev/null && echo ran', { timeoutMs: 15_000 }).then(
        (r) => r.output.includes('ran') && r.exitCode === 0,
        () => false,
      );
      expect(starved).toBe(false);
      const stopped = await driver.stop(s);
      expect(stopped).not.toBeNull();
      const [newest] = backupsOf(subject.root, s).slice(-1);
      expect(fs.statSync(path.join(subject.root, String(s.projectId), 'backups', newest!)).size).toBeGreaterThan(100);
      await driver.start(s);
      expect(await sh(driver, s, 'cat survives.txt; git log --format=%s -1')).toBe('survives\nsurvives\n');
      await driver.stop(s);
    });

    it("runs a step's command from stdin: while it runs no process on the host holds its text in its command line or environment", async () => {
      const s = await fresh();
      /** Runs `command` (which prints `ready` then waits for `release`), reads the process table while it waits. */
      const heldWhileRunning = async (command: string, release: string, token: string) => {
        let output = '';
        let ready: () => void = () => undefined;
        const waiting = new Promise<void>((resolve) => (ready = resolve));
        const done = driver.exec(s, command, {
          onOutput: (chunk) => {
            output += chunk;
            if (output.startsWith('ready\n')) ready();
          },
        });
        await Promise.race([waiting, done]);
        const seen = processesHolding(Buffer.from(token, 'utf8'));
        await sh(driver, s, `touch ${release}`);
        return { seen, result: await done };
      };

      // The control: the same search finds a value that a sandbox process does hold on its command line.
      const [control] = fc.sample(secretValue.filter(({ value }) => value.length < 10_000), { numRuns: 1, seed: 7 });
      const held = await heldWhileRunning(
        `bash -c 'printf "ready\\n"; until [ -e "$1" ]; do sleep 0.05; done; rm -f -- "$1"' hold .release-control ${singleQuoted(control!.value)}`,
        '.release-control',
        control!.token,
      );
      expect(held.result.exitCode).toBe(0);
      expect(held.seen.map((sighting) => sighting.file)).toContain('cmdline');

      await fc.assert(
        fc.asyncProperty(secretValue, async ({ token, value }) => {
          const release = `.release-${token}`;
          const command = `v=${singleQuoted(value)}; printf 'ready\\n'; until [ -e ${release} ]; do sleep 0.05; done; rm -f ${release}; printf %s "$v" | sha256sum | cut -d' ' -f1`;
          const { seen, result } = await heldWhileRunning(command, release, token);
          expect(seen).toEqual([]);
          // The command ran as typed: the value's every byte reached the shell.
          expect(result).toMatchObject({ exitCode: 0, output: `ready\n${sha256Of(value)}\n` });
        }),
        { numRuns: 8 },
      );
    });

    it("keeps a file a step wrote a secret value into out of the step's commit and out of both downloads, naming it", async () => {
      const s = await fresh();
      const value = 'Contract-Qx7Lm9Zt2-pw';
      await driver.exec(s, `printf 'password: %s\\n' "$POSTGRES_PASSWORD" > app.conf; printf 'listen: 5432\\n' > plain.conf`, { env: { POSTGRES_PASSWORD: value } });
      await driver.commitStep(s, 1, 'write the config', secretSearchStrings([value]));
      const log = await sh(driver, s, 'git log -p --format=%B -1');
      expect(log).not.toContain(value);
      expect(log).toContain(`${LEFT_OUT_TRAILER}: app.conf`);
      expect(log).toContain('listen: 5432');
      const holdsSecret = secretFinder([value]);
      for (const zip of [await driver.zipWorkspace(s, { holdsSecret }), await driver.zipFolder(s, '', { holdsSecret })]) {
        const entries = await readZip(await streamToBuffer(zip));
        expect(entries.has('app.conf')).toBe(false);
        expect(entries.has('plain.conf')).toBe(true);
        expect(entries.get(LEFT_OUT_NOTE_NAME)!.data.toString().split('\n')).toContain('app.conf');
      }
    });
  });
}
