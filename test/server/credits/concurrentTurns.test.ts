import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, installationRowId, signIn, type TestUser } from '../helpers/testApp';
import { startModelWireServer, type ModelWireServer } from '../helpers/modelWireServer';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { OUTPUT_ALLOWANCE_TOKENS } from '../../../src/server/services/credits/meter';

/**
 * Concurrent agent turns of a priced model, through the real turn session and a real OpenAI client
 * against a local wire server: each model call holds for its own prompt before it is sent, settles its
 * hold to exactly its cost, and the balance ends no further below zero than one call's hold.
 */
describe('concurrent priced turns at a low balance', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let wire: ModelWireServer;
  let dataDir: string;
  let alice: TestUser;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-concurrent-turns-'));
    database = await openTestDatabase('pglite');
    wire = await startModelWireServer({ chunkDelayMs: 5 });
    app = await buildTestApp(database, {
      env: { DATA_DIR: dataDir, LOGIN_RATE_LIMIT_PER_MINUTE: '1000', MODEL_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test', OPENAI_MODEL: 'gpt-4o-mini', OPENAI_BASE_URL: `${wire.url}/v1` },
    });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    await wire.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('20 turns at $0.25 left: some refused with 402, the balance no lower than minus one hold, every hold settled or released', async () => {
    const installationId = await installationRowId(database, alice);
    const projects: number[] = [];
    for (let i = 0; i < 20; i++) projects.push((await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: `Turn ${i}` } })).json().id);
    await app.services.meter.record({ installationId, projectId: projects[0]!, agent: 'requirementsAgent', model: 'gpt-4o-mini', inputTokens: 950_000, outputTokens: 0 });
    const before = (await app.inject({ method: 'GET', url: '/api/user/credits', headers: alice.headers })).json().credits_balance as number;
    expect(before).toBeCloseTo(0.25, 8);

    const answers = await Promise.all(
      projects.map((projectId) =>
        app.inject({ method: 'POST', url: '/api/planning/requirements-gatherer', headers: { ...alice.headers, 'project-id': String(projectId) }, payload: { message: 'A VPS with PostgreSQL' } }),
      ),
    );
    const statuses = answers.map((a) => a.statusCode);
    expect(statuses.filter((s) => s === 402).length).toBeGreaterThan(0);
    expect(statuses.filter((s) => s !== 402 && s !== 200)).toEqual([]);

    const after = (await app.inject({ method: 'GET', url: '/api/user/credits', headers: alice.headers })).json().credits_balance as number;
    // The largest prompt any call sent, as the hold sizes it (bytes / 3 tokens), plus the output allowance.
    const largestPromptBytes = Math.max(...wire.requests.map((r) => Buffer.byteLength(JSON.stringify(r.body))));
    const oneHold = Number(app.services.meter.price(Math.ceil(largestPromptBytes / 3), OUTPUT_ALLOWANCE_TOKENS));
    expect(after).toBeGreaterThanOrEqual(-oneHold);
    const rows = async (query: string): Promise<Array<Record<string, string>>> => ((await database.db.execute(sql.raw(query))) as unknown as { rows: Array<Record<string, string>> }).rows;
    // Settled exactly: the balance fell by what token_usage says the calls cost, and no hold is left.
    const [spent] = await rows(`select coalesce(sum(cost), 0)::text as total from token_usage where project_id in (${projects.join(',')}) and input_tokens < 900000`);
    expect(after).toBeCloseTo(before - Number(spent!.total), 8);
    expect(await rows(`select id from credit_transactions where installation_id = ${installationId} and status = 'pending'`)).toEqual([]);
  });
});
