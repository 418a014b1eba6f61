import type { FastifyInstance } from 'fastify';
import { RECORDED_ACTIVITY_TYPES } from '../../../src/shared/constants/activity';
import { postWebhook, refusedAddress } from '../../../src/server/services/notifications/webhookChannel';
import { startNotificationSinks, type NotificationSinks } from '../helpers/notificationSinks';
import { buildTestApp, installationRowId, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { found } from '../helpers/until';

/**
 * Notifications reach a person through a real SMTP conversation (a local smtp-server sink) and a real
 * HTTP POST (a local webhook receiver), both started here; the server's settings, tenancy and address
 * checks are tested through the API.
 */

interface Mail {
  to: string;
  body: string;
}

describe('project notifications', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let bob: TestUser;
  const mails: Mail[] = [];
  const posts: Array<{ path: string; body: { text: string; content: string } }> = [];
  let answer = 204;
  let sinks: NotificationSinks;
  let hook: string;

  beforeAll(async () => {
    sinks = await startNotificationSinks({
      mail: (body, to) => void mails.push({ to, body }),
      post: (body, path) => { posts.push({ path, body: body as { text: string; content: string } }); return answer; },
    });
    hook = `${sinks.hookBase}/hooks/T0K3N-secret-part`;
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { SMTP_URL: sinks.smtpUrl, SMTP_FROM: 'alerts@example.org', NOTIFY_PRIVATE_ADDRESSES: 'true', LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
    bob = await signIn(app, 'bob');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    await sinks?.close();
  });

  const newProject = async (user: TestUser, name: string): Promise<number> =>
    (await app.inject({ method: 'POST', url: '/api/projects', headers: user.headers, payload: { name } })).json<{ id: number }>().id;
  const call = (user: TestUser, method: 'GET' | 'PUT' | 'POST', url: string, payload?: object) => app.inject({ method, url, headers: user.headers, ...(payload ? { payload } : {}) });

  test('settings are kept, the webhook URL never comes back, and a test reaches both channels', async () => {
    const id = await newProject(alice, 'shop');
    expect((await call(alice, 'GET', `/api/projects/${id}/notifications`)).json()).toEqual({ email: null, webhook_origin: null, email_available: true, last_email: null, last_webhook: null });
    const put = await call(alice, 'PUT', `/api/projects/${id}/notifications`, { email: 'alice@example.org', webhook_url: hook });
    expect(put.statusCode).toBe(200);
    expect(put.body).not.toContain('T0K3N');
    expect(put.json()).toMatchObject({ email: 'alice@example.org', webhook_origin: new URL(hook).origin });
    // Absent webhook_url keeps the stored one.
    expect((await call(alice, 'PUT', `/api/projects/${id}/notifications`, { email: 'ops@example.org' })).json()).toMatchObject({ email: 'ops@example.org', webhook_origin: new URL(hook).origin });

    const test = await call(alice, 'POST', `/api/projects/${id}/notifications/test`);
    expect(test.statusCode).toBe(200);
    expect(test.json()).toMatchObject({ email: { ok: true, error: null }, webhook: { ok: true, error: null } });
    expect(mails.at(-1)!.to).toBe('ops@example.org');
    expect(mails.at(-1)!.body).toContain('[shop] Test notification');
    expect(posts.at(-1)!.path).toBe('/hooks/T0K3N-secret-part');
    expect(posts.at(-1)!.body.text).toContain('Test notification');
    expect(posts.at(-1)!.body.content).toContain('Test notification');
    expect((await call(alice, 'GET', `/api/projects/${id}/notifications`)).json()).toMatchObject({ last_email: { ok: true }, last_webhook: { ok: true } });
  });

  test('a failed deployment step is sent as it is recorded; a webhook that fails is shown as failed', async () => {
    const id = await newProject(alice, 'blog');
    await call(alice, 'PUT', `/api/projects/${id}/notifications`, { email: 'alice@example.org', webhook_url: hook });
    const before = posts.length;
    await app.services.activity.record({
      installationId: await installationRowId(database, alice),
      projectId: id,
      activityType: RECORDED_ACTIVITY_TYPES.deploymentFailed,
      data: { project_name: 'blog', step_number: 4, error_message: 'exit status 1: port is already allocated' },
    });
    const post = await found(() => posts.slice(before).find((p) => p.body.text.includes('blog')), 'the mail or webhook post');
    expect(post.body.text).toContain('Deployment step 4 failed: exit status 1: port is already allocated');
    await found(() => mails.find((m) => m.body.includes('[blog] A deployment step failed')), 'the mail or webhook post');

    answer = 500;
    const test = (await call(alice, 'POST', `/api/projects/${id}/notifications/test`)).json<{ webhook: { ok: boolean; error: string } }>();
    answer = 204;
    expect(test.webhook).toMatchObject({ ok: false, error: 'The webhook answered 500' });
    expect((await call(alice, 'GET', `/api/projects/${id}/notifications`)).json()).toMatchObject({ last_webhook: { ok: false, error: 'The webhook answered 500' } });
  });

  test("another person's project answers 404; bad settings answer 400 with a detail and change nothing", async () => {
    const id = await newProject(alice, 'private');
    await call(alice, 'PUT', `/api/projects/${id}/notifications`, { email: 'alice@example.org' });
    for (const [method, url, body] of [
      ['GET', `/api/projects/${id}/notifications`, undefined],
      ['PUT', `/api/projects/${id}/notifications`, { email: 'bob@example.org', webhook_url: hook }],
      ['POST', `/api/projects/${id}/notifications/test`, undefined],
    ] as const) {
      expect((await call(bob, method, url, body)).statusCode).toBe(404);
    }
    for (const body of [{ email: 'not-an-address' }, { email: null, webhook_url: 'ftp://example.org/x' }, {}]) {
      const res = await call(alice, 'PUT', `/api/projects/${id}/notifications`, body);
      expect(res.statusCode).toBe(400);
      expect(typeof res.json<{ detail: unknown }>().detail).toBe('string');
    }
    expect((await call(alice, 'GET', `/api/projects/${id}/notifications`)).json()).toMatchObject({ email: 'alice@example.org' });
  });
});

describe('webhook addresses', () => {
  test('link-local (the metadata service), multicast and unspecified are always refused; loopback and private networks only when allowed', () => {
    for (const ip of ['169.254.169.254', 'fe80::1', '0.0.0.0', '::', '224.0.0.1', '::ffff:169.254.169.254']) expect(refusedAddress(ip, true)).toBeDefined();
    for (const ip of ['127.0.0.1', '10.1.2.3', '192.168.1.50', '172.20.0.2', '::1', 'fd12::1']) {
      expect(refusedAddress(ip, false)).toMatch(/NOTIFY_PRIVATE_ADDRESSES/);
      expect(refusedAddress(ip, true)).toBeUndefined();
    }
    expect(refusedAddress('93.184.216.34', false)).toBeUndefined();
  });

  test('a name that resolves to a refused address is refused where the connection is made', async () => {
    await expect(postWebhook('http://localhost:9/x', { title: 't', text: 'x' }, false)).rejects.toThrow(/refused: .*loopback/);
    await expect(postWebhook('http://169.254.169.254/latest/meta-data', { title: 't', text: 'x' }, true)).rejects.toThrow(/link-local/);
  });
});
