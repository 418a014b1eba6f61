import type { FastifyInstance } from 'fastify';
import { eq, inArray } from 'drizzle-orm';
import { executionSteps, planningDocuments } from '../../../src/server/db/schema';
import type { ExecutionProgress } from '../../../src/shared/api/execution';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const section = (n: number, title: string, command: string): string => [`## Step ${n}: ${title}`, '', `${title}.`, '', '```bash', command, '```', ''].join('\n');
const plan = (steps: Array<[string, string]>): string => ['# Implementation Plan', '', ...steps.map(([t, c], i) => section(i + 1, t, c))].join('\n');

const DEPLOYED: Array<[string, string]> = [
  ['Reach the server', 'ssh-keyscan example.test'],
  ['Write the stack files', "cat > stack/docker-compose.yml <<'EOF'\nservices:\n  db:\n    image: postgres:16\nEOF"],
  ['Copy the stack to the server', 'rsync -a stack/ da-server:/opt/stack/'],
  ['Start the stack', 'compose up -d'],
  ['Obtain the certificate', 'certbot certonly'],
];

describe.each(databaseKinds())('a changed plan after a deploy reaches execution (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let projectId: number;

  const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url, headers: { ...alice.headers, 'project-id': String(projectId) }, ...(payload ? { payload } : {}) });
  const progress = async (): Promise<ExecutionProgress> => (await call('GET', '/api/execution/progress')).json();
  const trigger = () => call('POST', '/api/execution/trigger', { message: 'Start execution' });
  const storePlan = (content: string) =>
    database.db
      .insert(planningDocuments)
      .values({ projectId, kind: 'implementation', content })
      .onConflictDoUpdate({ target: [planningDocuments.projectId, planningDocuments.kind], set: { content } });

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Revised' } })).json().id;
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  it('offers exactly what differs from what ran, and never shows the old run as the new plan completed', async () => {
    await storePlan(plan(DEPLOYED));
    expect((await trigger()).statusCode).toBe(200);
    const first = await progress();
    // The stack ran: every step completed.
    await database.db.update(executionSteps).set({ status: 'completed', output: 'ran\n' }).where(eq(executionSteps.planId, first.id!));

    // Unchanged: the trigger says so and changes nothing.
    const same = await trigger();
    expect(same.json().detail).toMatch(/has not changed/);
    expect((await progress()).id).toBe(first.id);

    // "also add Adminer": the compose file changes, a step is added, the certificate step goes.
    const next: Array<[string, string]> = [
      DEPLOYED[0]!,
      ['Write the stack files', "cat > stack/docker-compose.yml <<'EOF'\nservices:\n  db:\n    image: postgres:16\n  adminer:\n    image: adminer:4\nEOF"],
      ['Open port 8080', 'ufw allow 8080/tcp'],
      DEPLOYED[2]!,
      DEPLOYED[3]!,
    ];
    await storePlan(plan(next));
    const revised = await trigger();
    expect(revised.statusCode).toBe(200);
    expect(revised.json().detail).toMatch(/revised .*1 added, 1 changed, 1 removed; 2 later steps run again/);
    const p = await progress();
    expect(p.id).not.toBe(first.id);
    expect(p.steps.map((s) => [s.description, s.status, s.change ?? null])).toEqual([
      ['Reach the server', 'completed', null],
      ['Write the stack files', 'waiting_approval', 'changed'],
      ['Open port 8080', 'waiting_approval', 'added'],
      ['Copy the stack to the server', 'waiting_approval', 'rerun'],
      ['Start the stack', 'waiting_approval', 'rerun'],
    ]);
    expect(p.steps[0]!.output).toBe('ran\n');
    expect(p.steps[1]!.previous_command).toBe(DEPLOYED[1]![1]);
    expect(p.revision).toEqual({ number: 1, removed: [{ step_number: 5, description: 'Obtain the certificate', status: 'completed' }] });
    // An approval of the old plan's steps answers 409: its numbers meant other steps.
    const stale = await call('POST', '/api/execution/approve-step', { plan_id: first.id, step_number: 2, approved: true });
    expect(stale.statusCode).toBe(409);
  });

  it('refuses to revise while a step runs, saying which', async () => {
    const p = await progress();
    await database.db.update(executionSteps).set({ status: 'in_progress' }).where(inArray(executionSteps.planId, [p.id!]));
    await storePlan(plan(DEPLOYED));
    const refused = await trigger();
    expect(refused.statusCode).toBe(409);
    expect(refused.json().detail).toMatch(/Step 1 is running/);
    await database.db.update(executionSteps).set({ status: 'failed' }).where(eq(executionSteps.planId, p.id!));
  });
});
