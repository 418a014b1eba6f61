import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Value } from 'typebox/value';
import { BranchesResponse, RepositoriesResponse } from '../../../src/shared/api/repositories';
import { LOCAL_REPOS_UNSET_MESSAGE } from '../../../src/server/services/repositories/localRepositories';
import { FakeGithubApi } from '../helpers/fakeGithubApi';
import { makeBareClone, makeRepository, runGit } from '../helpers/gitRepos';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import installationRepositories from '../fixtures/github/installation-repositories.json';
import repoBranches from '../fixtures/github/repo-branches.json';

let tmp: string;
let reposDir: string;
let database: TestDatabase;
let shas: Record<string, string>;

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'da-repos-'));
  reposDir = path.join(tmp, 'repos');
  shas = makeRepository(path.join(reposDir, 'shop'), [
    {
      name: 'main',
      date: '2025-03-04T05:06:07Z',
      files: {
        'README.md': '# shop\n\nOnline shop API for the corner store.\n',
        'package.json': JSON.stringify({ name: 'shop', dependencies: { express: '^4.19.0' }, devDependencies: { typescript: '^5.4.0' } }),
        'src/index.ts': 'import express from "express";\nconst app = express();\napp.listen(3000);\n'.repeat(20),
        'src/util.js': 'module.exports = {};\n',
      },
    },
    { name: 'feature/docker', date: '2025-03-05T00:00:00Z', files: { Dockerfile: 'FROM node:20-alpine\n' } },
  ]);
  const py = makeRepository(path.join(tmp, 'py-src'), [
    { name: 'master', date: '2024-12-01T00:00:00Z', files: { 'requirements.txt': 'Django==5.0\n', 'app/main.py': 'print("hi")\n' } },
  ]);
  shas.pyMaster = py.master!;
  makeBareClone(path.join(tmp, 'py-src'), path.join(reposDir, 'pyapp.git'));
  fs.writeFileSync(path.join(reposDir, 'pyapp.git', 'description'), 'Python app served from a bare repository\n');
  fs.mkdirSync(path.join(reposDir, 'notes'));
  fs.writeFileSync(path.join(reposDir, 'notes', 'todo.txt'), 'not a repository\n');
  makeRepository(path.join(tmp, 'outside', 'private'), [{ name: 'main', files: { 'secret.txt': 'outside the root\n' } }]);
  fs.symlinkSync(path.join(tmp, 'outside', 'private'), path.join(reposDir, 'escape'));
  database = await openTestDatabase('pglite');
});

