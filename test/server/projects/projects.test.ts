import type { FastifyInstance } from 'fastify';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

describe.each(databaseKinds())('projects (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let mallory: TestUser;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { BODY_LIMIT_BYTES: '8192', LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  const create = (user: TestUser, payload: unknown) =>
    app.inject({ method: 'POST', url: '/api/projects', headers: user.headers, payload: payload as object });

  it('lists no projects for a new user', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/projects', headers: mallory.headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
  });

  it('creates a project with a trimmed name and answers 201 with the project', async () => {
    const response = await create(alice, { name: '  Web stack  ', description: ' n8n behind Caddy ' });
    expect(response.statusCode).toBe(201);
    const project = response.json();
    expect(project).toEqual({
      id: expect.any(Number),
      name: 'Web stack',
      description: 'n8n behind Caddy',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    const fetched = await app.inject({ method: 'GET', url: `/api/projects/${project.id}`, headers: alice.headers });
    expect(fetched.json()).toEqual(project);
  });

  it('stores a missing or blank description as null', async () => {
    expect((await create(alice, { name: 'No desc' })).json().description).toBeNull();
    expect((await create(alice, { name: 'Blank desc', description: '   ' })).json().description).toBeNull();
    expect((await create(alice, { name: 'Null desc', description: null })).json().description).toBeNull();
  });

  it('accepts a name of exactly 100 characters and a description of 2,000', async () => {
    const response = await create(alice, { name: 'n'.repeat(100), description: 'd'.repeat(2000) });
    expect(response.statusCode).toBe(201);
  });

  it.each([
    ['a missing name', { description: 'x' }, /name is required/],
    ['an empty name', { name: '' }, /name/],
    ['a blank name', { name: '    ' }, /name is required/],
    ['a name of 101 characters', { name: 'n'.repeat(101) }, /name must NOT have more than 100 characters/],
    ['a numeric name', { name: 12 }, /name must be string/],
    ['a description of 2,001 characters', { name: 'ok', description: 'd'.repeat(2001) }, /description/],
    ['an object description', { name: 'ok', description: { a: 1 } }, /description/],
    ['an array body', [{ name: 'x' }], /body must be object/],
  ])('answers 400 for %s and writes nothing', async (_label, payload, detail) => {
    const before = (await app.inject({ method: 'GET', url: '/api/projects', headers: alice.headers })).json().length;
    const response = await create(alice, payload);
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toMatch(detail);
    const after = (await app.inject({ method: 'GET', url: '/api/projects', headers: alice.headers })).json().length;
    expect(after).toBe(before);
  });

  it('answers 400 for malformed JSON, an empty JSON body and an oversize body', async () => {
    const malformed = await app.inject({
      method: 'POST',
      url: '/api/projects',
      headers: { ...alice.headers, 'content-type': 'application/json' },
      payload: '{"name": "x",',
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().detail).toMatch(/JSON/);

    const empty = await app.inject({
      method: 'POST',
      url: '/api/projects',
      headers: { ...alice.headers, 'content-type': 'application/json' },
      payload: '',
    });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toEqual({ detail: expect.any(String) });

    const oversize = await create(alice, { name: 'big', description: 'x'.repeat(10_000) });
    expect(oversize.statusCode).toBe(413);
    expect(oversize.json().detail).toMatch(/too large/);
  });

  it('answers 400 with a detail for a body that is not JSON', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/api/projects',
      headers: { ...alice.headers, 'content-type': 'text/plain' },
      payload: 'name=x',
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({ detail: 'body must be object' });
  });

  it('lists projects by updated_at, newest first', async () => {
    const first = (await create(mallory, { name: 'first' })).json();
    const second = (await create(mallory, { name: 'second' })).json();
    let list = (await app.inject({ method: 'GET', url: '/api/projects', headers: mallory.headers })).json();
    expect(list.map((p: { name: string }) => p.name)).toEqual(['second', 'first']);

    // Completing a stage of the older project makes it the most recently updated.
    await app.inject({
      method: 'PUT',
      url: `/api/project-states/${first.id}/stages/requirements`,
      headers: mallory.headers,
      payload: { is_completed: true },
    });
    list = (await app.inject({ method: 'GET', url: '/api/projects', headers: mallory.headers })).json();
    expect(list.map((p: { id: number }) => p.id)).toEqual([first.id, second.id]);
  });

  it("never shows another tenant's project: 404 by path, absent from the list", async () => {
    const secret = (await create(alice, { name: 'alice-only' })).json();
    const byPath = await app.inject({ method: 'GET', url: `/api/projects/${secret.id}`, headers: mallory.headers });
    expect(byPath.statusCode).toBe(404);
    expect(byPath.json()).toEqual({ detail: 'Project not found' });
    const list = (await app.inject({ method: 'GET', url: '/api/projects', headers: mallory.headers })).json();
    expect(list.some((p: { id: number }) => p.id === secret.id)).toBe(false);
    const costs = await app.inject({ method: 'GET', url: `/api/projects/${secret.id}/costs`, headers: mallory.headers });
    expect(costs.statusCode).toBe(404);
  });

  it('answers 404 for a missing project and 400 for a non-numeric or huge id', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/projects/999999', headers: alice.headers })).statusCode).toBe(404);
    const word = await app.inject({ method: 'GET', url: '/api/projects/abc', headers: alice.headers });
    expect(word.statusCode).toBe(400);
    expect(word.json().detail).toMatch(/id/);
    expect((await app.inject({ method: 'GET', url: `/api/projects/${'9'.repeat(30)}`, headers: alice.headers })).statusCode).toBe(400);
  });

  it('answers 401 for every project route without a session', async () => {
    for (const [method, url] of [
      ['GET', '/api/projects'],
      ['POST', '/api/projects'],
      ['GET', '/api/projects/1'],
      ['GET', '/api/projects/1/costs'],
      ['GET', '/api/project-states/1'],
      ['PUT', '/api/project-states/1/current-stage/architecture'],
      ['PUT', '/api/project-states/1/stages/requirements'],
    ] as const) {
      const response = await app.inject({ method, url, payload: method === 'GET' ? undefined : {} });
      expect({ url, status: response.statusCode }).toEqual({ url, status: 401 });
    }
  });

  it('answers the cost of a project with no model calls as zero', async () => {
    const project = (await create(alice, { name: 'costly' })).json();
    const response = await app.inject({ method: 'GET', url: `/api/projects/${project.id}/costs`, headers: alice.headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ total_cost: '0.00000000', last_updated: null });
  });
});
