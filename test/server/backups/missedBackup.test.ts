import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { backupPaths, installedPaths, type BackupPaths } from '../../../src/server/agents/offline/backupScripts';
import { backupRuns } from '../../../src/server/db/schema';
import { createBackupWatch } from '../../../src/server/services/backups/backupWatch';
import type { BackupsStatus } from '../../../src/shared/api/backups';
import { localBash, overSsh, scriptSandbox } from '../helpers/scriptSandbox';
import { startNotificationSinks, type NotificationSinks } from '../helpers/notificationSinks';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { requireInCi, testServer } from '../helpers/testServer';

/**
 * A nightly backup that never ran writes no result: the watch reads the server's clock, zone and cron
 * entry with its read-only command, finds the last due time of the schedule no backup started after, and
 * records it once and notifies it once through the project's own settings: a local SMTP sink and a local
 * webhook receiver, started here, get it in words (when it was due, the last run, whether the cron entry
 * is gone). A backup that starts later ends the overdue state. Run against the test server over SSH (its
 * own paths: other runs use the server beside it) and, as root, against this machine's own shell.
 */

requireInCi(testServer);
const isRoot = process.getuid?.() === 0;
const DAY = 86_400_000;

const places: Array<{ name: string; shell: ReturnType<typeof overSsh>; paths: () => BackupPaths; cleanup: (p: BackupPaths) => void; done?: () => void }> = [];
if (testServer) {
  const shell = overSsh(testServer);
  // Paths of its own on the shared server: another run or engineer's backup beside it is never touched.
  places.push({ name: 'the test server, over SSH', shell, paths: () => backupPaths(`jestmissed${process.pid}`), cleanup: (p) => void shell(`sudo -n rm -rf ${installedPaths(p).join(' ')}`) });
}
if (isRoot) {
  let dir = '';
  places.push({
    name: 'this machine',
    shell: localBash,
    paths: () => {
      dir = mkdtempSync(path.join(tmpdir(), 'da-missed-'));
      return { etc: `${dir}/etc`, state: `${dir}/state`, backupScript: `${dir}/stack-backup`, drillScript: `${dir}/stack-restore-drill`, cron: `${dir}/cron` };
    },
    cleanup: (p) => {
      for (const f of installedPaths(p)) rmSync(f, { recursive: true, force: true });
    },
    done: () => rmSync(dir, { recursive: true, force: true }),
  });
}

