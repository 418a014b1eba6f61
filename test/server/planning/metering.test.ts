import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { CREDIT_ERRORS } from '../../../src/shared/constants';
import { buildTestApp, PRICED_MODEL_ENV, signIn, spendAllCredits, type TestUser } from '../helpers/testApp';
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

  it("records the offline planner's turns under its name, at no cost: the balance does not move", async () => {
    const project = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'metered' } })).json();
    const before = (await get('/api/user/credits', alice)).credits_balance;
    const response = await turn(alice, project.id, 'A VPS with PostgreSQL for a small web app');
    expect(response.statusCode).toBe(200);
    const after = (await get('/api/user/credits', alice)).credits_balance;
    const costs = await get(`/api/projects/${project.id}/costs`, alice);
    expect(Number(costs.total_cost)).toBe(0);
    expect(costs.last_updated).not.toBeNull();
    expect(after).toBe(before);
    const usage = await get(`/api/projects/${project.id}/token-usage`, alice);
    expect(usage.turns.length).toBeGreaterThan(0);
    expect(usage.turn_count).toBe(usage.turns.length);
    for (const t of usage.turns) expect(t).toMatchObject({ agent: 'requirementsAgent', model: 'offline-planner', cost: 0, input_tokens: expect.any(Number) });
    expect(usage.turns[0].input_tokens).toBeGreaterThan(0);
  });

  it('lowers the balance by exactly what a priced model call costs', async () => {
    const project = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'priced' } })).json();
    const before = (await get('/api/user/credits', alice)).credits_balance;
    const session = await app.services.sessions.resolve(alice.cookie.split('=')[1]!);
    await app.services.meter.record({ installationId: session!.installationId, projectId: project.id, agent: 'requirementsAgent', model: 'gpt-4o-mini', inputTokens: 1200, outputTokens: 350 });
    const after = (await get('/api/user/credits', alice)).credits_balance;
    const cost = Number((await get(`/api/projects/${project.id}/costs`, alice)).total_cost);
    expect(cost).toBe(0.013);
    expect(before - after).toBeCloseTo(cost, 8);
  });

  it('refuses a priced turn with 402 once the balance is spent, and starts no stream; a free turn still runs', async () => {
    const priced = await buildTestApp(database, { env: { DATA_DIR: dataDir, SIGNUP_CREDIT_USD: '5', ...PRICED_MODEL_ENV } });
    try {
      const broke = await signIn(priced, 'broke');
      const project = (await priced.inject({ method: 'POST', url: '/api/projects', headers: broke.headers, payload: { name: 'no credit' } })).json();
      await spendAllCredits(priced, broke, project.id, 'requirementsAgent');
      const response = await priced.inject({ method: 'POST', url: '/api/planning/requirements-gatherer', headers: { ...broke.headers, 'project-id': String(project.id) }, payload: { message: 'hello' } });
      expect(response.statusCode).toBe(402);
      expect(response.headers['content-type']).toMatch(/json/);
      expect(response.json()).toEqual({ detail: CREDIT_ERRORS.outOfCredits });
      // The same person on a server whose agents are the offline planner: free, so not refused.
      const free = await turn(broke, project.id, 'hello');
      expect(free.statusCode).toBe(200);
    } finally {
      await priced.close();
    }
  });
});
