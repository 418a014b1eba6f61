import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { BACKUP_SCRIPT, DRILL_SCRIPT } from '../../../src/server/agents/offline/backupScripts';
import { backupStepRecorder } from '../../../src/server/services/backups/backupHook';
import { kindOfStep, runsOfStep } from '../../../src/server/services/backups/backupRecords';
import { BACKUP_RESULT_MARKER, type BackupsStatus } from '../../../src/shared/api/backups';
import { startNotificationSinks, type NotificationSinks } from '../helpers/notificationSinks';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { found } from '../helpers/until';

/**
 * Backup runs and restore drills are recorded from the step that ran them: its exit status and the
 * script's result lines (restic's JSON in them), never a claim alone. The project's backups answer to
 * its owner only; a failed backup or drill reaches the person through a real SMTP sink and a real
 * webhook receiver started here.
 */

const line = (value: object): string => `${BACKUP_RESULT_MARKER} ${JSON.stringify(value)}`;
const summary = (id: string, bytes: number) => ({ message_type: 'summary', snapshot_id: id, total_bytes_processed: bytes, data_added: Math.floor(bytes / 2), total_files_processed: 3, total_duration: 1.5 });
const backup = (at: string, id = 'a1b2c3d4e5f6a7b8', bytes = 4096) => ({ kind: 'backup', ok: true, started_at: at, seconds: 4, destination: 'SSH host restic@b port 2222, /srv/restic', restic: summary(id, bytes), sources: 2 });
const snapshotList = (id: string, time: string) => [{ id: id.padEnd(64, '0'), short_id: id.slice(0, 8), time, tree: 'x', paths: ['/x'], hostname: 'h' }];
const drill = (at: string, snapshot = 'a1b2c3d4') => ({
  kind: 'drill',
  ok: true,
  started_at: at,
  seconds: 21,
  destination: 'SSH host restic@b port 2222, /srv/restic',
  restic_snapshots: snapshotList(snapshot, '2026-11-28T03:30:01Z'),
  bytes: 9000,
  checks: [{ what: 'postgres', ok: true, tables: 2, rows: 2500, load_errors: 0 }],
  last_backup: backup('2026-11-28T03:30:00Z'),
});
const failedDrill = (at: string) => ({ kind: 'drill', ok: false, started_at: at, seconds: 3, destination: 'SSH host restic@b port 2222, /srv/restic', step: 'check the repository (restic check)', detail: 'error: load <data/0a1b>: file does not exist\nFatal: repository contains errors' });
const INSTALL = `as_root install -m 700 /dev/null ${BACKUP_SCRIPT}\nas_root tee ${DRILL_SCRIPT} > /dev/null <<'FILE'\nFILE\nas_root ${BACKUP_SCRIPT}`;
const DRILL = `ssh -F ssh-keys/config da-server 'bash -s' <<'REMOTE'\nas_root ${DRILL_SCRIPT}\nREMOTE`;

describe('what a step reports', () => {
  it('knows what a step runs: the install step runs the backup, the check runs the drill, others none', () => {
    expect(kindOfStep(INSTALL)).toBe('backup');
    expect(kindOfStep(DRILL)).toBe('drill');
    expect(kindOfStep(`cat ${BACKUP_SCRIPT}`)).toBeUndefined();
    expect(kindOfStep(null)).toBeUndefined();
  });

  it('a backup with restic summary is recorded with its snapshot and sizes; a drill repeats the nightly backup', () => {
    const [run] = runsOfStep(1, { status: 'completed', command: INSTALL, output: `restic: 0.14.0\n${line(backup('2026-11-28T10:00:00Z'))}\n`, errorMessage: null });
    expect(run).toMatchObject({ kind: 'backup', ok: true, bytes: 4096, added: 2048, snapshot: 'a1b2c3d4', failure: null, seconds: 4 });
    const runs = runsOfStep(1, { status: 'completed', command: DRILL, output: line(drill('2026-11-28T10:05:00Z')), errorMessage: null });
    expect(runs.map((r) => [r.kind, r.ok, r.snapshot])).toEqual([
      ['drill', true, 'a1b2c3d4'],
      ['backup', true, 'a1b2c3d4'],
    ]);
  });

  it('a step that failed before the script reported is a failed run in its words; one running no script is none', () => {
    const [run] = runsOfStep(1, { status: 'failed', command: DRILL, output: 'ssh: connect to host 203.0.113.7 port 22: Connection refused\n', errorMessage: 'The command exited with status 255.' });
    expect(run).toMatchObject({ kind: 'drill', ok: false, destination: 'not reached' });
    expect(run!.failure).toBe('The step failed before the restore drill reported a result: The command exited with status 255. (ssh: connect to host 203.0.113.7 port 22: Connection refused)');
    expect(runsOfStep(1, { status: 'failed', command: 'docker compose up -d', output: 'x', errorMessage: 'e' })).toEqual([]);
    expect(runsOfStep(1, { status: 'completed', command: DRILL, output: 'no result line', errorMessage: null })).toEqual([]);
  });

  it("the script's own run is never a success when the step failed, whatever its line says (any outputs)", () => {
    const result = fc.oneof(
      fc.constant(backup('2026-11-28T10:00:00Z')),
      fc.constant(drill('2026-11-28T10:05:00Z')),
      fc.constant(failedDrill('2026-11-28T10:06:00Z')),
      fc.constant({ ...backup('2026-11-28T10:07:00Z'), restic: undefined }),
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(result.map(line), fc.string()), { maxLength: 5 }), fc.constantFrom(INSTALL, DRILL), (lines, command) => {
        const runs = runsOfStep(1, { status: 'failed', command, output: lines.join('\n'), errorMessage: 'The command exited with status 1.' });
        const own = runs.filter((r) => r.kind === kindOfStep(command));
        // The last of the step's own kind is the script's run: with the step failed it failed too, in words.
        if (own.length) expect(own.at(-1)).toMatchObject({ ok: false, failure: expect.any(String) });
        for (const r of runs) if (!r.ok) expect(r.failure).toBeTruthy();
      }),
    );
  });
});

