import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxDriver, SandboxRef } from '../../../src/server/sandbox/driver';
import { createLocalDriver } from '../../../src/server/sandbox/local/localDriver';
import { secretFinder } from '../../../src/server/sandbox/redactor';
import { secretSearchStrings } from '../../../src/server/sandbox/secretForms';
import { LEFT_OUT_NOTE_NAME, LEFT_OUT_TRAILER } from '../../../src/server/sandbox/workspaceLayout';
import { readZip, streamToBuffer } from './zipHelpers';

const limits = { network: false, memoryMb: 8192, maxProcesses: 256, cpuSeconds: 600 };
const PASSWORD = 'Canary-p@ss/Qx7Lm9Zt2';

/**
 * Files a step writes a secret value into (not `.env`: an app.conf, a Caddyfile) stay out of the step
 * history and out of downloads, on the local driver for real: bubblewrap, git and tar inside it.
 */
describe('files holding a secret value, on the local driver', () => {
  let dataDir: string;
  let driver: SandboxDriver;
  const ref: SandboxRef = { projectId: 41, username: 'user_9_41' };
  /** Runs a shell command in the sandbox and answers its raw output (no redaction: the test looks for leaks). */
  const sh = async (command: string): Promise<string> => (await driver.exec(ref, command, { env: { POSTGRES_PASSWORD: PASSWORD } })).output;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-secret-files-'));
    driver = createLocalDriver({ root: path.join(dataDir, 'sandboxes'), limits, uidBase: 210_000, execTimeoutMs: 30_000 });
    await driver.initialise(ref);
    await sh(
      [
        `printf 'password: %s\\n' "$POSTGRES_PASSWORD" > app.conf`,
        `printf 'postgres://app:%s@db/app\\n' "$(jq -rn --arg v "$POSTGRES_PASSWORD" '$v|@uri')" > dsn.txt 2>/dev/null || printf 'postgres://app:Canary-p%%40ss%%2FQx7Lm9Zt2@db/app\\n' > dsn.txt`,
        `printf %s "$POSTGRES_PASSWORD" | xxd -p > key.hex`,
        `printf %s "$POSTGRES_PASSWORD" | cut -c8-19 > piece.txt`,
        `printf 'listen: 5432\\nuser: stack_postgres_1\\n' > plain.conf`,
      ].join('; '),
    );
    await driver.commitStep(ref, 1, 'write the app config', secretSearchStrings([PASSWORD]));
  });
  afterAll(async () => {
    await driver.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves them out of the step commit, names them in it, and keeps them in the workspace', async () => {
    const log = await sh('git log -p --all --format=%B');
    expect(log).not.toContain(PASSWORD);
    expect(log).not.toContain(PASSWORD.slice(7, 19));
    expect(log).toContain('listen: 5432');
    for (const name of ['app.conf', 'dsn.txt', 'key.hex', 'piece.txt']) expect(log).toContain(`${LEFT_OUT_TRAILER}: ${name}`);
    expect(log).not.toContain(`${LEFT_OUT_TRAILER}: plain.conf`);
    expect(await sh('cat app.conf')).toBe(`password: ${PASSWORD}\n`);
  });

  it('leaves them out of both downloads and lists them in the note inside the archive; all of them when asked for', async () => {
    const holdsSecret = secretFinder([PASSWORD]);
    for (const zip of [await driver.zipWorkspace(ref, { holdsSecret }), await driver.zipFolder(ref, '', { holdsSecret })]) {
      const entries = await readZip(await streamToBuffer(zip));
      expect([...entries.keys()].filter((name) => ['app.conf', 'dsn.txt', 'key.hex', 'piece.txt'].includes(name))).toEqual([]);
      expect(entries.get('plain.conf')!.data.toString()).toContain('stack_postgres_1');
      const note = entries.get(LEFT_OUT_NOTE_NAME)!.data.toString();
      for (const name of ['app.conf', 'dsn.txt', 'key.hex', 'piece.txt']) expect(note.split('\n')).toContain(name);
      for (const [, entry] of entries) expect(entry.data.toString('latin1')).not.toContain(PASSWORD);
    }
    const all = await readZip(await streamToBuffer(await driver.zipWorkspace(ref, { holdsSecret, includeSecrets: true })));
    expect(all.get('app.conf')!.data.toString()).toBe(`password: ${PASSWORD}\n`);
  });
});
