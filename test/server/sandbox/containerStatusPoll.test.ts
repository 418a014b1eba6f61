import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/** GET /api/sandboxes/{projectId}/status, polled every 10 s: from memory, with a weak ETag and 304. */
describe.each(databaseKinds())('container status poll (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;
  let mallory: TestUser;
  let projectId: number;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-status-poll-'));
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Polled sandbox' } })).json().id;
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const status = (user: TestUser, etag?: string, project = projectId): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'GET', url: `/api/sandboxes/${project}/status`, headers: { ...user.headers, ...(etag ? { 'if-none-match': etag } : {}) } });
  const lifecycle = (action: 'start' | 'stop' | 'backup') =>
    app.inject({ method: 'POST', url: `/api/sandboxes/${projectId}/${action}`, headers: alice.headers });

  /** 200 with a weak ETag, then 304 with no body for it. */
  async function current(): Promise<{ etag: string; body: { container_status: string; last_sync_time: string | null } }> {
    const full = await status(alice);
    expect(full.statusCode).toBe(200);
    const etag = full.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await status(alice, etag);
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    return { etag, body: full.json() };
  }

  it('answers 200 with an ETag, then 304 with an empty body while nothing changes', async () => {
    const { etag, body } = await current();
    expect(body).toEqual({ container_status: 'NotRunning', username: expect.stringMatching(/^user_\d+_\d+$/), last_sync_time: null });
    expect((await status(alice, etag)).statusCode).toBe(304);
  });

  it('answers a new ETag when the container starts, is backed up and stops', async () => {
    const stopped = await current();
    expect((await lifecycle('start')).statusCode).toBe(200);
    const started = await status(alice, stopped.etag);
    expect(started.statusCode).toBe(200);
    expect(started.json().container_status).toBe('Running');

    const running = await current();
    expect((await lifecycle('backup')).json().status).toBe('success');
    const backedUp = await status(alice, running.etag);
    expect(backedUp.statusCode).toBe(200);
    expect(backedUp.json().last_sync_time).not.toBeNull();

    const before = await current();
    expect((await lifecycle('stop')).statusCode).toBe(200);
    const after = await status(alice, before.etag);
    expect(after.statusCode).toBe(200);
    expect(after.json().container_status).toBe('NotRunning');
  });

  it("answers 404 for another installation's project, even with its current ETag", async () => {
    const { etag } = await current();
    const answer = await status(mallory, etag);
    expect(answer.statusCode).toBe(404);
    expect(answer.headers.etag).toBeUndefined();
    expect((await status(alice, undefined, 999_999)).statusCode).toBe(404);
  });
});
