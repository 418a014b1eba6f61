import { sql } from 'drizzle-orm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { Project } from '../../../src/shared/api/projects';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { countQueries } from '../helpers/countQueries';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/** GET /api/projects: the whole array as before, pages on request (Link rel="next"), an ETag with 304. */
describe.each(databaseKinds())('project list paging and ETag (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let mallory: TestUser;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
    for (let i = 1; i <= 7; i += 1) {
      await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: `project ${i}` } });
    }
    await app.inject({ method: 'POST', url: '/api/projects', headers: mallory.headers, payload: { name: 'not alice' } });
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  const list = (user: TestUser, query = '', headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'GET', url: `/api/projects${query}`, headers: { ...user.headers, ...headers } });

  /** Follows the Link headers from the first page of `limit`; answers every page's projects. */
  async function allPages(limit: number): Promise<Project[][]> {
    const pages: Project[][] = [];
    let url: string | undefined = `/api/projects?limit=${limit}`;
    while (url) {
      const response: LightMyRequestResponse = await app.inject({ method: 'GET', url, headers: alice.headers });
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-total-count']).toBe('7');
      pages.push(response.json());
      url = /^<([^>]+)>; rel="next"$/.exec(String(response.headers.link ?? ''))?.[1];
    }
    return pages;
  }

  it('answers every project without `limit`, as existing clients expect', async () => {
    const response = await list(alice);
    expect(response.statusCode).toBe(200);
    expect(response.json<Project[]>().map((p) => p.name)).toEqual([7, 6, 5, 4, 3, 2, 1].map((i) => `project ${i}`));
    expect(response.headers.link).toBeUndefined();
    expect(response.headers['x-total-count']).toBe('7');
  });

  it('pages in the same order, each page naming the next in its Link header, the last none', async () => {
    const whole = (await list(alice)).json<Project[]>();
    const pages = await allPages(3);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual(whole);
    expect((await allPages(7)).map((p) => p.length)).toEqual([7]);
  });

  it('keeps its place when projects share an updated_at to the microsecond (the id breaks the tie)', async () => {
    await database.db.execute(sql`update projects set updated_at = '2026-01-01T00:00:00.123456Z'`);
    const whole = (await list(alice)).json<Project[]>();
    expect((await allPages(2)).flat()).toEqual(whole);
  });

  it('refuses a bad limit or a cursor it did not give with 400 and a detail', async () => {
    for (const query of ['?limit=0', '?limit=201', '?limit=abc', '?limit=2&cursor=bm90LWEtY3Vyc29y', '?limit=2&cursor=%2F%2F', '?extra=1']) {
      const response = await list(alice, query);
      expect({ query, status: response.statusCode }).toEqual({ query, status: 400 });
      expect(response.json().detail).toEqual(expect.any(String));
    }
    expect((await list(alice, '?limit=2&cursor=bm90LWEtY3Vyc29y')).json().detail).toMatch(/cursor is not one this server gave/);
  });

  it("answers 304 with no query while the ETag is current; a new project, a moved stage or another page changes it; another tenant's tag never matches", async () => {
    const first = await list(alice, '?limit=3');
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^W\/"/);
    const queries = countQueries(database);
    const again = await list(alice, '?limit=3', { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(queries.count()).toBe(0);

    expect((await list(alice, '', { 'if-none-match': etag })).statusCode).toBe(200);
    expect((await list(mallory, '?limit=3', { 'if-none-match': etag })).statusCode).toBe(200);

    const oldest = (await list(alice)).json<Project[]>().at(-1)!;
    const moved = await app.inject({ method: 'PUT', url: `/api/project-states/${oldest.id}/stages/requirements`, headers: alice.headers, payload: { is_completed: true } });
    expect(moved.statusCode).toBe(200);
    const afterMove = await list(alice, '?limit=3', { 'if-none-match': etag });
    expect(afterMove.statusCode).toBe(200);
    expect(afterMove.json<Project[]>()[0]!.id).toBe(oldest.id);

    const current = String(afterMove.headers.etag);
    await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'newest' } });
    const afterCreate = await list(alice, '?limit=3', { 'if-none-match': current });
    expect(afterCreate.statusCode).toBe(200);
    expect(afterCreate.json<Project[]>()[0]!.name).toBe('newest');
    expect(afterCreate.headers['x-total-count']).toBe('8');
  });

  it("moves a project whose document the planner wrote to the top, with a new ETag (the write is another service's)", async () => {
    const before = await list(alice, '?limit=3');
    const oldest = (await list(alice)).json<Project[]>().at(-1)!;
    const gather = await app.inject({
      method: 'POST',
      url: '/api/planning/requirements-gatherer',
      headers: { ...alice.headers, 'project-id': String(oldest.id) },
      payload: { message: 'A small web app with PostgreSQL' },
    });
    expect(gather.statusCode).toBe(200);
    const after = await list(alice, '?limit=3', { 'if-none-match': String(before.headers.etag) });
    expect(after.statusCode).toBe(200);
    expect(after.json<Project[]>()[0]!.id).toBe(oldest.id);
  });

  it('answers 304 on another replica for the ETag one replica gave (same state, same tag), and 200 once the state moves', async () => {
    const other = await buildTestApp(database, { env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    try {
      const fromA = await list(alice, '?limit=3');
      const onB = (headers: Record<string, string>) => other.inject({ method: 'GET', url: '/api/projects?limit=3', headers: { ...alice.headers, ...headers } });
      const fromB = await onB({ 'if-none-match': String(fromA.headers.etag) });
      expect(fromB.statusCode).toBe(304);
      expect(fromB.headers.etag).toBe(fromA.headers.etag);
      // Written through B: A's copy is dropped through the event bus only when one is shared, so B is the one asked.
      await other.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'through b' } });
      expect((await onB({ 'if-none-match': String(fromA.headers.etag) })).statusCode).toBe(200);
    } finally {
      await other.close();
    }
  });
});
