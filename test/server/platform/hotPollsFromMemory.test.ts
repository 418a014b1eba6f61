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

  it('answers a current ETag before the route runs, with the headers the route would send', async () => {
    const url = `/api/projects/${projectId}/costs`;
    const etag = (await poll(alice, url, {})).headers.etag as string;
    const costs = app.services.costs.snapshots;
    const get = costs.get;
    let loads = 0;
    costs.get = (key) => {
      loads += 1;
      return get(key);
    };
    try {
      const short = await poll(alice, url, {}, etag);
      expect(short.statusCode).toBe(304);
      expect(loads).toBe(0);
      // A query string takes the route's way: the same 304, through the handler.
      const routed = await poll(alice, `${url}?from=route`, {}, etag);
      expect(routed.statusCode).toBe(304);
      expect(loads).toBe(1);
      const headersOf = (answer: typeof short) => Object.fromEntries(Object.entries(answer.headers).filter(([name]) => name !== 'date'));
      expect(headersOf(short)).toEqual(headersOf(routed));
      expect(short.body).toBe('');
      // No If-None-Match, or one that is not current: the route answers the body.
      expect((await poll(alice, url, {})).statusCode).toBe(200);
      expect((await poll(alice, url, {}, 'W/"not-current"')).statusCode).toBe(200);
      expect(loads).toBe(3);
    } finally {
      costs.get = get;
    }
  });

  it('refuses with a current ETag whatever the route refuses', async () => {
    const costs = `/api/projects/${projectId}/costs`;
    const etags = new Map<string, string>();
    for (const { url, headers } of polls()) etags.set(url, (await poll(alice, url, headers)).headers.etag as string);
    // Another installation named by the caller's Installation-Id.
    for (const { url, headers } of polls()) {
      const answer = await poll(alice, url, { ...headers, 'installation-id': String(mallory.installationId) }, etags.get(url));
      expect({ url, status: answer.statusCode }).toEqual({ url, status: 401 });
    }
    // No session at all.
    const anonymous = await app.inject({ method: 'GET', url: costs, headers: { 'if-none-match': etags.get(costs)! } });
    expect(anonymous.statusCode).toBe(401);
    // Ids that are not ids, in the path and in the Project-Id header.
    expect((await poll(alice, `/api/projects/${projectId}x/costs`, {}, etags.get(costs))).statusCode).toBe(400);
    expect((await poll(alice, '/api/projects/99999999999/costs', {}, etags.get(costs))).statusCode).toBe(400);
    const progress = '/api/execution/progress';
    for (const id of [`${projectId} 1`, `${projectId}.0`, '', '-1']) {
      expect((await poll(alice, progress, { 'project-id': id }, etags.get(progress))).statusCode).toBe(400);
    }
    // What a query string carries is checked, as on every route.
    const nul = await poll(alice, `${costs}?x=%00`, {}, etags.get(costs));
    expect(nul.statusCode).toBe(400);
    expect(nul.json().detail).toContain('NUL');
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

  it('resolves a token from memory only while its session is held there', async () => {
    const store = createSessionStore(database.db, { idleMs: 3_600_000, absoluteMs: 86_400_000, maxCached: 1 });
    const [user] = await database.db.select({ userId: sessions.userId, installationId: sessions.installationId }).from(sessions).limit(1);
    const first = await store.create(user!.userId, user!.installationId);
    const second = await store.create(user!.userId, user!.installationId);
    expect(store.resolveFromMemory(first)).toBeNull(); // never read yet
    expect(await store.resolve(first)).not.toBeNull();
    expect(store.resolveFromMemory(first)?.sessionId).toBe(createHash('sha256').update(first).digest('hex'));
    expect(await store.resolve(second)).not.toBeNull(); // the first is dropped from memory (maxCached 1)
    expect(store.resolveFromMemory(first)).toBeNull();
    expect(store.resolveFromMemory(second)).not.toBeNull();
    await store.destroy(second);
    expect(store.resolveFromMemory(second)).toBeNull();
    expect(await store.resolve(second)).toBeNull();
    expect(await store.resolve(first)).not.toBeNull(); // read again from the database
    store.close();
  });

  it('logout drops the session from memory at once: the next poll answers 401', async () => {
    const carol = await signIn(app, 'carol');
    expect((await poll(carol, '/api/user/credits', {})).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/api/github/logout', headers: carol.headers })).statusCode).toBe(204);
    expect((await poll(carol, '/api/user/credits', {})).statusCode).toBe(401);
  });
});
