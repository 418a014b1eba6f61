import type { FastifyInstance } from 'fastify';
import { GATE_FAILED_MARKER, RESTORED_HEALTHY } from '../../../src/server/agents/offline/releaseGate';
import { createReleaseService } from '../../../src/server/services/releases/releaseService';
import { recordRelease } from '../../../src/server/services/releases/releaseStore';
import { overSsh, scriptSandbox } from '../helpers/scriptSandbox';
import { startNotificationSinks, type NotificationSinks } from '../helpers/notificationSinks';
import { buildTestApp, installationRowId, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { requireInCi, testServer } from '../helpers/testServer';
import { found } from '../helpers/until';

/**
 * A failed health gate and drift found reach the person as a failed backup and drill do
 * (backupRecords.test.ts) and a missed backup does (missedBackup.test.ts): through the project's own
 * settings, by a real SMTP conversation with a local sink and a real POST to a local webhook receiver.
 * The gate's failure is the step output the release service hears; the drift is read from the test
 * server over SSH, against a release whose service runs nowhere there.
 */

requireInCi(testServer);

describe('a failed health gate and drift reach the person by mail and webhook', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  const mails: string[] = [];
  const posts: Array<{ text: string; content: string }> = [];
  let sinks: NotificationSinks;
  let hook: string;

  beforeAll(async () => {
    sinks = await startNotificationSinks({
      // Quoted-printable soft line breaks joined again.
      mail: (body) => void mails.push(body.replace(/=\r?\n/g, '')),
      post: (body) => void posts.push(body as { text: string; content: string }),
    });
    hook = `${sinks.hookBase}/hooks/failures`;
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { SMTP_URL: sinks.smtpUrl, SMTP_FROM: 'alerts@example.org', NOTIFY_PRIVATE_ADDRESSES: 'true', LOGIN_RATE_LIMIT_PER_MINUTE: '1000', DRIFT_CHECK_MINUTES: '0' } });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    await sinks?.close();
  });

  const newProject = async (name: string): Promise<{ projectId: number; installationId: number }> => {
    const id = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json<{ id: number }>().id;
    await app.inject({ method: 'PUT', url: `/api/projects/${id}/notifications`, headers: alice.headers, payload: { email: 'alice@example.org', webhook_url: hook } });
    return { projectId: id, installationId: await installationRowId(database, alice) };
  };

  it('a change that failed its health gate', async () => {
    const project = await newProject('shop');
    const output = ['starting the change', 'web running unhealthy 1', GATE_FAILED_MARKER, RESTORED_HEALTHY].join('\n');
    app.services.releases.afterStepStored(project, 1, { stepNumber: 3, status: 'failed', command: 'compose up', output, errorMessage: 'The command exited with status 1.' });
    const post = await found(() => posts.find((p) => p.text.includes('[shop] The change failed its health check')), 'the webhook post');
    expect(post.text).toContain('web running unhealthy 1');
    expect(post.content).toContain('The change failed its health check');
    expect(await found(() => mails.find((m) => m.includes('[shop] The change failed its health check')), 'the mail')).toContain('web running unhealthy 1');
  });

  (testServer ? it : it.skip)('drift found on the test server', async () => {
    const project = await newProject('blog');
    // A release whose service runs nowhere on the server: its own directory and compose project, which no other run uses.
    const directory = `/opt/stacks/jestdrift-${process.pid}`;
    const shell = overSsh(testServer!);
    expect(shell(`sudo -n mkdir -p ${directory}`).exitCode).toBe(0);
    await recordRelease(database.db, project.projectId, directory, { 'docker-compose.yml': 'services: {}\n' }, {
      containers: [{ service: 'web', image: 'nginx:1.27', digest: 'sha256:' + 'a'.repeat(64), ports: [], state: 'running' }],
      firewall: [],
      cron: [],
      disk: { size: 100, available: 50 },
    });
    const releases = createReleaseService({
      db: database.db,
      sandbox: scriptSandbox(shell),
      hiddenValues: async () => ({}),
      execution: { planOf: async () => undefined, addStep: () => Promise.reject(new Error('not used')) },
      notifier: app.services.notifications,
      log: app.log,
    });
    const check = await releases.checkDrift(project).finally(() => shell(`sudo -n rm -rf ${directory}`));
    expect(check.error).toBeNull();
    expect(check.differences.length).toBeGreaterThan(0);
    const post = await found(() => posts.find((p) => p.text.includes('[blog] The server differs from release 1')), 'the webhook post');
    expect(post.text).toContain('web');
    expect(await found(() => mails.find((m) => m.includes('[blog] The server differs from release 1')), 'the mail')).toContain('web');
  }, 120_000);
});
