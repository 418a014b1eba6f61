import { generateKeyPairSync } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { Value } from 'typebox/value';
import { RepositoryAnalysis } from '../../../src/shared/api/planning';
import type { Repository } from '../../../src/shared/api/repositories';
import type { StreamEvent } from '../../../src/shared/events';
import { FakeGithubApi } from '../helpers/fakeGithubApi';
import { makeRepository, runGit } from '../helpers/gitRepos';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import installationRepositories from '../fixtures/github/installation-repositories.json';
import repoBranches from '../fixtures/github/repo-branches.json';

const CANARY = 'canary-5be1f0a2-env-value';
const CANARY_2 = 'canary-77d2c9e4-other-value';

/** Parses an SSE body, checking the framing: every frame is one `data: {json}` line. */
function framesOf(body: string): StreamEvent[] {
  const frames = body.split('\n\n');
  expect(frames.pop()).toBe('');
  return frames.map((f) => {
    expect(f).toMatch(/^data: \{.*\}$/);
    return JSON.parse(f.slice('data: '.length)) as StreamEvent;
  });
}
const textOf = (events: StreamEvent[]): string => events.filter((e) => e.event === 'on_chat_model_stream').map((e) => e.chunk!.content).join('');

/** A Node.js/TypeScript API with PostgreSQL and Redis, containerised on its `deploy` branch. */
const SHOP_MAIN = {
  'README.md': '# shop\n\nOnline shop API.\n',
  'package.json': JSON.stringify({
    name: 'shop',
    engines: { node: '>=20' },
    scripts: { build: 'tsc', start: 'node dist/index.js' },
    dependencies: { express: '^4.19.0', pg: '^8.11.0', ioredis: '^5.4.0' },
    devDependencies: { typescript: '^5.4.0' },
  }),
  'package-lock.json': '{}',
  'tsconfig.json': '{}',
  'src/index.ts': 'import express from "express";\n'.repeat(40),
  '.env.example': 'DATABASE_URL=postgres://localhost/shop\nREDIS_URL=redis://localhost:6379\nSESSION_SECRET=change-me\nSMTP_HOST=\n',
  '.github/workflows/ci.yml': 'name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n',
};
const SHOP_DEPLOY = {
  Dockerfile: 'FROM node:20-alpine AS build\nWORKDIR /app\nCOPY . .\nRUN npm ci && npm run build\nFROM node:20-alpine\nCOPY --from=build /app/dist /app/dist\nEXPOSE 3000\nCMD ["node", "/app/dist/index.js"]\n',
  'docker-compose.yml': 'services:\n  app:\n    build: .\n    ports: ["3000:3000"]\n  db:\n    image: postgres:16.4\n  cache:\n    image: redis:7.4-alpine\n',
};

const analyzerBody = (repository: Partial<Repository> & { full_name: string }, branch: string, configs = [{ name: 'environment1', description: 'Production', content: '' }]) => ({
  repository_data: {
    id: 1,
    name: repository.full_name.split('/')[1],
    description: null,
    private: true,
    language: null,
    stargazers_count: 0,
    updated_at: null,
    default_branch: 'main',
    ...repository,
  },
  environment_configs: configs,
  branch,
});

let tmp: string;
let database: TestDatabase;
let logLines: string[];
const logger = () => ({
  level: 'trace',
  stream: new Writable({
    write(chunk: Buffer, _enc, cb) {
      logLines.push(chunk.toString('utf8'));
      cb();
    },
  }),
});

