import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildTestApp, signIn } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * The routes anyone may call: sign-in and sign-out, health, the public configuration, the payment
 * provider's signed webhook and the API's documentation. Every other route of the API answers 401 to a caller without a session,
 * whatever headers it sends: the session check is attached to each route as it is registered, so a
 * route registered where the check does not reach would show up here.
 */
const PUBLIC: ReadonlySet<string> = new Set([
  'GET /api/github/login',
  'POST /api/github/local-login',
  'GET /api/github/callback',
  'POST /api/github/logout',
  'GET /api/github/provider-logout',
  'GET /api/health',
  'GET /api/ready',
  'GET /api/public-config',
  'POST /api/payments/webhook',
  // The API's own documentation (its OpenAPI document and the Swagger UI).
  'GET /api/openapi.json',
]);
const isPublic = (method: string, url: string): boolean => PUBLIC.has(`${method} ${url}`) || url === '/api/docs' || url.startsWith('/api/docs/');

/** Every route as Fastify registered it (documented or not, WebSockets included), read from its route tree. */
function registeredRoutes(app: FastifyInstance): Array<{ method: string; url: string }> {
  const routes: Array<{ method: string; url: string }> = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = line.match(/^([│ ]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/u);
    if (!m) continue;
    const depth = [...m[1]!].length / 4;
    stack.length = depth;
    stack.push(m[2]!);
    for (const method of m[3]?.split(', ') ?? []) routes.push({ method, url: stack.join('') });
  }
  return routes;
}

describe('every API route needs a session', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let routes: Array<{ method: string; url: string }> = [];

  beforeAll(async () => {
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { LOGIN_RATE_LIMIT_PER_MINUTE: '100000' } });
    routes = registeredRoutes(app).filter((r) => r.url.startsWith('/api/') && r.method !== 'HEAD');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  it('answers 401 to every non-public route without a session, even with a real installation id and project id', async () => {
    const someone = await signIn(app, 'someone');
    const project = (await app.inject({ method: 'POST', url: '/api/projects', headers: someone.headers, payload: { name: 'P' } })).json<{ id: number }>().id;
    const guarded = routes.filter((r) => !isPublic(r.method, r.url));
    expect(guarded.length).toBeGreaterThan(50);
    const letIn: string[] = [];
    for (const { method, url } of guarded) {
      const request: InjectOptions = {
        method: method as InjectOptions['method'],
        url: url.replace(/:(\w+)/g, (_m, name: string) => (/id$/i.test(name) ? String(project) : 'requirements')).replace(/\*$/, 'x'),
        // What a hostile client can send without the cookie: someone's installation id, project and the app's origin.
        headers: { 'installation-id': someone.installationId, 'project-id': String(project), origin: new URL(app.config.publicUrl).origin },
        ...(['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) ? { payload: {} } : {}),
      };
      const response = await app.inject(request);
      if (response.statusCode !== 401) letIn.push(`${method} ${url} → ${response.statusCode}`);
    }
    expect(letIn).toEqual([]);
    // The list of public routes is exact: none of them is gone or renamed without this test knowing.
    // (The webhook exists only when a payment provider is configured, which this app has not.)
    expect([...PUBLIC].filter((r) => !routes.some((x) => `${x.method} ${x.url}` === r))).toEqual(['POST /api/payments/webhook']);
  });
});