(places.length ? describe.each(places) : describe.skip.each([{ name: 'no server (needs the test server or root)' } as (typeof places)[number]]))('a nightly backup that did not run, on $name', (place) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let paths: BackupPaths;
  const mails: string[] = [];
  const posts: Array<{ text: string; content: string }> = [];
  let sinks: NotificationSinks;
  let hook: string;
  const asRoot = 'if [ "$(id -u)" = 0 ]; then S=; else S="sudo -n"; fi';
  const onServer = (script: string): string => {
    const r = place.shell(`set -e\n${asRoot}\n${script}`);
    if (r.exitCode !== 0) throw new Error(r.output);
    return r.output;
  };

  beforeAll(async () => {
    sinks = await startNotificationSinks({
      mail: (body) => void mails.push(body),
      post: (body) => void posts.push(body as { text: string; content: string }),
    });
    hook = `${sinks.hookBase}/hooks/missed`;
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { SMTP_URL: sinks.smtpUrl, SMTP_FROM: 'alerts@example.org', NOTIFY_PRIVATE_ADDRESSES: 'true', LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
    paths = place.paths();
    place.cleanup(paths);
  });
  afterAll(async () => {
    place.cleanup(paths);
    place.done?.();
    await app.close();
    await database.destroy();
    await sinks?.close();
  });

  const newProject = async (name: string): Promise<{ projectId: number; installationId: number }> => {
    const created = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json<{ id: number }>();
    await app.inject({ method: 'PUT', url: `/api/projects/${created.id}/notifications`, headers: alice.headers, payload: { email: 'alice@example.org', webhook_url: hook } });
    // The install step's first backup, three days ago: every daily due time since is missed.
    await app.database.db.insert(backupRuns).values({ projectId: created.id, kind: 'backup', ok: true, startedAt: new Date(Date.now() - 3 * DAY), seconds: 3, destination: 'x', checks: [] });
    return { projectId: created.id, installationId: 0 };
  };
  const status = async (id: number): Promise<BackupsStatus> => (await app.inject({ method: 'GET', url: `/api/projects/${id}/backups`, headers: alice.headers })).json<BackupsStatus>();
  const watch = () =>
    createBackupWatch({
      db: app.database.db,
      sandbox: scriptSandbox(place.shell),
      hiddenValues: async () => ({}),
      notify: (id, notice) => app.services.notifications.notify(id, notice),
      log: app.log,
      paths,
      // The stack model's schedule, read as the composition root reads it: used when the entry is gone.
      scheduleOf: async (id) => (await app.services.planning.stack(id)).model.backup.schedule,
      graceMinutes: 120,
    });

  it('the cron entry gone: flagged overdue, recorded and notified once by mail and webhook, in words; a later backup ends it', async () => {
    const project = await newProject('shop');
    expect(onServer(`$S test -e ${paths.cron} && echo present || echo gone`).trim()).toBe('gone');

    expect(await watch().readServer(project)).toEqual([]);
    expect(posts).toHaveLength(1);
    const post = posts[0]!;
    expect(post.text).toContain('The nightly backup did not run');
    expect(post.text).toMatch(/The nightly backup \(cron "30 3 \* \* \*"\) due at \d{4}-\d\d-\d\d \d\d:\d\d UTC.* did not report within 120 minutes\./);
    expect(post.text).toMatch(/The last backup started at \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
    expect(post.text).toContain(`The cron entry ${paths.cron} is gone from the server`);
    expect(post.content).toContain('The nightly backup did not run');
    // The mail's body is quoted-printable: its soft line breaks joined again.
    expect(mails.find((m) => m.includes('[shop] The nightly backup did not run'))?.replace(/=\r?\n/g, '')).toContain('is gone from the server');
    const overdue = (await status(project.projectId)).overdue!;
    expect(overdue).toMatchObject({ missed: 1, detail: expect.stringContaining('is gone from the server') as string });
    expect(Date.parse(overdue.since)).toBeLessThanOrEqual(Date.now() - 120 * 60_000);
    expect(Date.parse(overdue.since)).toBeGreaterThan(Date.now() - 3 * DAY);

    // Read again, by this watch or one started after a restart: kept once, not notified again.
    await watch().checkDue(0);
    await watch().readServer(project);
    expect(posts).toHaveLength(1);
    expect(mails.filter((m) => m.includes('The nightly backup did not run'))).toHaveLength(1);
    expect((await app.inject({ method: 'GET', url: `/api/projects/${project.projectId}/backups/runs`, headers: alice.headers })).json<{ runs: unknown[] }>().runs).toHaveLength(1);

    // The next run, as cron would start it, worked: recorded, and the backup is no longer overdue.
    const summary = { message_type: 'summary', snapshot_id: 'abcdef0123456789', total_bytes_processed: 100, data_added: 10, total_files_processed: 2 };
    const started = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const result = JSON.stringify({ kind: 'backup', ok: true, started_at: started, seconds: 5, destination: 'this server', restic: summary, sources: 1 });
    onServer(`$S mkdir -p ${paths.state}\nprintf '%s\\n' '${result}' | $S tee ${paths.state}/last-backup.json >/dev/null`);
    const [run] = await watch().readServer(project);
    expect(run).toMatchObject({ kind: 'backup', ok: true, started_at: new Date(started).toISOString() });
    expect((await status(project.projectId)).overdue).toBeNull();
    expect(posts).toHaveLength(1);
  }, 120_000);

  it('the cron entry present: its own schedule is the one due, and the words say the entry is there', async () => {
    const project = await newProject('blog');
    onServer(`$S rm -f ${paths.state}/last-backup.json\nprintf '%s\\n' '15 2 * * * root /bin/true' | $S tee ${paths.cron} >/dev/null`);
    const before = posts.length;
    await watch().readServer(project);
    const post = posts.slice(before).find((p) => p.text.includes('[blog]') || p.text.includes('blog'))!;
    expect(post.text).toContain('(cron "15 2 * * *") due at');
    expect(post.text).toContain(`The cron entry ${paths.cron} is there`);
    expect((await status(project.projectId)).overdue).toMatchObject({ missed: 1 });
  }, 120_000);
});