/** Everything the planning tables hold, as text: documents, threads, secrets, and the checkpoints (the model's messages) decoded. */
async function storedText(): Promise<string> {
  const rows = async (query: string): Promise<string[]> =>
    ((await database.db.execute(sql.raw(query))) as unknown as { rows: Array<{ row: string }> }).rows.map((r) => r.row);
  const unb64 = (text: string): string => Buffer.from(text, 'base64').toString('utf8');
  return [
    ...(await rows('select t::text as row from planning_documents t')),
    ...(await rows('select t::text as row from planning_threads t')),
    ...(await rows('select t::text as row from planning_secrets t')),
    ...(await rows('select checkpoint as row from planning_checkpoints')).map(unb64),
    ...(await rows('select metadata as row from planning_checkpoints')).map(unb64),
    ...(await rows('select value as row from planning_checkpoint_writes')).map(unb64),
  ].join('\n');
}

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'da-analyzer-'));
  makeRepository(path.join(tmp, 'repos', 'shop'), [
    { name: 'main', files: SHOP_MAIN },
    { name: 'deploy', files: SHOP_DEPLOY },
  ]);
  database = await openTestDatabase('pglite');
  logLines = [];
});
afterAll(async () => {
  await database.destroy();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('analyzer with the local provider', () => {
  let app: FastifyInstance;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    app = await buildTestApp(database, { env: { LOCAL_REPOS_DIR: path.join(tmp, 'repos'), DATA_DIR: tmp }, logger: logger() });
    alice = await signIn(app, 'alice');
    bob = await signIn(app, 'bob');
  });
  afterAll(() => app.close());

  async function newProject(user: TestUser, name: string): Promise<number> {
    return (await app.inject({ method: 'POST', url: '/api/projects', headers: user.headers, payload: { name } })).json<{ id: number }>().id;
  }
  const call = (user: TestUser, projectId: number, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.inject({ method, url, headers: { ...user.headers, 'project-id': String(projectId) }, payload: payload as Record<string, unknown> | undefined });

  test('streams a real analysis of the chosen branch, stores it in the spec shape, and the requirements pick it up', async () => {
    const projectId = await newProject(alice, 'shop');
    expect((await call(alice, projectId, 'GET', '/api/planning/analysis')).json()).toEqual({ message: 'No analysis found for this project' });

    const configs = [
      { name: 'environment1', description: 'Production', content: `# production\nDATABASE_URL=postgres://shop:${CANARY}@db/shop\nexport SESSION_SECRET="${CANARY_2}"\nnot a variable ${CANARY}\n` },
      { name: 'environment2', description: 'Staging', content: `DATABASE_URL=postgres://shop:${CANARY_2}@db/staging\n` },
    ];
    const res = await call(alice, projectId, 'POST', '/api/planning/analyzer', analyzerBody({ full_name: 'local/shop', description: 'anything the client says' }, 'deploy', configs));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = framesOf(res.body);
    expect(events.filter((e) => e.event === 'on_chat_model_end')).toHaveLength(1);
    expect(events.at(-1)!.event).toBe('on_chat_model_end');
    const text = textOf(events);
    expect(text).toContain('local/shop on deploy');
    expect(text).toContain('Dockerfile');
    expect(res.body).not.toContain(CANARY);
    expect(res.body).not.toContain(CANARY_2);

    const analysis = (await call(alice, projectId, 'GET', '/api/planning/analysis')).json<RepositoryAnalysis>();
    expect(Value.Check(RepositoryAnalysis, analysis)).toBe(true);
    expect(analysis.repository).toEqual({ full_name: 'local/shop', language: 'TypeScript', default_branch: 'main', private: true, description: 'Online shop API.' });
    expect(analysis.repo_analysis.technology_stack).toMatchObject({
      language: 'TypeScript',
      runtime: ['Node.js >=20'],
      frameworks: ['Express'],
      databases: ['PostgreSQL'],
      services: ['Redis'],
      package_managers: ['npm'],
      containerization: ['Dockerfile', 'Docker Compose'],
      base_images: ['node:20-alpine'],
      compose_services: ['app', 'cache', 'db'],
      ports: [3000],
      ci: ['GitHub Actions'],
      build_command: 'npm run build',
      start_command: 'npm start',
    });
    expect(analysis.environment.env_content_summary).toContain('environment1 (Production): 2 variables — DATABASE_URL, SESSION_SECRET');
    expect(analysis.environment.env_content_summary).toContain('environment2 (Staging): 1 variable — DATABASE_URL');
    expect(analysis.environment.env_content_summary).toContain('not provided: REDIS_URL, SMTP_HOST');
    expect(Object.keys(analysis.user_questions.questions).length).toBeGreaterThan(0);
    expect(analysis.deployment_plan.deployment_steps.length).toBeGreaterThan(0);
    expect(analysis.analysis).toContain('Dockerfile');
    expect(analysis.message).toBe('Analysis complete');

    // The dialog's variables are user secrets: values sealed, names listed, GITHUB_TOKEN the server's.
    const secrets = (await call(alice, projectId, 'GET', '/api/planning/requirements/user-secrets')).json<{ secrets: Array<{ name: string; provided: boolean }> }>().secrets;
    expect(secrets.find((s) => s.name === 'GITHUB_TOKEN')).toMatchObject({ provided: true });
    expect(secrets.find((s) => s.name === 'SESSION_SECRET')).toMatchObject({ provided: true, required: true, secret_type: 'password' });
    // Production and staging disagree: the person enters the value to deploy.
    expect(secrets.find((s) => s.name === 'DATABASE_URL')).toMatchObject({ provided: false });
    expect(await app.services.planning.secretValues(projectId)).toEqual({ SESSION_SECRET: CANARY_2 });

    // The next requirements turn (the empty message the client sends after an analysis) uses the facts.
    const gather = await call(alice, projectId, 'POST', '/api/planning/requirements-gatherer', { message: '' });
    expect(gather.statusCode).toBe(200);
    const requirements = (await call(alice, projectId, 'GET', '/api/planning/requirements')).json<{ content: string }>().content;
    expect(requirements).toMatch(/Node\.js/);
    expect(requirements).toMatch(/PostgreSQL/);
    expect(requirements).toMatch(/Redis/);
    expect(gather.body).not.toContain(CANARY);
    // The requirements agent re-declaring its own secrets keeps the dialog's variables listed.
    const after = (await call(alice, projectId, 'GET', '/api/planning/requirements/user-secrets')).json<{ secrets: Array<{ name: string }> }>().secrets.map((s) => s.name);
    expect(after).toEqual(expect.arrayContaining(['DATABASE_URL', 'SESSION_SECRET']));

    // The analysis's questions, answered in the requirements chat, show answered in the analysis.
    const questionsNow = async (): Promise<Record<string, string>> =>
      (await call(alice, projectId, 'GET', '/api/planning/analysis')).json<{ user_questions: { questions: Record<string, string> } }>().user_questions.questions;
    const domainQuestion = Object.keys(await questionsNow()).find((q) => q.startsWith('Which domain'))!;
    expect((await questionsNow())[domainQuestion]).toBe('');
    const answer = await call(alice, projectId, 'POST', '/api/planning/requirements-gatherer', { message: 'serve it at shop.example.com on my existing server deploy@203.0.113.7' });
    expect(answer.statusCode).toBe(200);
    const answered = await questionsNow();
    expect(answered[domainQuestion]).toBe('shop.example.com');
    expect(Object.entries(answered).find(([q]) => q.startsWith('Where should it run'))?.[1]).toMatch(/existing server/i);

    // Nothing stored (documents, the model's messages, secrets) nor logged holds a value in clear.
    const stored = await storedText();
    expect(stored).toContain('Analyse local/shop on branch deploy.');
    expect(stored).not.toContain(CANARY);
    expect(stored).not.toContain(CANARY_2);
    const logs = logLines.join('');
    expect(logs.length).toBeGreaterThan(0);
    expect(logs).not.toContain(CANARY);
    expect(logs).not.toContain(CANARY_2);
    // Nothing was checked out: the work tree is untouched and still on main.
    const repo = path.join(tmp, 'repos', 'shop');
    expect(runGit(repo, ['status', '--porcelain'])).toBe('');
    expect(runGit(repo, ['symbolic-ref', '--short', 'HEAD']).trim()).toBe('main');
    expect(fs.existsSync(path.join(repo, 'Dockerfile'))).toBe(false);
  });

  test('each branch is read as it is: main has no Dockerfile and the analysis says so (with no environment blocks at all)', async () => {
    const projectId = await newProject(alice, 'shop-main');
    const res = await call(alice, projectId, 'POST', '/api/planning/analyzer', analyzerBody({ full_name: 'local/shop' }, 'main', []));
    expect(res.statusCode).toBe(200);
    expect(textOf(framesOf(res.body))).toContain('no Dockerfile');
    const analysis = (await call(alice, projectId, 'GET', '/api/planning/analysis')).json<RepositoryAnalysis>();
    expect(analysis.repo_analysis.technology_stack.containerization).toBe('none yet');
    expect(analysis.environment.env_content_summary).toBeNull();
    // A second analysis runs on a fresh thread.
    const again = framesOf((await call(alice, projectId, 'POST', '/api/planning/analyzer', analyzerBody({ full_name: 'local/shop' }, 'deploy'))).body);
    expect(again[0]!.thread_id).not.toBe(framesOf(res.body)[0]!.thread_id);
  });

  test.each([
    ['an unknown branch', { full_name: 'local/shop' }, 'nope', 404],
    ['a branch name with a revision trick', { full_name: 'local/shop' }, 'main~1', 404],
    ['a traversal name', { full_name: 'local/..' }, 'main', 404],
    ['a repository of no one', { full_name: 'octocat/shop' }, 'main', 404],
  ])('%s (%o, branch %s) answers %i and stores no analysis', async (_what, repository, branch, status) => {
    const projectId = await newProject(alice, 'refused');
    const res = await call(alice, projectId, 'POST', '/api/planning/analyzer', analyzerBody(repository, branch));
    expect(res.statusCode).toBe(status);
    expect((await call(alice, projectId, 'GET', '/api/planning/analysis')).json()).toEqual({ message: 'No analysis found for this project' });
  });

  test('an environment naming a variable that changes how steps run (COMPOSE_PROJECT_NAME, LD_PRELOAD) answers 400 naming it, and stores nothing', async () => {
    for (const name of ['COMPOSE_PROJECT_NAME', 'LD_PRELOAD', 'PATH']) {
      const projectId = await newProject(alice, `reserved-${name}`);
      const configs = [{ name: 'environment1', description: 'Production', content: `APP_KEY=${CANARY}\n${name}=other\n` }];
      const res = await call(alice, projectId, 'POST', '/api/planning/analyzer', analyzerBody({ full_name: 'local/shop' }, 'deploy', configs));
      expect(res.statusCode).toBe(400);
      expect(res.json<{ detail: string }>().detail).toContain(`${name} cannot be a User Secret`);
      expect(res.body).not.toContain(CANARY);
      expect((await call(alice, projectId, 'GET', '/api/planning/analysis')).json()).toEqual({ message: 'No analysis found for this project' });
      expect((await call(alice, projectId, 'GET', '/api/planning/requirements/user-secrets')).json()).toEqual({ secrets: [] });
    }
  });

  test("another tenant's Project-Id answers 404; bad bodies answer 400", async () => {
    const projectId = await newProject(alice, 'mine');
    const res = await call(bob, projectId, 'POST', '/api/planning/analyzer', analyzerBody({ full_name: 'local/shop' }, 'main'));
    expect(res.statusCode).toBe(404);
    expect((await call(bob, projectId, 'GET', '/api/planning/analysis')).statusCode).toBe(404);
    expect((await call(alice, projectId, 'POST', '/api/planning/analyzer', { ...analyzerBody({ full_name: 'local/shop' }, 'main'), environment_configs: 'A=1' })).statusCode).toBe(400);
    expect(
      (await call(alice, projectId, 'POST', '/api/planning/analyzer', analyzerBody({ full_name: 'local/shop' }, 'main', [{ name: 'prod', description: '', content: '' }]))).statusCode,
    ).toBe(400);
    const noProject = await app.inject({ method: 'POST', url: '/api/planning/analyzer', headers: alice.headers, payload: analyzerBody({ full_name: 'local/shop' }, 'main') });
    expect(noProject.statusCode).toBe(400);
  });
});

describe('analyzer with the GitHub provider', () => {
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
    const main = repoBranches.find((b) => b.name === 'main')!.commit.sha;
    fake.commits.set(main, { ...SHOP_MAIN, ...SHOP_DEPLOY });
    await fake.start();
    app = await buildTestApp(database, {
      env: {
        DATA_DIR: tmp,
        GITHUB_APP_ID: APP_ID,
        GITHUB_APP_PRIVATE_KEY: privateKey,
        GITHUB_CLIENT_ID: 'Iv23liAbCdEfGh123456',
        GITHUB_CLIENT_SECRET: 'test-client-secret',
        GITHUB_APP_SLUG: 'devops-agents-test',
        GITHUB_API_URL: fake.url,
        GITHUB_WEB_URL: fake.url,
      },
      logger: logger(),
    });
    const who = await app.services.auth.signInGithub({ githubUserId: 583231, login: 'octocat', name: null, avatarUrl: null, installationId: INSTALLATION });
    headers = { cookie: `da_session=${await app.services.sessions.create(who.userId, who.installationId)}`, 'installation-id': String(INSTALLATION) };
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  test('reads the branch through the trees and blobs APIs and provides a GITHUB_TOKEN scoped to the repository', async () => {
    const projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers, payload: { name: 'gh' } })).json<{ id: number }>().id;
    const h = { ...headers, 'project-id': String(projectId) };
    const shop = installationRepositories.repositories[0]!;
    const res = await app.inject({
      method: 'POST',
      url: '/api/planning/analyzer',
      headers: h,
      payload: analyzerBody({ full_name: shop.full_name }, 'main', [{ name: 'environment1', description: '', content: `API_KEY=${CANARY}\n` }]),
    });
    expect(res.statusCode).toBe(200);
    expect(textOf(framesOf(res.body))).toContain('octocat/shop-api on main');
    const analysis = (await app.inject({ method: 'GET', url: '/api/planning/analysis', headers: h })).json<RepositoryAnalysis>();
    expect(analysis.repository).toEqual({ full_name: 'octocat/shop-api', language: 'TypeScript', default_branch: 'main', private: true, description: 'Online shop API' });
    expect(analysis.repo_analysis.technology_stack).toMatchObject({ frameworks: ['Express'], databases: ['PostgreSQL'], ci: ['GitHub Actions'] });
    expect(fake.calls.some((c) => c.startsWith('GET /repos/octocat/shop-api/git/trees/'))).toBe(true);

    // The token asked for: this one repository, exactly the permissions of part 1 section 3.
    const scoped = fake.issued.filter((t) => t.repositories);
    expect(scoped).toHaveLength(1);
    expect(scoped[0]).toMatchObject({
      installationId: INSTALLATION,
      repositories: ['shop-api'],
      permissions: { contents: 'read', metadata: 'read', actions: 'write', secrets: 'write', actions_variables: 'write', workflows: 'write' },
    });
    const values = await app.services.planning.secretValues(projectId);
    expect(values).toEqual({ GITHUB_TOKEN: scoped[0]!.token, API_KEY: CANARY });
    const secrets = (await app.inject({ method: 'GET', url: '/api/planning/requirements/user-secrets', headers: h })).json<{ secrets: Array<{ name: string; provided: boolean }> }>().secrets;
    expect(secrets.filter((s) => s.name === 'GITHUB_TOKEN')).toEqual([expect.objectContaining({ provided: true })]);
    const edit = await app.inject({ method: 'POST', url: '/api/planning/requirements/user-secrets', headers: h, payload: { name: 'GITHUB_TOKEN', value: 'mine' } });
    expect(edit.statusCode).toBe(400);
    for (const text of [res.body, JSON.stringify(analysis), JSON.stringify(secrets), logLines.join('')]) {
      expect(text).not.toContain(scoped[0]!.token);
      expect(text).not.toContain(CANARY);
    }
  });

  test('a branch GitHub does not have answers 404', async () => {
    const projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers, payload: { name: 'gh2' } })).json<{ id: number }>().id;
    const res = await app.inject({
      method: 'POST',
      url: '/api/planning/analyzer',
      headers: { ...headers, 'project-id': String(projectId) },
      payload: analyzerBody({ full_name: 'octocat/shop-api' }, 'gone'),
    });
    expect(res.statusCode).toBe(404);
  });
});
