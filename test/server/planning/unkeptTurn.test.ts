import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { TURN_NOT_SAVED } from '../../../src/server/agents/turnLoop';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * A turn the server could not keep (its checkpoint insert refused, as on a full disk) ends with an error
 * the person sees, never with a streamed answer that a reload would not show. The database refuses the
 * inserts for real: a trigger raises on planning_checkpoints.
 */
describe('a turn whose checkpoint cannot be written', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-unkept-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, OFFLINE_TOKEN_DELAY_MS: '0' } });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('ends with an error event, not on_chat_model_end alone', async () => {
    const project = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'unkept' } })).json<{ id: number }>();
    await database.db.execute(sql.raw(`CREATE FUNCTION refuse_checkpoint() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'; END $$ LANGUAGE plpgsql`));
    await database.db.execute(sql.raw('CREATE TRIGGER refuse_checkpoint BEFORE INSERT OR UPDATE ON planning_checkpoints FOR EACH ROW EXECUTE FUNCTION refuse_checkpoint()'));
    const response = await app.inject({
      method: 'POST',
      url: '/api/planning/requirements-gatherer',
      headers: { ...alice.headers, 'project-id': String(project.id) },
      payload: { message: 'A VPS with PostgreSQL for a small web app' },
    });
    const events = response.body
      .split('\n')
      .filter((line) => line.startsWith('data: '))
      .map((line) => JSON.parse(line.slice(6)) as { event: string; data?: { detail?: string } });
    const last = events[events.length - 1];
    expect(last?.event).toBe('error');
    expect(last?.data?.detail).toBe(TURN_NOT_SAVED);
    expect(events.filter((e) => e.event === 'on_chat_model_end')).toEqual([]);
    // Reloaded, the thread does not show an answer the person was told was not saved.
    const thread = await app.inject({ method: 'GET', url: '/api/planning/threads/requirementsAgent', headers: { ...alice.headers, 'project-id': String(project.id) } });
    expect(thread.body).not.toContain('small web app');
  });
});
