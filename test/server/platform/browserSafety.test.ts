import type { FastifyInstance } from 'fastify';
import { ConfigError } from '../../../src/server/config';
import { buildTestApp, signIn, testConfig, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

describe('requests from browsers: origin, headers, proxies', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  const ORIGIN = 'http://127.0.0.1:8080';

  beforeAll(async () => {
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { ALLOWED_ORIGINS: 'http://127.0.0.1:3000', LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  const signedIn = async (user: TestUser) =>
    (await app.inject({ method: 'GET', url: '/api/github/user', headers: { cookie: user.cookie } })).statusCode === 200;

  it('refuses state-changing requests from another origin of the same site, with a 403 {detail}', async () => {
    const cookie = { cookie: alice.cookie };
    for (const origin of ['http://127.0.0.1:9999', 'http://localhost:8080', 'https://127.0.0.1:8080', 'null']) {
      const create = await app.inject({ method: 'POST', url: '/api/projects', headers: { ...cookie, origin }, payload: { name: 'csrf' } });
      expect({ origin, status: create.statusCode }).toEqual({ origin, status: 403 });
      expect(create.json().detail).toBe(`Cross-origin request refused: ${origin} is not this app's origin`);
      const logout = await app.inject({ method: 'POST', url: '/api/github/logout', headers: { ...cookie, origin } });
      expect(logout.statusCode).toBe(403);
    }
    expect(await signedIn(alice)).toBe(true);
    expect((await app.inject({ method: 'GET', url: '/api/projects', headers: { ...cookie, origin: 'http://127.0.0.1:9999' } })).statusCode).toBe(200);
  });

  it('lets the exact origins through, and clients that send no Origin unless Sec-Fetch-Site says another site', async () => {
    const post = (headers: Record<string, string>) =>
      app.inject({ method: 'POST', url: '/api/projects', headers: { cookie: alice.cookie, ...headers }, payload: { name: 'ok' } });
    expect((await post({ origin: ORIGIN })).statusCode).toBe(201);
    expect((await post({ origin: 'http://127.0.0.1:3000' })).statusCode).toBe(201);
    expect((await post({})).statusCode).toBe(201);
    expect((await post({ 'sec-fetch-site': 'same-origin' })).statusCode).toBe(201);
    for (const site of ['same-site', 'cross-site']) {
      const refused = await post({ 'sec-fetch-site': site });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ detail: `Cross-site request refused (Sec-Fetch-Site: ${site})` });
    }
  });

  it('sends the API reference (/api/docs, its page, assets and document) a Content-Security-Policy: its own origin and its inline code by hash', async () => {
    const page = await app.inject('/api/docs');
    expect(page.statusCode).toBe(200);
    const urls = ['/api/docs', '/api/docs/', '/api/docs/static/index.html', '/api/docs/static/swagger-initializer.js', '/api/docs/json', '/api/openapi.json'];
    for (const url of urls) {
      const answer = await app.inject(url);
      const csp = String(answer.headers['content-security-policy'] ?? '');
      expect({ url, hasPolicy: csp.length > 0 }).toEqual({ url, hasPolicy: true });
      expect(csp).not.toContain('upgrade-insecure-requests');
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    }
    expect(String(page.headers['content-security-policy'])).toMatch(/script-src 'self'( 'sha256-[^']+')*;/);
    expect(String(page.headers['content-security-policy'])).not.toContain('https:');
  });

  it('sends pages a Content-Security-Policy limited to its own origin, API answers one that allows nothing, and no HSTS over http', async () => {
    const page = await app.inject('/');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self' 'unsafe-inline'");
    expect(csp).toContain("img-src 'self' data:");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("default-src 'self'");
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    for (const url of ['/api/health', '/api/projects', '/api/no-such-route']) {
      const answer = await app.inject({ url, headers: { cookie: alice.cookie } });
      expect({ url, csp: answer.headers['content-security-policy'], frames: answer.headers['x-frame-options'] }).toEqual({ url, csp: "default-src 'none'; frame-ancestors 'none'", frames: 'DENY' });
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
    }
    // The API's own page (the provider's sign-out, loaded in a frame of the app) is a page.
    const signOutPage = await app.inject('/api/github/provider-logout');
    expect(signOutPage.headers['content-type']).toMatch(/^text\/html/);
    expect({ csp: signOutPage.headers['content-security-policy'], frames: signOutPage.headers['x-frame-options'] }).toEqual({ csp, frames: 'SAMEORIGIN' });
    for (const response of [page, await app.inject('/api/health')]) expect(response.headers['strict-transport-security']).toBeUndefined();
  });

  it('sends an API 304 its ETag and Cache-Control only: the answer it revalidates keeps its security headers', async () => {
    for (const route of [{ url: '/api/user/credits' }, { url: '/api/user/credits?by=route' }]) {
      const full = await app.inject({ ...route, headers: { cookie: alice.cookie } });
      expect(full.statusCode).toBe(200);
      expect(full.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
      const revalidated = await app.inject({ ...route, headers: { cookie: alice.cookie, 'if-none-match': String(full.headers.etag) } });
      expect(revalidated.statusCode).toBe(304);
      const { date: _date, connection: _connection, ...headers } = revalidated.headers;
      expect(headers).toEqual({ etag: full.headers.etag, 'cache-control': 'private, no-cache' });
    }
  });

  it('sends HSTS behind an https PUBLIC_URL', async () => {
    const secure = await buildTestApp(database, { env: { PUBLIC_URL: 'https://ops.example.com' } });
    try {
      const response = await secure.inject('/api/health');
      expect(response.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    } finally {
      await secure.close();
    }
  });

  it('takes trusted proxies as a list of addresses and refuses TRUST_PROXY=true', () => {
    expect(() => testConfig({ TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => testConfig({ TRUST_PROXY: '10.0.0.1,evil' })).toThrow(/"evil" is not an IP address/);
    expect(testConfig({ TRUST_PROXY: '10.0.0.1, 192.168.0.0/16,loopback' }).trustProxy).toEqual(['10.0.0.1', '192.168.0.0/16', 'loopback']);
    expect(testConfig({}).trustProxy).toBe(false);
  });

  it('keeps the login limit per client: X-Forwarded-For counts only when a listed proxy sent it', async () => {
    const proxied = await buildTestApp(database, { env: { TRUST_PROXY: '10.0.0.1', LOGIN_RATE_LIMIT_PER_MINUTE: '2' } });
    try {
      const login = (remoteAddress: string, forwardedFor: string) =>
        proxied.inject({ method: 'POST', url: '/api/github/local-login', remoteAddress, headers: { 'x-forwarded-for': forwardedFor }, payload: { login: 'dave' } });
      // A client talking to the server directly cannot buy new attempts with made-up X-Forwarded-For.
      const direct = [];
      for (let i = 0; i < 4; i += 1) direct.push((await login('203.0.113.9', `198.51.100.${i}`)).statusCode);
      expect(direct).toEqual([200, 200, 429, 429]);
      // Through the listed proxy, each client behind it has its own budget.
      expect((await login('10.0.0.1', '198.51.100.50')).statusCode).toBe(200);
      expect((await login('10.0.0.1', '198.51.100.51')).statusCode).toBe(200);
    } finally {
      await proxied.close();
    }
  });
});
