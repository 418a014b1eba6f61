import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../src/server/app';
import { loadConfig, type AppConfig } from '../../../src/server/config';
import { openDatabase, type Database } from '../../../src/server/db/client';
import { oauthStates } from '../../../src/server/db/schema';
import { createGithubProvider, OAUTH_STATE_TTL_MS } from '../../../src/server/services/auth/githubProvider';
import accessToken from '../fixtures/github/access-token.json';
import badVerificationCode from '../fixtures/github/access-token-bad-verification-code.json';
import badCredentials from '../fixtures/github/bad-credentials.json';
import serverError from '../fixtures/github/server-error.json';
import user from '../fixtures/github/user.json';
import userInstallations from '../fixtures/github/user-installations.json';
import userInstallationsEmpty from '../fixtures/github/user-installations-empty.json';

/** Matches the recorded installations (app_id 123456, app_slug devops-agents-test). */
const APP_ID = '123456';
const APP_SLUG = 'devops-agents-test';
const CLIENT_ID = 'Iv23liAbCdEfGh123456';
const CLIENT_SECRET = 'test-client-secret-0123456789abcdef01234567';
const [MINE, ORG] = userInstallations.installations.map((i) => i.id);

const s256 = (verifier: string): string => createHash('sha256').update(verifier).digest('base64url');

interface Answer {
  status: number;
  body: unknown;
}

/**
 * A local stand-in for github.com and api.github.com that replays recorded answers. Like GitHub, it
 * binds each authorization code to the PKCE challenge of its authorize step, and refuses a token
 * exchange without the right client secret and code_verifier.
 */
class FakeGithub {
  url = '';
  private server = http.createServer((req, res) => void this.handle(req, res));
  /** code → code_challenge, one use each (what GitHub's authorize page hands out). */
  readonly grants = new Map<string, string>();
  readonly tokenRequests: Record<string, unknown>[] = [];
  readonly calls: string[] = [];
  /** Replaces the recorded answer of one path. */
  readonly overrides = new Map<string, Answer>();
  /** Page size of /user/installations; GitHub's per_page when undefined. */
  pageSize: number | undefined;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  reset(): void {
    this.grants.clear();
    this.tokenRequests.length = 0;
    this.calls.length = 0;
    this.overrides.clear();
    this.pageSize = undefined;
  }

  /** What GitHub does when the person approves: a code bound to the request's challenge. */
  authorize(challenge: string): string {
    const code = randomBytes(10).toString('hex');
    this.grants.set(code, challenge);
    return code;
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    this.calls.push(`${req.method} ${url.pathname}${url.search}`);
    const send = ({ status, body }: Answer, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(body));
    };
    const override = this.overrides.get(url.pathname);
    if (override) return send(override);

    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString('utf8');
      const body = (req.headers['content-type'] ?? '').includes('json')
        ? (JSON.parse(text) as Record<string, unknown>)
        : Object.fromEntries(new URLSearchParams(text));
      this.tokenRequests.push(body);
      if (body.client_id !== CLIENT_ID || body.client_secret !== CLIENT_SECRET) {
        return send({
          status: 200,
          body: { error: 'incorrect_client_credentials', error_description: 'The client_id and/or client_secret passed are incorrect.' },
        });
      }
      const challenge = this.grants.get(String(body.code));
      this.grants.delete(String(body.code));
      if (challenge === undefined) return send({ status: 200, body: badVerificationCode });
      if (typeof body.code_verifier !== 'string' || s256(body.code_verifier) !== challenge) {
        return send({ status: 200, body: { error: 'invalid_grant', error_description: 'The code_verifier does not match the code_challenge supplied in the authorization request for PKCE.' } });
      }
      return send({ status: 200, body: accessToken });
    }

    if (req.headers.authorization?.replace(/^(token|bearer) /i, '') !== accessToken.access_token) {
      return send({ status: 401, body: badCredentials });
    }
    if (req.method === 'GET' && url.pathname === '/user') return send({ status: 200, body: user });
    if (req.method === 'GET' && url.pathname === '/user/installations') {
      const all = userInstallations.installations;
      const perPage = this.pageSize ?? Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      const last = Math.max(1, Math.ceil(all.length / perPage));
      const link = (p: number) => `<${this.url}/user/installations?per_page=${perPage}&page=${p}>`;
      const links = [...(page < last ? [`${link(page + 1)}; rel="next"`, `${link(last)}; rel="last"`] : [])];
      return send(
        { status: 200, body: { total_count: all.length, installations: all.slice((page - 1) * perPage, page * perPage) } },
        links.length ? { link: links.join(', ') } : {},
      );
    }
    return send({ status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest', status: '404' } });
  }
}

const fake = new FakeGithub();
let database: Database;
let config: AppConfig;
let app: FastifyInstance;

