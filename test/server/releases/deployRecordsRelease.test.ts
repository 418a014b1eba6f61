import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { planningDocuments } from '../../../src/server/db/schema';
import type { ExecutionProgress } from '../../../src/shared/api/execution';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const PLAN = ['# Implementation Plan', '', '## Step 1: Write the stack files', '', 'The compose file.', '', '```bash', 'mkdir -p stack', "printf 'services: {}\\n' > stack/docker-compose.yml", '```', ''].join('\n');

/**
 * The wiring from the step runner to releases, through the real app and a real sandbox: the step that
 * completes the plan makes the server read the deploy back from the sandbox (here it has no server to
 * read, and says so in the log rather than recording a release it did not see).
 */
describe('a completed deploy is read back as a release', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;
  const logLines: string[] = [];

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-releases-'));
    database = await openTestDatabase('pglite');
    const stream = new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, DRIFT_CHECK_MINUTES: '0' }, logger: { level: 'warn', stream } });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('the last step completing runs the read-back in the sandbox; without a server nothing is recorded', async () => {
    const projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'shop' } })).json<{ id: number }>().id;
    const headers = { ...alice.headers, 'project-id': String(projectId) };
    await database.db.insert(planningDocuments).values({ projectId, kind: 'implementation', content: PLAN });
    expect((await app.inject({ method: 'POST', url: `/api/sandbox/initialize/${projectId}`, headers, payload: {} })).json<{ status: string }>().status).toBe('success');
    expect((await app.inject({ method: 'POST', url: '/api/execution/trigger', headers, payload: { message: 'Start execution' } })).statusCode).toBe(200);
    const progress = async (): Promise<ExecutionProgress> => (await app.inject({ method: 'GET', url: '/api/execution/progress', headers })).json();
    const plan = await progress();
    expect((await app.inject({ method: 'POST', url: '/api/execution/approve-step', headers, payload: { plan_id: plan.id, step_number: 1, approved: true } })).statusCode).toBe(200);
    for (let i = 0; i < 400 && (await progress()).steps[0]!.status === 'in_progress'; i++) await new Promise((r) => setTimeout(r, 25));
    expect((await progress()).steps[0]!.status).toBe('completed');
    await app.services.releases.idle();
    expect(logLines.join('')).toMatch(/no server: ssh-keys\/config is missing.*could not record the release of a deploy/);
    expect((await app.inject({ method: 'GET', url: `/api/projects/${projectId}/releases`, headers: alice.headers })).json()).toEqual({ releases: [] });
  });
});
