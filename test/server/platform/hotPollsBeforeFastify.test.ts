import type { FastifyInstance } from 'fastify';
import { hotPollPaths } from '../../../src/server/plugins/hotPollPaths';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * The hot polls' short way before Fastify (plugins/hotPoll.ts) answers on the server's sockets: the same
 * answers as Fastify's way, the same refusals, and only for the paths Fastify routes to the poll's route.
 */
describe('hot polls answered before Fastify', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let base: string;
  let alice: TestUser;
  let mallory: TestUser;
  let projectId: number;

  beforeAll(async () => {
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Polled' } })).json().id;
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  const poll = (user: TestUser | null, path: string, headers: Record<string, string> = {}, etag?: string, method = 'GET') =>
    fetch(`${base}${path}`, { method, headers: { ...(user?.headers ?? {}), ...headers, ...(etag ? { 'if-none-match': etag } : {}) } });
  const headersOf = (answer: Response) => Object.fromEntries([...answer.headers].filter(([name]) => name !== 'date'));

  it("answers a current ETag on the socket with the route's own 304, loading nothing", async () => {
    const url = `/api/projects/${projectId}/costs`;
    const etag = (await poll(alice, url)).headers.get('etag')!;
    const costs = app.services.costs.snapshots;
    const get = costs.get;
    let loads = 0;
    costs.get = (key) => {
      loads += 1;
      return get(key);
    };
    try {
      const short = await poll(alice, url, {}, etag);
      expect(short.status).toBe(304);
      expect(loads).toBe(0);
      const routed = await poll(alice, `${url}?from=route`, {}, etag);
      expect(routed.status).toBe(304);
      expect(loads).toBe(1);
      expect(headersOf(short)).toEqual(headersOf(routed));
      expect(await short.text()).toBe('');
    } finally {
      costs.get = get;
    }
    for (const [path, headers] of [
      ['/api/execution/progress', { 'project-id': String(projectId) }],
      ['/api/validation/progress', { 'project-id': String(projectId) }],
      ['/api/user/credits', {}],
      [`/api/sandboxes/${projectId}/status`, {}],
    ] as const) {
      const current = (await poll(alice, path, headers)).headers.get('etag')!;
      expect({ path, status: (await poll(alice, path, headers, current)).status }).toEqual({ path, status: 304 });
    }
  });

  it('refuses on the socket whatever the route refuses, with a current ETag', async () => {
    const url = `/api/projects/${projectId}/costs`;
    const etag = (await poll(alice, url)).headers.get('etag')!;
    expect((await poll(mallory, url, {}, etag)).status).toBe(404);
    expect((await poll(alice, url, { 'installation-id': String(mallory.installationId) }, etag)).status).toBe(401);
    expect((await poll(null, url, {}, etag)).status).toBe(401);
    expect((await poll(alice, `${url}/`, {}, etag)).status).toBe(404);
    expect((await poll(alice, `/api/projects/${projectId}x/costs`, {}, etag)).status).toBe(400);
    const progress = '/api/execution/progress';
    const current = (await poll(alice, progress, { 'project-id': String(projectId) })).headers.get('etag')!;
    for (const id of [`${projectId} 1`, `${projectId}.0`, '-1']) {
      expect((await poll(alice, progress, { 'project-id': id }, current)).status).toBe(400);
    }
    const signedOut = await signIn(app, 'carol');
    const credits = (await poll(signedOut, '/api/user/credits')).headers.get('etag')!;
    expect((await poll(signedOut, '/api/user/credits', {}, credits)).status).toBe(304);
    expect((await fetch(`${base}/api/github/logout`, { method: 'POST', headers: signedOut.headers })).status).toBe(204);
    expect((await poll(signedOut, '/api/user/credits', {}, credits)).status).toBe(401);
  });
});

describe('hot poll paths', () => {
  it('matches only the plainest spelling of a route', () => {
    const paths = hotPollPaths<string>();
    expect(paths.add('/api/sandboxes/:projectId/status', 'status')).toBe(true);
    expect(paths.add('/api/user/credits', 'credits')).toBe(true);
    expect(paths.add('/api/files/*', 'files')).toBe(false);
    expect(paths.find('/api/sandboxes/12/status')).toEqual({ route: 'status', params: { projectId: '12' } });
    expect(paths.find('/api/user/credits')).toEqual({ route: 'credits', params: {} });
    for (const other of ['/api/sandboxes/12/status/', '/api/sandboxes//status', '/api/sandboxes/%31/status', '/api/sandboxes/1;a/status', '/api/user/credits?x=1', '/api/User/credits', `/api/sandboxes/${'1'.repeat(101)}/status`]) {
      expect({ other, found: paths.find(other) }).toEqual({ other, found: undefined });
    }
  });

  it('refuses to start when another GET route takes one of the same paths', () => {
    for (const competitor of ['/api/sandboxes/1/status', '/api/sandboxes/:id(^\\d+)/status']) {
      const paths = hotPollPaths<string>();
      paths.add('/api/sandboxes/:projectId/status', 'status');
      paths.see(competitor);
      paths.see('/api/sandboxes/:projectId/preflight');
      expect(() => paths.checkRoutedAlike()).toThrow(/both take/);
    }
    const paths = hotPollPaths<string>();
    paths.add('/api/sandboxes/:projectId/status', 'status');
    paths.see('/api/sandboxes/:projectId/preflight');
    expect(() => paths.checkRoutedAlike()).not.toThrow();
  });
});
