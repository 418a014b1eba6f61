import type { FastifyInstance } from 'fastify';
import { until } from '../helpers/until';
import { buildTestApp, sessionCookieOf, signIn } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

describe.each(databaseKinds())('local sign-in and sessions (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  it('sends GET /api/github/login to the local sign-in page', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/github/login' });
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe('/signin');
  });

  it('creates a user and installation, sets an HttpOnly session cookie and answers the installation id', async () => {
    const response = await app.inject({ method: 'POST', url: '/api/github/local-login', payload: { login: 'alice' } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ installation_id: expect.any(Number) });
    const setCookie = String(response.headers['set-cookie']);
    expect(setCookie).toMatch(/^da_session=[A-Za-z0-9_-]{43};/);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Lax');
  });

  it('finds the same installation for the same login (case-insensitive) and a distinct one for another', async () => {
    const a1 = await signIn(app, 'bob');
    const a2 = await signIn(app, 'BOB');
    const c = await signIn(app, 'carol');
    expect(a2.installationId).toBe(a1.installationId);
    expect(c.installationId).not.toBe(a1.installationId);
    expect(a1.cookie).not.toBe(a2.cookie);
  });

  it.each([
    ['an empty login', { login: '' }],
    ['a login of 40 characters', { login: 'a'.repeat(40) }],
    ['a login with a space', { login: 'a b' }],
    ['a login with an underscore', { login: 'a_b' }],
    ['a non-ASCII login', { login: 'zoë' }],
    ['a number', { login: 42 }],
    ['no login', {}],
  ])('answers 400 naming the field for %s', async (_label, payload) => {
    const response = await app.inject({ method: 'POST', url: '/api/github/local-login', payload });
    expect(response.statusCode).toBe(400);
    expect(response.json().detail).toMatch(/login/);
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('accepts a 39-character login of letters, digits and hyphens', async () => {
    const login = `a-${'9'.repeat(37)}`;
    expect((await signIn(app, login)).installationId).toBeGreaterThan(0);
  });

  it('answers the profile with a generated avatar for local users', async () => {
    const user = await signIn(app, 'Dave-1');
    const response = await app.inject({ method: 'GET', url: '/api/github/user', headers: user.headers });
    expect(response.statusCode).toBe(200);
    const profile = response.json();
    expect(profile).toEqual({ login: 'Dave-1', name: null, avatar_url: expect.stringMatching(/^data:image\/svg\+xml;base64,/) });
    expect(Buffer.from(profile.avatar_url.split(',')[1], 'base64').toString()).toContain('<svg');
  });

  it('answers 401 without a session, with a forged cookie, and with another installation id', async () => {
    const user = await signIn(app, 'erin');
    const other = await signIn(app, 'frank');
    for (const headers of [
      {},
      { cookie: 'da_session=forged' },
      { cookie: `da_session=${'x'.repeat(500)}` },
      { cookie: user.cookie, 'installation-id': String(other.installationId) },
      { cookie: user.cookie, 'installation-id': 'abc' },
    ]) {
      const response = await app.inject({ method: 'GET', url: '/api/github/user', headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toEqual({ detail: expect.any(String) });
    }
  });

  it('accepts a request without Installation-Id: the session decides who the caller is', async () => {
    const user = await signIn(app, 'gina');
    const response = await app.inject({ method: 'GET', url: '/api/github/user', headers: { cookie: user.cookie } });
    expect(response.statusCode).toBe(200);
  });

  it('logs out: the session is deleted and the old cookie answers 401', async () => {
    const user = await signIn(app, 'henry');
    expect((await app.inject({ method: 'GET', url: '/api/projects', headers: user.headers })).statusCode).toBe(200);
    const logout = await app.inject({ method: 'POST', url: '/api/github/logout', headers: user.headers });
    expect(logout.statusCode).toBe(204);
    expect(String(logout.headers['set-cookie'])).toMatch(/da_session=;/);
    expect((await app.inject({ method: 'GET', url: '/api/projects', headers: user.headers })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/api/github/user', headers: user.headers })).statusCode).toBe(401);
  });

  it('serves the hidden provider logout page without a session', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/github/provider-logout' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/html');
  });

  it('does not answer GitHub callbacks when no GitHub App is configured', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/github/callback?code=x&state=y' });
    expect(response.statusCode).toBe(404);
  });
});

describe('sign-in rate limit', () => {
  it('answers 429 with a detail after the configured number of attempts per minute', async () => {
    const database = await openTestDatabase('pglite');
    const app = await buildTestApp(database, { env: { LOGIN_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 3; i++) {
        statuses.push((await app.inject({ method: 'POST', url: '/api/github/local-login', payload: { login: 'ivy' } })).statusCode);
      }
      expect(statuses).toEqual([200, 200, 429]);
      const limited = await app.inject({ method: 'POST', url: '/api/github/local-login', payload: { login: 'ivy' } });
      expect(limited.json().detail).toMatch(/Too many requests/);
    } finally {
      await app.close();
      await database.destroy();
    }
  });
});

describe('session expiry', () => {
  it('refuses a session idle for longer than SESSION_IDLE_HOURS', async () => {
    const database = await openTestDatabase('pglite');
    const idleHours = 0.0001;
    const app = await buildTestApp(database, { env: { SESSION_IDLE_HOURS: String(idleHours) } });
    try {
      const response = await app.inject({ method: 'POST', url: '/api/github/local-login', payload: { login: 'jack' } });
      const cookie = sessionCookieOf(response);
      // Idle for longer than allowed, by the clock the session store reads (any request would refresh it).
      const lastSeen = Date.now();
      await until(() => Date.now() - lastSeen > idleHours * 3_600_000, 'the session to be idle too long');
      expect((await app.inject({ method: 'GET', url: '/api/projects', headers: { cookie } })).statusCode).toBe(401);
    } finally {
      await app.close();
      await database.destroy();
    }
  });
});