describe('recorded runs, their routes and notices', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let bob: TestUser;
  const mails: string[] = [];
  const posts: Array<{ text: string }> = [];
  let sinks: NotificationSinks;
  let record: ReturnType<typeof backupStepRecorder>;
  let webhook: string;

  beforeAll(async () => {
    sinks = await startNotificationSinks({
      mail: (body) => void mails.push(body),
      post: (body) => void posts.push(body as { text: string }),
    });
    const hook = `${sinks.hookBase}/hooks/backup`;
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { SMTP_URL: sinks.smtpUrl, SMTP_FROM: 'alerts@example.org', NOTIFY_PRIVATE_ADDRESSES: 'true', LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
    bob = await signIn(app, 'bob');
    record = backupStepRecorder({ db: app.database.db, notify: (id, notice) => app.services.notifications.notify(id, notice), log: app.log });
    webhook = hook;
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    await sinks?.close();
  });

  const call = (user: TestUser, url: string) => app.inject({ method: 'GET', url, headers: user.headers });
  const status = async (id: number): Promise<BackupsStatus> => (await call(alice, `/api/projects/${id}/backups`)).json<BackupsStatus>();
  const ended = (id: number, step: { status: 'completed' | 'failed'; command: string; output: string; errorMessage?: string | null }) =>
    record({ projectId: id, installationId: 0 }, 1, { stepNumber: 1, errorMessage: null, ...step });

  it('shows the last backup and the last proven restore; a failed drill is shown failed, in words, and reaches the person', async () => {
    const id = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'shop' } })).json<{ id: number }>().id;
    await app.inject({ method: 'PUT', url: `/api/projects/${id}/notifications`, headers: alice.headers, payload: { email: 'alice@example.org', webhook_url: webhook } });
    expect(await status(id)).toEqual({ last_backup: null, last_drill: null, last_proven: null, overdue: null });

    ended(id, { status: 'completed', command: INSTALL, output: line(backup('2026-11-28T10:00:00Z')) });
    ended(id, { status: 'completed', command: DRILL, output: line(drill('2026-11-28T10:05:00Z')) });
    const first = await waitFor(() => status(id), (s) => s.last_proven !== null);
    expect(first.last_backup).toMatchObject({ kind: 'backup', ok: true, bytes: 4096, snapshot: 'a1b2c3d4', started_at: '2026-11-28T10:00:00.000Z' });
    expect(first.last_proven).toMatchObject({ kind: 'drill', ok: true, snapshot: 'a1b2c3d4', checks: [{ what: 'postgres', tables: 2, rows: 2500 }] });
    // The drill repeated the nightly backup of 03:30: recorded once, as the older backup.
    const runs = (await call(alice, `/api/projects/${id}/backups/runs?kind=backup`)).json<{ runs: Array<{ started_at: string }> }>().runs;
    expect(runs.map((r) => r.started_at)).toEqual(['2026-11-28T10:00:00.000Z', '2026-11-28T03:30:00.000Z']);

    ended(id, { status: 'failed', command: DRILL, output: line(failedDrill('2026-11-28T11:00:00Z')), errorMessage: 'The command exited with status 1.' });
    const after = await waitFor(() => status(id), (s) => s.last_drill?.started_at === '2026-11-28T11:00:00.000Z');
    expect(after.last_drill).toMatchObject({ ok: false, failure: 'Failed at "check the repository (restic check)": error: load <data/0a1b>: file does not exist / Fatal: repository contains errors' });
    // The last proven restore is still the one that passed.
    expect(after.last_proven).toMatchObject({ ok: true, started_at: '2026-11-28T10:05:00.000Z' });
    const mail = await found(() => mails.find((m) => m.includes('[shop] The restore drill failed')), 'the mail or webhook post');
    expect(mail).toContain('repository contains errors');
    const post = await found(() => posts.find((p) => p.text.includes('The restore drill failed')), 'the mail or webhook post');
    expect(post.text).toContain('check the repository (restic check)');

    ended(id, { status: 'failed', command: INSTALL, output: 'restic: 0.14.0\nFatal: unable to open repository', errorMessage: 'The command exited with status 1.' });
    await found(() => mails.find((m) => m.includes('[shop] A backup failed') && m.includes('before the backup reported')), 'the mail or webhook post');
  });

  it("another person's project answers 404; a bad query answers 400 with a detail", async () => {
    const id = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'private' } })).json<{ id: number }>().id;
    expect((await call(bob, `/api/projects/${id}/backups`)).statusCode).toBe(404);
    expect((await call(bob, `/api/projects/${id}/backups/runs`)).statusCode).toBe(404);
    for (const query of ['limit=0', 'limit=101', 'kind=restore', 'limit=x']) {
      const res = await call(alice, `/api/projects/${id}/backups/runs?${query}`);
      expect({ query, status: res.statusCode }).toEqual({ query, status: 400 });
      expect(typeof res.json<{ detail: unknown }>().detail).toBe('string');
    }
    expect((await call(alice, `/api/projects/${id}/backups/runs?limit=5&kind=drill`)).json()).toEqual({ runs: [] });
  });
});

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > end) return value;
    await new Promise((r) => setTimeout(r, 25));
  }
}
