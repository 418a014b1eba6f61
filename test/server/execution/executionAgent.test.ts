import type { FastifyInstance } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { executionSteps, planningDocuments, tokenUsage } from '../../../src/server/db/schema';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const CANARY = 'canary-agent-7Hq2-secret';
const PLAN = ['## Step 1: Prepare', '', 'Prepares.', '', '```bash', 'mkdir -p deploy', '```', '', '## Step 2: Start', '', 'Starts.', '', '```bash', 'docker compose up -d', '```', ''].join('\n');

describe.each(databaseKinds())('execution agent stream (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let projectId: number;

  const ask = async (message: string): Promise<{ status: number; events: Array<{ event: string; thread_id: string; chunk?: { content: string } }>; raw: string }> => {
    const response = await app.inject({
      method: 'GET',
      url: `/api/execution/agent?${new URLSearchParams({ message })}`,
      headers: { ...alice.headers, 'project-id': String(projectId) },
    });
    const events = response.body
      .split('\n\n')
      .filter((f) => f.startsWith('data: '))
      .map((f) => JSON.parse(f.slice(6)));
    return { status: response.statusCode, events, raw: response.body };
  };
  const text = (events: Array<{ chunk?: { content: string } }>): string => events.map((e) => e.chunk?.content ?? '').join('');
  const progress = async () => (await app.inject({ method: 'GET', url: '/api/execution/progress', headers: { ...alice.headers, 'project-id': String(projectId) } })).json();

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Agent' } })).json().id;
    await app.services.planning.storeAnalysisSecrets(projectId, { environment: [{ name: 'CANARY_TOKEN', description: 'token', value: CANARY }] });
    await database.db.insert(planningDocuments).values({ projectId, kind: 'implementation', content: PLAN });
    await app.inject({ method: 'POST', url: '/api/execution/trigger', headers: { ...alice.headers, 'project-id': String(projectId) }, payload: { message: 'Start execution' } });
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  it('answers the run status as chat events ending with one on_chat_model_end, metered', async () => {
    const { status, events } = await ask('How is it going?');
    expect(status).toBe(200);
    expect(events.at(-1)).toEqual(expect.objectContaining({ event: 'on_chat_model_end', thread_id: expect.any(String) }));
    expect(events.filter((e) => e.event === 'on_chat_model_end')).toHaveLength(1);
    expect(events.slice(0, -1).every((e) => e.event === 'on_chat_model_stream')).toBe(true);
    expect(text(events)).toContain('0 / 2 steps completed.');
    expect(text(events)).toContain('Waiting for your approval: steps 1, 2.');
    const usage = await database.db.select().from(tokenUsage).where(and(eq(tokenUsage.projectId, projectId), eq(tokenUsage.agent, 'executionAgent')));
    expect(usage.length).toBeGreaterThan(0);
  });

  it('proposes a change to a step, shown as a proposal until the person saves it; then it waits for approval', async () => {
    await database.db.update(executionSteps).set({ status: 'failed', errorMessage: 'boom' }).where(eq(executionSteps.stepNumber, 2));
    const { events } = await ask('Please change step 2 command to `docker compose up -d --wait`');
    expect(text(events)).toContain('I prepared a change to step 2');
    const proposed = (await progress()).steps[1];
    expect(proposed).toMatchObject({ status: 'failed', command: 'docker compose up -d', proposal: { command: 'docker compose up -d --wait' } });
    const resolve = (save: boolean, planId: number) =>
      app.inject({ method: 'POST', url: '/api/execution/resolve-change', headers: { ...alice.headers, 'project-id': String(projectId) }, payload: { plan_id: planId, step_number: 2, save } });
    const p = await progress();
    expect((await resolve(true, p.id + 1)).statusCode).toBe(409);
    const saved = await resolve(true, p.id);
    expect(saved.statusCode).toBe(200);
    const step = (await progress()).steps[1];
    expect(step).toMatchObject({ status: 'waiting_approval', command: 'docker compose up -d --wait', error_message: null });
    expect(step.proposal).toBeUndefined();
    expect((await resolve(false, p.id)).statusCode).toBe(409);
  });

  it('changes only the line asked about in a long step, and discards on request', async () => {
    const long = ['set -x', 'cd /opt/stack', 'docker-compose pull', 'docker-compose up -d', 'docker ps', 'echo done'].join('\n');
    await database.db.update(executionSteps).set({ command: long, status: 'failed' }).where(eq(executionSteps.stepNumber, 1));
    await ask('Change step 1: use `docker compose up -d --wait` instead');
    const proposed = (await progress()).steps[0];
    expect(proposed.proposal.command).toBe(long.replace('docker-compose up -d', 'docker compose up -d --wait'));
    await app.inject({ method: 'POST', url: '/api/execution/resolve-change', headers: { ...alice.headers, 'project-id': String(projectId) }, payload: { plan_id: (await progress()).id, step_number: 1, save: false } });
    const after = (await progress()).steps[0];
    expect(after).toMatchObject({ command: long, status: 'failed' });
    expect(after.proposal).toBeUndefined();
  });

  it('adds a step, flagged when dangerous', async () => {
    await ask('add a step to wipe the cache: `redis-cli FLUSHALL`');
    const p = await progress();
    expect(p.totalSteps).toBe(3);
    expect(p.steps[2]).toMatchObject({ step_number: 3, status: 'waiting_approval', command: 'redis-cli FLUSHALL', dangerous_reason: expect.stringMatching(/FLUSHALL/) });
  });

  it("explains a failed step from its output and error, never showing a secret's value", async () => {
    await database.db
      .update(executionSteps)
      .set({ status: 'failed', errorMessage: 'The command exited with code 1.', output: `connecting with ${CANARY}\nerror: unreachable\n` })
      .where(eq(executionSteps.stepNumber, 1));
    const { events, raw } = await ask('Why did it fail?');
    expect(text(events)).toContain('Step 1 (Prepare) failed: The command exited with code 1.');
    expect(text(events)).toContain('error: unreachable');
    expect(raw).not.toContain(CANARY);
    expect(raw).not.toContain(Buffer.from(CANARY).toString('base64').replace(/=+$/, ''));
  });

  it('reads the conversation back for a reloaded chat, secrets redacted, scoped to the caller', async () => {
    const { events } = await ask(`Is ${CANARY} safe to keep here?`);
    const response = await app.inject({ method: 'GET', url: '/api/execution/thread', headers: { ...alice.headers, 'project-id': String(projectId) } });
    expect(response.statusCode).toBe(200);
    const thread = response.json<{ thread_id: string; messages: Array<{ role: string; content: string }> }>();
    expect(thread.thread_id).toBe(events.at(-1)!.thread_id);
    expect(response.body).not.toContain(CANARY);
    expect(thread.messages[0]).toEqual({ role: 'user', content: 'How is it going?' });
    expect(thread.messages.at(-2)).toEqual({ role: 'user', content: 'Is [REDACTED] safe to keep here?' });
    expect(thread.messages.at(-1)).toEqual({ role: 'assistant', content: text(events) });
    expect(thread.messages.map((m) => m.role)).toEqual(thread.messages.map((_m, i) => (i % 2 ? 'assistant' : 'user')));

    const mallory = await signIn(app, 'mallory');
    expect((await app.inject({ method: 'GET', url: '/api/execution/thread', headers: { ...mallory.headers, 'project-id': String(projectId) } })).statusCode).toBe(404);
  });

  it('answers 400 without a message and 404 for a thread that is not this project’s', async () => {
    const bad = await app.inject({ method: 'GET', url: '/api/execution/agent', headers: { ...alice.headers, 'project-id': String(projectId) } });
    expect(bad.statusCode).toBe(400);
    const other = await app.inject({ method: 'GET', url: '/api/execution/agent?message=hi&thread_id=nope', headers: { ...alice.headers, 'project-id': String(projectId) } });
    expect(other.statusCode).toBe(404);
  });
});