beforeAll(async () => {
  await fake.start();
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  config = loadConfig({
    GITHUB_APP_ID: APP_ID,
    GITHUB_APP_PRIVATE_KEY: privateKey,
    GITHUB_CLIENT_ID: CLIENT_ID,
    GITHUB_CLIENT_SECRET: CLIENT_SECRET,
    GITHUB_APP_SLUG: APP_SLUG,
    GITHUB_API_URL: fake.url,
    GITHUB_WEB_URL: fake.url,
    LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
  });
  database = await openDatabase({ migrationsDir: 'migrations' });
  app = await buildApp({ config, database, logger: false });
});

afterAll(async () => {
  await app?.close();
  await database?.close();
  await fake.close();
});

beforeEach(() => fake.reset());

/** GET /api/github/login, as the browser does it: the state and PKCE challenge it carries. */
async function startLogin() {
  const res = await app.inject({ method: 'GET', url: '/api/github/login' });
  expect(res.statusCode).toBe(302);
  const location = new URL(String(res.headers.location));
  return { location, state: location.searchParams.get('state')!, challenge: location.searchParams.get('code_challenge')! };
}

function callback(params: Record<string, string>) {
  return app.inject({ method: 'GET', url: `/api/github/callback?${new URLSearchParams(params)}` });
}

/** Login, approval at GitHub, and the callback GitHub redirects to. */
async function signIn(extra: Record<string, string> = {}) {
  const { state, challenge } = await startLogin();
  const code = fake.authorize(challenge);
  return { state, challenge, code, res: await callback({ code, state, ...extra }) };
}

const sessionCookie = (res: { cookies: { name: string; value: string }[] }) => res.cookies.find((c) => c.name === 'da_session');