afterAll(async () => {
  await database.destroy();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('local provider', () => {
  let app: FastifyInstance;
  let alice: TestUser;

  beforeAll(async () => {
    app = await buildTestApp(database, { env: { LOCAL_REPOS_DIR: reposDir } });
    alice = await signIn(app, 'alice');
  });
  afterAll(() => app.close());

  const get = (url: string, user = alice) => app.inject({ method: 'GET', url, headers: user.headers });
  const branches = (fullName: string) => get(`/api/planning/repository/branches?repo_full_name=${encodeURIComponent(fullName)}`);

  test('lists the git repositories under LOCAL_REPOS_DIR (work trees and bare), with what git tells about them', async () => {
    const res = await get('/api/github/repositories');
    expect(res.statusCode).toBe(200);
    const body = res.json<RepositoriesResponse>();
    expect(Value.Check(RepositoriesResponse, body)).toBe(true);
    expect(body.requires_permission_request).toBe(false);
    expect(body.message).toBeNull();
    expect(body.repositories.map((r) => r.full_name)).toEqual(['local/shop', 'local/pyapp.git']);
    const [shop, pyapp] = body.repositories;
    expect(shop).toEqual({
      id: expect.any(Number),
      name: 'shop',
      full_name: 'local/shop',
      description: 'Online shop API for the corner store.',
      private: true,
      language: 'TypeScript',
      stargazers_count: 0,
      updated_at: '2025-03-04T05:06:07.000Z',
      default_branch: 'main',
    });
    expect(pyapp).toMatchObject({ description: 'Python app served from a bare repository', language: 'Python', default_branch: 'master', updated_at: '2024-12-01T00:00:00.000Z' });
    // The listing changes nothing in the repositories.
    expect(runGit(path.join(reposDir, 'shop'), ['status', '--porcelain'])).toBe('');
  });

  test('branches are read with git, each with its head commit', async () => {
    const res = await branches('local/shop');
    expect(res.statusCode).toBe(200);
    expect(Value.Check(BranchesResponse, res.json())).toBe(true);
    expect(res.json()).toEqual({
      branches: [
        { name: 'feature/docker', protected: false, commit_sha: shas['feature/docker'] },
        { name: 'main', protected: false, commit_sha: shas.main },
      ],
    });
    expect((await branches('local/pyapp.git')).json()).toEqual({ branches: [{ name: 'master', protected: false, commit_sha: shas.pyMaster }] });
  });

  test("a clone offers its origin's branches too (origin/*), after its own", async () => {
    const clone = path.join(reposDir, 'shop-clone');
    execFileSync('git', ['clone', '--quiet', path.join(reposDir, 'shop'), clone]);
    try {
      expect((await branches('local/shop-clone')).json()).toEqual({
        branches: [
          { name: 'main', protected: false, commit_sha: shas.main },
          { name: 'origin/feature/docker', protected: false, commit_sha: shas['feature/docker'] },
          { name: 'origin/main', protected: false, commit_sha: shas.main },
        ],
      });
    } finally {
      fs.rmSync(clone, { recursive: true, force: true });
    }
  });

  test.each([
    ['local/..', 404],
    ['local/.', 404],
    ['local/escape', 404],
    ['local/notes', 404],
    ['local/missing', 404],
    ['octocat/shop', 404],
    ['../etc', 400],
    ['local/../../etc', 400],
    ['/etc/passwd', 400],
    ['local/shop/../..', 400],
    ['', 400],
  ])('branches of %j answer %i and read nothing outside LOCAL_REPOS_DIR', async (name, status) => {
    const res = await branches(name);
    expect(res.statusCode).toBe(status);
    expect(res.json()).toHaveProperty('detail');
    expect(res.body).not.toContain(path.join(tmp, 'outside'));
  });

  test('a symlink inside LOCAL_REPOS_DIR to a repository outside it is neither listed nor readable', async () => {
    const names = (await get('/api/github/repositories')).json<RepositoriesResponse>().repositories.map((r) => r.name);
    expect(names).not.toContain('escape');
    expect(names).not.toContain('notes');
  });

  test('repositories and branches need a session', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/github/repositories' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/api/planning/repository/branches?repo_full_name=local/shop' })).statusCode).toBe(401);
  });
});

describe('local provider without LOCAL_REPOS_DIR', () => {
  test('answers an empty list whose message says how to set it', async () => {
    const app = await buildTestApp(database);
    try {
      const alice = await signIn(app, 'alice');
      const res = await app.inject({ method: 'GET', url: '/api/github/repositories', headers: alice.headers });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ repositories: [], requires_permission_request: false, message: LOCAL_REPOS_UNSET_MESSAGE });
      expect(LOCAL_REPOS_UNSET_MESSAGE).toContain('LOCAL_REPOS_DIR');
      const branches = await app.inject({ method: 'GET', url: '/api/planning/repository/branches?repo_full_name=local/shop', headers: alice.headers });
      expect(branches.statusCode).toBe(404);
    } finally {
      await app.close();
    }
  });
});

