import { spawnSync } from 'node:child_process';
import { eq } from 'drizzle-orm';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { backupScript, backupSources, type BackupPaths } from '../../../src/server/agents/offline/backupScripts';
import { PRODUCTS } from '../../../src/server/agents/offline/knowledge';
import { backupRuns, installations, projects, users } from '../../../src/server/db/schema';
import { createBackupWatch } from '../../../src/server/services/backups/backupWatch';
import type { Notice } from '../../../src/server/services/notifications/notificationService';
import type { SandboxExec } from '../../../src/server/services/releases/onServer';
import type { SleepingSandbox } from '../../../src/server/services/sandbox/wakeSandbox';
import type { SandboxInitializeResponse } from '../../../src/shared/api/sandbox';
import type { ContainerStatusName } from '../../../src/shared/constants/sandbox';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * A nightly backup that fails on the server reaches the records and the person without a drill: the real
 * backup script, run as cron runs it, fails (here before it can read its settings) and still writes its
 * last result; the watch reads that file with its read-only command (run here by bash where the sandbox
 * would run it over SSH), records the failed run in words and notifies once, however often it reads.
 */

const isRoot = process.getuid?.() === 0;
const eqProject = (id: number) => eq(backupRuns.projectId, id);

/** The script inside the sandbox command (the here-document sent to the server over SSH). */
const remoteScript = (command: string): string => {
  const tag = /<<'(\w+)'\n/.exec(command)![1]!;
  return command.slice(command.indexOf(`<<'${tag}'\n`) + tag.length + 5, command.lastIndexOf(`\n${tag}`));
};

(isRoot ? describe : describe.skip)('failed nightly backups are read from the server', () => {
  let database: TestDatabase;
  let dir: string;
  let paths: BackupPaths;
  const notices: Array<{ projectId: number; notice: Notice }> = [];
  const commands: string[] = [];
  // Stopped when the watch first reads: it is woken (initialised) before the read, as a drift check wakes it.
  const state = { status: 'NotRunning' as ContainerStatusName, initialised: 0 };
  const sandbox: SandboxExec & SleepingSandbox = {
    containerStatus: async () => ({ container_status: state.status, username: 'u', last_sync_time: null }),
    initialise: async () => {
      state.initialised += 1;
      state.status = 'Running';
      const started: SandboxInitializeResponse = { status: 'success', detail: '' };
      return started;
    },
    // Nothing else uses it: the watch puts the sandbox it woke back to sleep after its read.
    activity: () => ({ running: 0, started: 0 }),
    stop: async () => {
      state.status = 'NotRunning';
      return { container_status: state.status, message: 'Sandbox stopped' };
    },
    async exec(_project, command) {
      if (state.status !== 'Running') throw new Error('the sandbox is not running');
      commands.push(command);
      const r = spawnSync('bash', ['-c', remoteScript(command)], { encoding: 'utf8' });
      return { exitCode: r.status, output: `${r.stdout}${r.stderr}`, timedOut: false, cancelled: false } as Awaited<ReturnType<SandboxExec['exec']>>;
    },
  };

  beforeAll(async () => {
    database = await openTestDatabase('pglite');
    dir = mkdtempSync(path.join(tmpdir(), 'da-backup-watch-'));
    paths = { etc: path.join(dir, 'etc'), state: path.join(dir, 'state'), backupScript: path.join(dir, 'stack-backup'), drillScript: path.join(dir, 'stack-restore-drill'), cron: path.join(dir, 'cron') };
  });
  afterAll(async () => {
    await database.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('records the failed cron run in words and notifies once; a success later is recorded without a notice', async () => {
    const { db } = database;
    const [user] = await db.insert(users).values({ provider: 'local', providerUserId: 'alice', login: 'alice' }).returning();
    const [installation] = await db.insert(installations).values({ provider: 'local', publicId: 7, ownerUserId: user!.id }).returning();
    const [project] = await db.insert(projects).values({ name: 'shop', installationId: installation!.id }).returning();
    const id = project!.id;
    // The install step's first backup was recorded: this project's server is watched.
    await db.insert(backupRuns).values({ projectId: id, kind: 'backup', ok: true, startedAt: new Date('2026-11-27T10:00:00Z'), seconds: 3, destination: 'x', checks: [] });
    const watch = createBackupWatch({ db, sandbox, hiddenValues: async () => ({}), notify: async (projectId, notice) => void notices.push({ projectId, notice }), log: { warn: () => undefined }, paths, scheduleOf: async () => '30 3 * * *', graceMinutes: 120 });

    // The nightly run, as cron starts it: its settings file is gone, so it fails before anything else.
    writeFileSync(paths.backupScript, backupScript(backupSources(PRODUCTS.postgres!.services), { dir: '/opt/stack', project: 'stack', backup: paths }), { mode: 0o700 });
    const cron = spawnSync(paths.backupScript, [], { encoding: 'utf8' });
    expect(cron.status).not.toBe(0);

    expect(await watch.checkDue(60)).toBe(1);
    expect(state.initialised).toBe(1);
    expect(state.status).toBe('NotRunning');
    expect(commands.at(-1)).toContain(`${paths.state}/last-backup.json`);
    const rows = await db.select().from(backupRuns).where(eqProject(id));
    const failed = rows.find((r) => !r.ok)!;
    expect(failed).toMatchObject({ kind: 'backup', destination: 'unknown (the settings were not read)' });
    expect(failed.failure).toBe(`Failed at "read the settings": ${paths.etc}/env is missing: execute the plan's backup step again`);
    expect(notices).toEqual([{ projectId: id, notice: expect.objectContaining({ event: 'backup_failed', title: 'A backup failed', projectName: 'shop' }) }]);

    // Read again (the period passed, or the app restarted): the same run is kept once and not notified again.
    expect(await watch.checkDue(0)).toBe(1);
    expect(await createBackupWatch({ db, sandbox, hiddenValues: async () => ({}), notify: async (p, n) => void notices.push({ projectId: p, notice: n }), log: { warn: () => undefined }, paths, scheduleOf: async () => '30 3 * * *', graceMinutes: 120 }).checkDue(60)).toBe(1);
    expect((await db.select().from(backupRuns).where(eqProject(id))).length).toBe(rows.length);
    expect(notices).toHaveLength(1);
    // Within the period nothing is read.
    expect(await watch.checkDue(60)).toBe(0);

    // The next night's run worked: recorded, nothing notified.
    const summary = { message_type: 'summary', snapshot_id: 'abcdef0123456789', total_bytes_processed: 100, data_added: 10, total_files_processed: 2 };
    mkdirSync(paths.state, { recursive: true });
    writeFileSync(path.join(paths.state, 'last-backup.json'), `${JSON.stringify({ kind: 'backup', ok: true, started_at: '2026-11-29T03:30:00Z', seconds: 5, destination: 'SSH host b port 22, /srv', restic: summary, sources: 1 })}\n`);
    const [run] = await watch.readServer({ projectId: id, installationId: installation!.id });
    expect(run).toMatchObject({ kind: 'backup', ok: true, snapshot: 'abcdef01', started_at: '2026-11-29T03:30:00.000Z' });
    expect(notices).toHaveLength(1);
  });
});
