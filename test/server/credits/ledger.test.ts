import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { CREDIT_ERRORS } from '../../../src/shared/constants/credits';
import { HttpError } from '../../../src/server/errors';
import { HOLD_TOKENS, OUTPUT_ALLOWANCE_TOKENS, tokensOfBytes } from '../../../src/server/services/credits/meter';
import { buildTestApp, installationRowId, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/** The ledger's own view of an installation, straight from the tables. */
async function ledgerOf(database: TestDatabase, installationId: number) {
  const rows = await database.db.execute<{ balance: string; ledger: string; completed: string }>(sql`
    select
      (select balance from credit_accounts where installation_id = ${installationId}) as balance,
      (select coalesce(sum(case when type = 'add' then amount else -amount end), 0)
         from credit_transactions where installation_id = ${installationId} and status = 'completed') as ledger,
      (select count(*) from credit_transactions where installation_id = ${installationId} and status = 'completed') as completed`);
  const row = (rows as unknown as { rows: { balance: string; ledger: string; completed: string }[] }).rows[0]!;
  return { balance: row.balance, ledger: row.ledger, completed: Number(row.completed) };
}

describe.each(databaseKinds())('credits ledger and metering (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let aliceId: number;
  let projectId: number;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
    aliceId = await installationRowId(database, alice);
    const created = await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Metered' } });
    projectId = created.json().id;
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  const get = (user: TestUser, url: string) => app.inject({ method: 'GET', url, headers: user.headers });

  it('starts a new installation with the $5 sign-up credit, recorded as a completed add', async () => {
    const bob = await signIn(app, 'bob');
    expect((await get(bob, '/api/user/credits')).json()).toEqual({ credits_balance: 5 });
    const transactions = (await get(bob, '/api/user/transactions')).json();
    expect(transactions).toEqual([
      { id: expect.any(Number), transaction_type: 'add', amount: 5, payment_method: 'signup', status: 'completed', created_at: expect.any(String), description: 'Sign-up credit' },
    ]);
  });

  it('grants the sign-up credit once even when the first calls race', async () => {
    const carol = await signIn(app, 'carol');
    const answers = await Promise.all(Array.from({ length: 10 }, () => get(carol, '/api/user/credits')));
    expect(answers.map((a) => a.json().credits_balance)).toEqual(Array(10).fill(5));
    expect((await get(carol, '/api/user/transactions')).json()).toHaveLength(1);
  });

  it('takes the sign-up credit from SIGNUP_CREDIT_USD', async () => {
    const other = await buildTestApp(database, { env: { SIGNUP_CREDIT_USD: '12.5' } });
    try {
      const dave = await signIn(other, 'dave');
      expect((await other.inject({ method: 'GET', url: '/api/user/credits', headers: dave.headers })).json()).toEqual({ credits_balance: 12.5 });
    } finally {
      await other.close();
    }
  });

  it('prices a call at research-preview rates: $5 per million input, $20 per million output', () => {
    expect(app.services.meter.price(1_000_000, 0)).toBe('5.00000000');
    expect(app.services.meter.price(0, 1_000_000)).toBe('20.00000000');
    expect(app.services.meter.price(1200, 350)).toBe('0.01300000');
    expect(app.services.meter.price(1, 1)).toBe('0.00002500');
  });

  it('prices every token at $30 per million with PRICING_MODE=regular', async () => {
    const regular = await buildTestApp(database, { env: { PRICING_MODE: 'regular' } });
    try {
      expect(regular.services.meter.price(1_000_000, 1_000_000)).toBe('60.00000000');
      expect(regular.services.meter.price(1200, 350)).toBe('0.04650000');
    } finally {
      await regular.close();
    }
  });

  it('keeps balance == sum of the ledger == sign-up − project cost under 50 concurrent metered calls', async () => {
    const calls = Array.from({ length: 50 }, (_, i) => ({
      installationId: aliceId,
      projectId,
      agent: i % 2 ? 'requirementsAgent' : 'cloudArchitectAgent',
      model: i % 3 ? 'claude-haiku-4-5' : 'gpt-4o-mini',
      inputTokens: 1000 + i * 37,
      outputTokens: 200 + i * 11,
    }));
    const results = await Promise.all(calls.map((call) => app.services.meter.record(call)));
    expect(new Set(results.map((r) => r.tokenUsageId)).size).toBe(50);

    const state = await ledgerOf(database, aliceId);
    expect(state.balance).toBe(state.ledger);
    expect(state.completed).toBe(51); // sign-up + 50 uses

    const costs = (await get(alice, `/api/projects/${projectId}/costs`)).json();
    const expectedSpent = calls.reduce((sum, c) => sum + c.inputTokens * 500 + c.outputTokens * 2000, 0); // 10⁻⁸ dollars
    expect(costs.total_cost).toBe((expectedSpent / 1e8).toFixed(8));
    expect(Number(state.balance)).toBeCloseTo(5 - expectedSpent / 1e8, 8);
    expect((await get(alice, '/api/user/credits')).json().credits_balance).toBeCloseTo(5 - Number(costs.total_cost), 8);

    const transactions = (await get(alice, '/api/user/transactions')).json();
    const uses = transactions.filter((t: { transaction_type: string }) => t.transaction_type === 'use');
    expect(uses).toHaveLength(50);
    // A usage row names the agent as people know it, never its internal id.
    for (const use of uses as Array<{ description: string }>) {
      expect(use.description).toMatch(/^(Requirements Gatherer|Cloud Architecture Assistant) · /);
      expect(use.description).not.toMatch(/requirementsAgent|cloudArchitectAgent/);
    }
    // Newest first.
    const ids = transactions.map((t: { id: number }) => t.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it('answers token usage with the same total as costs, broken down by agent and model', async () => {
    const usage = (await get(alice, `/api/projects/${projectId}/token-usage`)).json();
    const costs = (await get(alice, `/api/projects/${projectId}/costs`)).json();
    expect(usage.total_cost).toBeCloseTo(Number(costs.total_cost), 8);
    expect(usage.breakdown.map((l: { agent: string; model: string }) => `${l.agent}/${l.model}`)).toEqual([
      'cloudArchitectAgent/claude-haiku-4-5',
      'cloudArchitectAgent/gpt-4o-mini',
      'requirementsAgent/claude-haiku-4-5',
      'requirementsAgent/gpt-4o-mini',
    ]);
    expect(usage.rates).toEqual({ mode: 'research_preview', input_per_million: 5, output_per_million: 20 });
    const today = new Date().toISOString().slice(0, 10);
    expect(usage.daily).toEqual([{ date: today, cost: expect.any(Number) }]);
    expect(usage.daily[0].cost).toBeCloseTo(usage.total_cost, 8);
    const sum = usage.breakdown.reduce((s: number, l: { cost: number }) => s + l.cost, 0);
    expect(sum).toBeCloseTo(usage.total_cost, 8);
    expect(usage.breakdown.reduce((s: number, l: { input_tokens: number }) => s + l.input_tokens, 0)).toBe(
      Array.from({ length: 50 }, (_, i) => 1000 + i * 37).reduce((a, b) => a + b, 0),
    );
  });

  it('answers 404 for another installation’s project, on token usage and on metering', async () => {
    const mallory = await signIn(app, 'mallory');
    expect((await get(mallory, `/api/projects/${projectId}/token-usage`)).statusCode).toBe(404);
    const malloryId = await installationRowId(database, mallory);
    await expect(
      app.services.meter.record({ installationId: malloryId, projectId, agent: 'a', model: 'm', inputTokens: 1, outputTokens: 1 }),
    ).rejects.toMatchObject({ statusCode: 404 });
    expect((await get(mallory, '/api/user/credits')).json().credits_balance).toBe(5);
  });

  it('refuses negative or fractional token counts', async () => {
    for (const inputTokens of [-1, 1.5, Number.NaN]) {
      await expect(
        app.services.meter.record({ installationId: aliceId, projectId, agent: 'a', model: 'm', inputTokens, outputTokens: 0 }),
      ).rejects.toMatchObject({ statusCode: 400 });
    }
  });

  it('lets spending start while the balance is positive, refuses with 402 at or below zero, and lets a running call finish', async () => {
    const erin = await signIn(app, 'erin');
    const erinId = await installationRowId(database, erin);
    const project = (await app.inject({ method: 'POST', url: '/api/projects', headers: erin.headers, payload: { name: 'Spender' } })).json();
    // It holds for the turn's first call: the hold's id.
    await expect(app.services.meter.assertCanSpend({ installationId: erinId })).resolves.toEqual(expect.any(Number));
    // One call costs exactly the $5 sign-up credit: the balance reaches zero.
    await app.services.meter.record({ installationId: erinId, projectId: project.id, agent: 'executionAgent', model: 'm', inputTokens: 1_000_000, outputTokens: 0 });
    const refused = await app.services.meter.assertCanSpend({ installationId: erinId }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(HttpError);
    expect(refused).toMatchObject({ statusCode: 402, message: CREDIT_ERRORS.outOfCredits });
    expect(CREDIT_ERRORS.outOfCredits).toMatch(/add credits/i);
    // A call already running is still recorded: the balance goes below zero and the ledger stays whole.
    await app.services.meter.record({ installationId: erinId, projectId: project.id, agent: 'executionAgent', model: 'm', inputTokens: 0, outputTokens: 1000 });
    expect((await get(erin, '/api/user/credits')).json().credits_balance).toBeCloseTo(-0.02, 8);
    const state = await ledgerOf(database, erinId);
    expect(state.balance).toBe(state.ledger);
    await expect(app.services.meter.assertCanSpend({ installationId: erinId })).rejects.toMatchObject({ statusCode: 402 });
  });

  it('overdraws by at most one call when 50 turns start together at $0.005 left (reserve before, settle after)', async () => {
    const frank = await signIn(app, 'frank');
    const frankId = await installationRowId(database, frank);
    const project = (await app.inject({ method: 'POST', url: '/api/projects', headers: frank.headers, payload: { name: 'Racer' } })).json();
    const call = { installationId: frankId, projectId: project.id, agent: 'requirementsAgent', model: 'm' };
    // $4.995 spent of the $5 sign-up credit: $0.005 left.
    await app.services.meter.record({ ...call, inputTokens: 999_000, outputTokens: 0 });
    const callCost = Number(app.services.meter.price(HOLD_TOKENS.input, HOLD_TOKENS.output));

    const turns = await Promise.all(
      Array.from({ length: 50 }, async () => {
        try {
          await app.services.meter.assertCanSpend({ installationId: frankId });
        } catch (err) {
          return (err as HttpError).statusCode;
        }
        await app.services.meter.record({ ...call, inputTokens: HOLD_TOKENS.input, outputTokens: HOLD_TOKENS.output });
        return 200;
      }),
    );
    expect(turns.filter((status) => status === 200)).toHaveLength(1);
    expect(turns.filter((status) => status === 402)).toHaveLength(49);
    const balance = (await get(frank, '/api/user/credits')).json().credits_balance;
    expect(balance).toBeGreaterThanOrEqual(0.005 - callCost - 1e-8);
    const state = await ledgerOf(database, frankId);
    expect(state.balance).toBe(state.ledger);
    // The hold became the call's charge: no pending row is left, none shows in the history.
    const history = (await get(frank, '/api/user/transactions')).json();
    expect(history.map((t: { status: string }) => t.status)).toEqual(['completed', 'completed', 'completed']);
  });

  it('20 concurrent turns of long threads at $0.25 left end the balance no further below zero than one call\'s hold, each call settled exactly', async () => {
    const gina = await signIn(app, 'gina');
    const ginaId = await installationRowId(database, gina);
    const project = (await app.inject({ method: 'POST', url: '/api/projects', headers: gina.headers, payload: { name: 'Long threads' } })).json();
    const call = { installationId: ginaId, projectId: project.id, agent: 'requirementsAgent', model: 'm' };
    await app.services.meter.record({ ...call, inputTokens: 950_000, outputTokens: 0 }); // $4.75 of $5: $0.25 left
    const meter = app.services.meter;
    // A long thread: ~9,000 tokens of prompt, growing by a tool answer each call; the model answers 1,500 tokens.
    const promptBytesOf = (n: number): number => 27_000 + n * 3_000;
    let largestHold = 0;
    const charged: number[] = [];
    const turn = async (): Promise<number> => {
      let admission: number | undefined;
      try {
        admission = await meter.assertCanSpend({ installationId: ginaId, model: 'm' });
      } catch (err) {
        return (err as HttpError).statusCode;
      }
      const holds = admission === undefined ? [] : [admission];
      try {
        for (let n = 0; n < 3; n++) {
          const promptBytes = promptBytesOf(n);
          const replace = n === 0 ? holds[0] : undefined;
          const id = (await meter.holdNext({ installationId: ginaId, model: 'm', promptBytes, replace }))!;
          if (replace !== undefined) holds.shift();
          holds.push(id);
          largestHold = Math.max(largestHold, Number(meter.price(tokensOfBytes(promptBytes), OUTPUT_ALLOWANCE_TOKENS)));
          // The provider counts fewer tokens than the hold's estimate (~4 bytes a token) and writes less than the allowance.
          const used = { inputTokens: Math.ceil(promptBytes / 4), outputTokens: 1_500 };
          const metered = await meter.record({ ...call, ...used, holdId: holds.shift() });
          charged.push(Number(metered.cost));
        }
        return 200;
      } catch (err) {
        return (err as HttpError).statusCode;
      } finally {
        for (const id of holds) await meter.release(ginaId, id);
      }
    };
    const outcomes = await Promise.all(Array.from({ length: 20 }, turn));
    expect(outcomes.filter((s) => s === 402).length).toBeGreaterThan(0);
    const balance = (await get(gina, '/api/user/credits')).json().credits_balance as number;
    expect(balance).toBeGreaterThanOrEqual(-largestHold - 1e-8);
    // Settled exactly: the balance fell by what the calls cost, to the cent's hundred-millionth, and no hold is left.
    expect(balance).toBeCloseTo(0.25 - charged.reduce((a, b) => a + b, 0), 8);
    const state = await ledgerOf(database, ginaId);
    expect(state.balance).toBe(state.ledger);
    const pending = await database.db.execute(sql`select count(*)::int as n from credit_transactions where installation_id = ${ginaId} and status = 'pending'`);
    expect((pending as unknown as { rows: Array<{ n: number }> }).rows[0]!.n).toBe(0);
  });

  it('needs a session for credits and transactions', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/user/credits' })).statusCode).toBe(401);
    expect((await app.inject({ method: 'GET', url: '/api/user/transactions' })).statusCode).toBe(401);
  });
});
