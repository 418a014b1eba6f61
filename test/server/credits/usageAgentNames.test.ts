import type { FastifyInstance } from 'fastify';
import { creditTransactions } from '../../../src/server/db/schema';
import { runMigrationFile } from '../helpers/migrationFile';
import { buildTestApp, installationRowId, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/** Usage rows recorded before the ledger named agents are renamed by the upgrade, as new rows read. */
describe.each(databaseKinds())('usage rows of an upgraded database name their agent (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database);
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  it('rewrites the internal id of old usage rows and leaves every other row as it is', async () => {
    const installationId = await installationRowId(database, alice);
    const row = (paymentMethod: string, description: string) => ({ installationId, type: paymentMethod === 'usage' ? 'use' : 'add', amount: '0.01', status: 'completed', paymentMethod, description });
    await database.db.insert(creditTransactions).values([
      row('usage', 'requirementsAgent · gpt-4o-mini: 1200 input and 350 output tokens (project 7)'),
      row('usage', 'devopsHelperAgent · offline-planner: 10 input and 5 output tokens (project 7)'),
      row('usage', 'Implementation Planner · gpt-4o-mini: 1 input and 1 output tokens (project 7)'),
      row('usage', 'someFutureAgent · gpt-4o-mini: 1 input and 1 output tokens (project 7)'),
      row('local', 'executionAgent · a purchase description that merely starts like one'),
    ]);
    await runMigrationFile(database, 'usage_agent_names');

    const transactions = (await app.inject({ method: 'GET', url: '/api/user/transactions', headers: alice.headers })).json<Array<{ description: string }>>();
    expect(transactions.map((t) => t.description).sort()).toEqual(
      [
        'Sign-up credit',
        'Requirements Gatherer · gpt-4o-mini: 1200 input and 350 output tokens (project 7)',
        'DevOps Helper · offline-planner: 10 input and 5 output tokens (project 7)',
        'Implementation Planner · gpt-4o-mini: 1 input and 1 output tokens (project 7)',
        'someFutureAgent · gpt-4o-mini: 1 input and 1 output tokens (project 7)',
        'executionAgent · a purchase description that merely starts like one',
      ].sort(),
    );
  });
});
