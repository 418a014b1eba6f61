import { createHash } from 'node:crypto';
import { inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { sessions } from '../../../src/server/db/schema';
import { createSessionStore } from '../../../src/server/services/auth/sessionStore';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { countQueries } from '../helpers/countQueries';

/**
 * ARCHITECTURE.md's first budget: a 304 hot poll touches no database in the steady state. Sessions,
 * ownership and snapshots are held in memory and dropped by the writes that change them.
 */
describe.each(databaseKinds())('hot polls from memory (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let mallory: TestUser;
  let projectId: number;
  let queries: { count(): number };

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Polled' } })).json().id;
    queries = countQueries(database);
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  const polls = (): Array<{ url: string; headers: Record<string, string> }> => [
    { url: '/api/execution/progress', headers: { 'project-id': String(projectId) } },
    { url: '/api/validation/progress', headers: { 'project-id': String(projectId) } },
    { url: '/api/user/credits', headers: {} },
    { url: `/api/projects/${projectId}/costs`, headers: {} },
    { url: `/api/sandboxes/${projectId}/status`, headers: {} },
  ];
  const poll = (user: TestUser, url: string, headers: Record<string, string>, etag?: string) =>
    app.inject({ method: 'GET', url, headers: { ...user.headers, ...headers, ...(etag ? { 'if-none-match': etag } : {}) } });

  it('answers every hot poll with 304 and no query once its ETag is current', async () => {
    const etags = new Map<string, string>();
    for (const { url, headers } of polls()) {
      const first = await poll(alice, url, headers);
      expect(first.statusCode).toBe(200);
      etags.set(url, first.headers.etag as string);
    }
    const before = queries.count();
    for (let round = 0; round < 5; round += 1) {
      for (const { url, headers } of polls()) {
        const answer = await poll(alice, url, headers, etags.get(url));
        expect(answer.statusCode).toBe(304);
      }
    }
    expect(queries.count() - before).toBe(0);
  });

  it("still answers 404 for another installation's project, even with a current ETag", async () => {
    for (const { url, headers } of polls().filter((p) => !p.url.includes('credits'))) {
      const mine = await poll(alice, url, headers);
      const theirs = await poll(mallory, url, headers, mine.headers.etag as string);
      expect(theirs.statusCode).toBe(404);
      expect(theirs.headers.etag).toBeUndefined();
    }
  });

  it('writes last_seen_at in one batch off the request path, not per poll', async () => {
    let t = Date.now();
    const store = createSessionStore(database.db, { idleMs: 3_600_000, absoluteMs: 86_400_000, now: () => t });
    const [user] = await database.db.select({ userId: sessions.userId, installationId: sessions.installationId }).from(sessions).limit(1);
    const tokens = [await store.create(user!.userId, user!.installationId), await store.create(user!.userId, user!.installationId)];
    for (const token of tokens) expect(await store.resolve(token)).not.toBeNull();
    t += store.flushEveryMs + 1_000;
    const before = queries.count();
    for (let i = 0; i < 10; i += 1) for (const token of tokens) expect(await store.resolve(token)).not.toBeNull();
    expect(queries.count() - before).toBe(0);
    expect(await store.flushLastSeen()).toBe(2);
    const ids = tokens.map((token) => createHash('sha256').update(token).digest('hex'));
    const rows = await database.db.select({ lastSeenAt: sessions.lastSeenAt }).from(sessions).where(inArray(sessions.id, ids));
    expect(rows.map((r) => r.lastSeenAt.getTime())).toEqual([t, t]);
    expect(await store.flushLastSeen()).toBe(0);
    store.close();
  });

  it('logout drops the session from memory at once: the next poll answers 401', async () => {
    const carol = await signIn(app, 'carol');
    expect((await poll(carol, '/api/user/credits', {})).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/api/github/logout', headers: carol.headers })).statusCode).toBe(204);
    expect((await poll(carol, '/api/user/credits', {})).statusCode).toBe(401);
  });
});
