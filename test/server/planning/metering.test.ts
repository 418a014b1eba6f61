import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { CREDIT_ERRORS } from '../../../src/shared/constants';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/** Agent turns are metered: each model call is priced, charged to the ledger and added to the project's cost. */
describe.each(databaseKinds())('metered agent turns (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;

  const get = async (url: string, user: TestUser) => (await app.inject({ method: 'GET', url, headers: user.headers })).json();
  const turn = (user: TestUser, projectId: number, message: string) =>
    app.inject({
      method: 'POST',
      url: '/api/planning/requirements-gatherer',
      headers: { ...user.headers, 'project-id': String(projectId) },
      payload: { message },
    });

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-metering-'));
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, SIGNUP_CREDIT_USD: '5', OFFLINE_TOKEN_DELAY_MS: '0' } });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('lowers the balance by exactly what the project costs', async () => {
    const project = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'metered' } })).json();
    const before = (await get('/api/user/credits', alice)).credits_balance;
    const response = await turn(alice, project.id, 'A VPS with PostgreSQL for a small web app');
    expect(response.statusCode).toBe(200);
    const after = (await get('/api/user/credits', alice)).credits_balance;
    const costs = await get(`/api/projects/${project.id}/costs`, alice);
    const cost = Number(costs.total_cost);
    expect(cost).toBeGreaterThan(0);
    expect(costs.last_updated).not.toBeNull();
    expect(before - after).toBeCloseTo(cost, 8);
    const uses = (await get('/api/user/transactions', alice)).filter((t: { transaction_type: string }) => t.transaction_type === 'use');
    expect(uses.length).toBeGreaterThan(0);
  });

  it('refuses a new turn with 402 once the balance is spent, and starts no stream', async () => {
    const broke = await signIn(app, 'broke');
    const project = (await app.inject({ method: 'POST', url: '/api/projects', headers: broke.headers, payload: { name: 'no credit' } })).json();
    // Spend the sign-up credit through the meter itself, as a run of model calls would.
    await app.services.meter.record({
      installationId: (await app.services.sessions.resolve(broke.cookie.split('=')[1]))!.installationId,
      projectId: project.id,
      agent: 'requirementsAgent',
      model: 'offline-planner',
      inputTokens: 1_000_000,
      outputTokens: 0,
    });
    const response = await turn(broke, project.id, 'hello');
    expect(response.statusCode).toBe(402);
    expect(response.headers['content-type']).toMatch(/json/);
    expect(response.json()).toEqual({ detail: CREDIT_ERRORS.outOfCredits });
  });
});