describe('GitHub provider', () => {
  const APP_ID = '123456';
  const INSTALLATION = 48123456;
  let fake: FakeGithubApi;
  let app: FastifyInstance;
  let headers: Record<string, string>;

  beforeAll(async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    fake = new FakeGithubApi(APP_ID, publicKey, INSTALLATION);
    await fake.start();
    app = await buildTestApp(database, {
      env: {
        GITHUB_APP_ID: APP_ID,
        GITHUB_APP_PRIVATE_KEY: privateKey,
        GITHUB_CLIENT_ID: 'Iv23liAbCdEfGh123456',
        GITHUB_CLIENT_SECRET: 'test-client-secret',
        GITHUB_APP_SLUG: 'devops-agents-test',
        GITHUB_API_URL: fake.url,
        GITHUB_WEB_URL: fake.url,
        LOCAL_REPOS_DIR: reposDir,
      },
    });
    const who = await app.services.auth.signInGithub({ githubUserId: 583231, login: 'octocat', name: 'The Octocat', avatarUrl: null, installationId: INSTALLATION });
    const token = await app.services.sessions.create(who.userId, who.installationId);
    headers = { cookie: `da_session=${token}`, 'installation-id': String(INSTALLATION) };
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });
  beforeEach(() => {
    fake.calls.length = 0;
    fake.pageSize = undefined;
  });

  test("lists the installation's repositories with an installation token (all pages)", async () => {
    fake.pageSize = 1;
    const res = await app.inject({ method: 'GET', url: '/api/github/repositories', headers });
    expect(res.statusCode).toBe(200);
    const body = res.json<RepositoriesResponse>();
    expect(Value.Check(RepositoriesResponse, body)).toBe(true);
    expect(body).toMatchObject({ requires_permission_request: false, message: null });
    const [shop, hello] = installationRepositories.repositories;
    expect(body.repositories).toEqual([
      { id: shop!.id, name: 'shop-api', full_name: 'octocat/shop-api', description: 'Online shop API', private: true, language: 'TypeScript', stargazers_count: 3, updated_at: shop!.pushed_at, default_branch: 'main' },
      { id: hello!.id, name: 'Hello-World', full_name: 'octocat/Hello-World', description: hello!.description, private: false, language: null, stargazers_count: 2873, updated_at: hello!.updated_at, default_branch: 'master' },
    ]);
    expect(fake.calls.filter((c) => c.startsWith('POST /app/installations/48123456/access_tokens'))).toHaveLength(1);
    expect(fake.calls.filter((c) => c.startsWith('GET /installation/repositories'))).toHaveLength(2);
    // Local folders are not offered with the GitHub provider.
    expect(body.repositories.some((r) => r.full_name.startsWith('local/'))).toBe(false);
  });

  test('branches come from the branches API with their protection', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/planning/repository/branches?repo_full_name=octocat/shop-api', headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ branches: repoBranches.map((b) => ({ name: b.name, protected: b.protected, commit_sha: b.commit.sha })) });
  });

  test('a repository the installation was not granted answers 404, even a public one, without asking for its branches', async () => {
    for (const name of ['torvalds/linux', 'local/shop']) {
      fake.calls.length = 0;
      const res = await app.inject({ method: 'GET', url: `/api/planning/repository/branches?repo_full_name=${name}`, headers });
      expect(res.statusCode).toBe(404);
      expect(fake.calls.some((c) => c.includes('/branches'))).toBe(false);
    }
  });

  test('an installation the App cannot read answers requires_permission_request with a message', async () => {
    const who = await app.services.auth.signInGithub({ githubUserId: 1, login: 'someone', name: null, avatarUrl: null, installationId: 777 });
    const token = await app.services.sessions.create(who.userId, who.installationId);
    const res = await app.inject({ method: 'GET', url: '/api/github/repositories', headers: { cookie: `da_session=${token}`, 'installation-id': '777' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ repositories: [], requires_permission_request: true });
    expect(res.json<RepositoriesResponse>().message).toContain(`${fake.url}/apps/devops-agents-test/installations/new`);
  });

  // Last in this block: it stops the fake GitHub.
  test('GitHub unreachable answers 502 with a detail, never a 500', async () => {
    await fake.close();
    for (const url of ['/api/github/repositories', '/api/planning/repository/branches?repo_full_name=octocat/shop-api']) {
      const res = await app.inject({ method: 'GET', url, headers });
      expect({ url, status: res.statusCode }).toEqual({ url, status: 502 });
      expect(res.json().detail).toMatch(/upstream service/);
    }
  });
});