describe('GitHub App sign-in', () => {
  test('the configuration selects the GitHub provider', () => {
    expect(config.github).toMatchObject({ apiUrl: fake.url, webUrl: fake.url, slug: APP_SLUG });
  });

  test('login redirects to the authorize page with a stored one-time state and an S256 challenge', async () => {
    const before = Date.now();
    const { location, state, challenge } = await startLogin();
    expect(`${location.origin}${location.pathname}`).toBe(`${fake.url}/login/oauth/authorize`);
    expect(location.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    expect(location.searchParams.has('redirect_uri')).toBe(false);
    expect(Buffer.from(state, 'base64url').length).toBeGreaterThanOrEqual(16);
    expect(challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const [row] = await database.db.select().from(oauthStates).where(eq(oauthStates.state, state));
    expect(row).toBeDefined();
    expect(row!.codeVerifier).toMatch(/^[A-Za-z0-9._~-]{43,128}$/);
    expect(s256(row!.codeVerifier)).toBe(challenge);
    expect(row!.expiresAt.getTime()).toBeGreaterThanOrEqual(before + OAUTH_STATE_TTL_MS);
    expect(row!.expiresAt.getTime()).toBeLessThanOrEqual(Date.now() + OAUTH_STATE_TTL_MS);

    const second = await startLogin();
    expect(second.state).not.toBe(state);
    expect(second.challenge).not.toBe(challenge);
  });

  test('the callback signs in, redirects to /github-success and the session answers the GitHub profile', async () => {
    const { code, res } = await signIn({ installation_id: String(MINE), setup_action: 'install' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`/github-success?installation_id=${MINE}`);
    const cookie = sessionCookie(res);
    expect(cookie?.value).toBeTruthy();
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });

    // The client secret and the PKCE verifier reached GitHub with the code.
    expect(fake.tokenRequests).toHaveLength(1);
    expect(fake.tokenRequests[0]).toMatchObject({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, code });
    expect(fake.tokenRequests[0]).not.toHaveProperty('redirect_uri');
    expect(fake.calls).toEqual(['POST /login/oauth/access_token', 'GET /user', 'GET /user/installations?per_page=100']);

    const profile = await app.inject({ method: 'GET', url: '/api/github/user', cookies: { da_session: cookie!.value } });
    expect(profile.statusCode).toBe(200);
    expect(profile.json()).toEqual({ login: user.login, name: user.name, avatar_url: user.avatar_url });

    const projects = await app.inject({
      method: 'GET',
      url: '/api/projects',
      cookies: { da_session: cookie!.value },
      headers: { 'installation-id': String(MINE) },
    });
    expect(projects.statusCode).toBe(200);
  });

  test('without installation_id, the first installation of this app is used', async () => {
    const { res } = await signIn();
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`/github-success?installation_id=${MINE}`);
  });

  test('installations are paginated: one on a later page is accepted', async () => {
    fake.pageSize = 1;
    const { res } = await signIn({ installation_id: String(ORG) });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe(`/github-success?installation_id=${ORG}`);
    expect(fake.calls.filter((c) => c.startsWith('GET /user/installations'))).toHaveLength(2);
  });

  test('an installation_id the user does not have answers 401 and sets no cookie', async () => {
    const { res } = await signIn({ installation_id: '99999999' });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toMatch(/not one of octocat's installations/);
    expect(sessionCookie(res)).toBeUndefined();
  });

  test('a user without an installation is told to install the app', async () => {
    fake.overrides.set('/user/installations', { status: 200, body: userInstallationsEmpty });
    const { res } = await signIn();
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toBe(`Install the GitHub App first: ${fake.url}/apps/${APP_SLUG}/installations/new`);
    expect(sessionCookie(res)).toBeUndefined();
  });

  test('an unknown state answers 401 without calling GitHub', async () => {
    const { challenge } = await startLogin();
    const res = await callback({ code: fake.authorize(challenge), state: 'not-a-state-we-issued' });
    expect(res.statusCode).toBe(401);
    expect(sessionCookie(res)).toBeUndefined();
    expect(fake.calls).toEqual([]);
  });

  test('a missing code or state answers 401', async () => {
    const { state, challenge } = await startLogin();
    expect((await callback({ state })).statusCode).toBe(401);
    expect((await callback({ code: fake.authorize(challenge) })).statusCode).toBe(401);
    expect(fake.calls).toEqual([]);
  });

  test('a state works once: reusing it answers 401', async () => {
    const first = await signIn();
    expect(first.res.statusCode).toBe(302);
    fake.calls.length = 0;
    const replay = await callback({ code: fake.authorize(first.challenge), state: first.state });
    expect(replay.statusCode).toBe(401);
    expect(sessionCookie(replay)).toBeUndefined();
    expect(fake.calls).toEqual([]);
  });

  test('an expired state answers 401', async () => {
    const { state, challenge } = await startLogin();
    await database.db.update(oauthStates).set({ expiresAt: new Date(Date.now() - 1000) }).where(eq(oauthStates.state, state));
    const res = await callback({ code: fake.authorize(challenge), state });
    expect(res.statusCode).toBe(401);
    expect(sessionCookie(res)).toBeUndefined();
    expect(fake.calls).toEqual([]);
  });

  test('a state expires ten minutes after login', async () => {
    let clock = new Date('2030-01-01T00:00:00Z');
    const provider = createGithubProvider({ db: database.db, github: config.github!, now: () => clock });
    const late = new URL(await provider.beginLogin());
    clock = new Date(clock.getTime() + OAUTH_STATE_TTL_MS + 1);
    await expect(
      provider.completeLogin({ code: fake.authorize(late.searchParams.get('code_challenge')!), state: late.searchParams.get('state')! }),
    ).rejects.toMatchObject({ statusCode: 401 });

    clock = new Date('2030-01-01T00:00:00Z');
    const onTime = new URL(await provider.beginLogin());
    clock = new Date(clock.getTime() + OAUTH_STATE_TTL_MS - 1000);
    await expect(
      provider.completeLogin({ code: fake.authorize(onTime.searchParams.get('code_challenge')!), state: onTime.searchParams.get('state')! }),
    ).resolves.toEqual({ githubUserId: user.id, login: user.login, name: user.name, avatarUrl: user.avatar_url, installationId: MINE });
  });

  test('a code bound to another PKCE challenge is refused by GitHub: 401', async () => {
    const victim = await startLogin();
    const attacker = await startLogin();
    const res = await callback({ code: fake.authorize(attacker.challenge), state: victim.state });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: 'GitHub sign-in failed' });
    expect(fake.calls).toEqual(['POST /login/oauth/access_token']);
  });

  test.each([
    ['/login/oauth/access_token', 500, serverError],
    ['/login/oauth/access_token', 200, badVerificationCode],
    ['/user', 401, badCredentials],
    ['/user', 500, serverError],
    ['/user/installations', 401, badCredentials],
    ['/user/installations', 500, serverError],
  ])('GitHub answering %s with %i gives 401 "GitHub sign-in failed", never a 500', async (path, status, body) => {
    fake.overrides.set(path, { status, body });
    const { res } = await signIn({ installation_id: String(MINE) });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ detail: 'GitHub sign-in failed' });
    expect(sessionCookie(res)).toBeUndefined();
  });

  test('GitHub unreachable gives 401 "GitHub sign-in failed"', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const provider = createGithubProvider({ db: database.db, github: { ...config.github!, apiUrl: deadUrl, webUrl: deadUrl } });
    const deadApp = await buildApp({ config, database, identityProvider: provider, logger: false });
    try {
      const login = new URL(String((await deadApp.inject({ method: 'GET', url: '/api/github/login' })).headers.location));
      const res = await deadApp.inject({
        method: 'GET',
        url: `/api/github/callback?${new URLSearchParams({ code: 'abc', state: login.searchParams.get('state')! })}`,
      });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ detail: 'GitHub sign-in failed' });
    } finally {
      await deadApp.close();
    }
  });

  test('local sign-in answers 404 in GitHub mode', async () => {
    const res = await app.inject({ method: 'POST', url: '/api/github/local-login', payload: { login: 'alice' } });
    expect(res.statusCode).toBe(404);
    expect(sessionCookie(res)).toBeUndefined();
  });
});
