import type { FastifyInstance } from 'fastify';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

describe('rate limits', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase('pglite');
  });
  afterAll(async () => {
    await database.destroy();
  });

  describe('agent calls, per person', () => {
    let app: FastifyInstance;
    let alice: TestUser;
    let bob: TestUser;
    const projects = new Map<string, number>();

    beforeAll(async () => {
      app = await buildTestApp(database, { env: { AGENT_RATE_LIMIT_PER_MINUTE: '3', LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
      alice = await signIn(app, 'alice');
      bob = await signIn(app, 'bob');
      for (const user of [alice, bob]) {
        const created = await app.inject({ method: 'POST', url: '/api/projects', headers: user.headers, payload: { name: 'Limited' } });
        projects.set(user.login, created.json().id);
      }
    });
    afterAll(async () => {
      await app.close();
    });

    const chat = (user: TestUser, url: string, remoteAddress = '127.0.0.1') =>
      app.inject({
        method: 'POST',
        url,
        remoteAddress,
        headers: { ...user.headers, 'project-id': String(projects.get(user.login)) },
        payload: { message: 'A small web app with a database' },
      });

    it('shares one budget over every agent route, keyed by the session user, with a 429 {detail}', async () => {
      expect((await chat(alice, '/api/planning/requirements-gatherer')).statusCode).toBe(200);
      expect((await chat(alice, '/api/devops-helper/chat')).statusCode).toBe(200);
      expect((await chat(alice, '/api/planning/requirements-gatherer')).statusCode).toBe(200);
      // Another route and another address do not buy more: the budget is the person's.
      const limited = await chat(alice, '/api/devops-helper/chat', '10.9.8.7');
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual({ detail: expect.stringMatching(/^Too many agent requests: at most 3 a minute per person\. Try again in /) });
      // Someone else's budget is their own; non-agent routes are not limited.
      expect((await chat(bob, '/api/planning/requirements-gatherer')).statusCode).toBe(200);
      expect((await app.inject({ method: 'GET', url: '/api/projects', headers: alice.headers })).statusCode).toBe(200);
    });
  });

  it('answers the login limit with a 429 {detail}', async () => {
    const app = await buildTestApp(database, { env: { LOGIN_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const login = () => app.inject({ method: 'POST', url: '/api/github/local-login', payload: { login: 'carol' } });
      expect((await login()).statusCode).toBe(200);
      expect((await login()).statusCode).toBe(200);
      const limited = await login();
      expect(limited.statusCode).toBe(429);
      expect(limited.json()).toEqual({ detail: expect.stringMatching(/^Too many requests: try again in /) });
    } finally {
      await app.close();
    }
  });
});
