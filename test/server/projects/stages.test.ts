import type { FastifyInstance } from 'fastify';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { recordSteps } from '../helpers/stepRecords';

describe.each(databaseKinds())('project states (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let mallory: TestUser;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database);
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  const newProject = async (): Promise<number> =>
    (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'p' } })).json().id;
  const state = async (id: number, user = alice) =>
    app.inject({ method: 'GET', url: `/api/project-states/${id}`, headers: user.headers });

  it('creates the five stages with the project, the first one active', async () => {
    const id = await newProject();
    const response = await state(id);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.projectId).toBe(id);
    expect(body.current_stage_index).toBe(0);
    expect(body.stages.map((s: { stage_id: string; agent_id: string; order: number }) => [s.order, s.stage_id, s.agent_id])).toEqual([
      [0, 'requirements', 'requirementsAgent'],
      [1, 'architecture', 'cloudArchitectAgent'],
      [2, 'implementation', 'implementationPlanningAgent'],
      [3, 'execution', 'executionAgent'],
      [4, 'validation', 'validationAgent'],
    ]);
    expect(body.stages[0]).toMatchObject({ is_enabled: true, is_active: true, is_completed: false, name: expect.any(String), description: expect.any(String) });
    expect(body.stages.slice(1).every((s: { is_active: boolean }) => !s.is_active)).toBe(true);
  });

  it('completing a stage merges the field, answers the merged stage and moves to the next stage', async () => {
    const id = await newProject();
    const response = await app.inject({
      method: 'PUT',
      url: `/api/project-states/${id}/stages/requirements`,
      headers: alice.headers,
      payload: { is_completed: true },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ stage_id: 'requirements', is_completed: true, is_active: true, is_enabled: true });
    const body = (await state(id)).json();
    expect(body.current_stage_index).toBe(1);
    expect(body.stages[1]).toMatchObject({ stage_id: 'architecture', is_active: true, is_completed: false });
  });

  it('completing the last stage keeps the index on it', async () => {
    const id = await newProject();
    await recordSteps(database.db, 'validation', id, ['completed', 'completed']);
    await app.inject({ method: 'PUT', url: `/api/project-states/${id}/current-stage/validation`, headers: alice.headers });
    const completed = await app.inject({ method: 'PUT', url: `/api/project-states/${id}/stages/validation`, headers: alice.headers, payload: { is_completed: true } });
    expect(completed.statusCode).toBe(200);
    expect((await state(id)).json().current_stage_index).toBe(4);
  });

  describe('the server decides when execution and validation are done, from its own record of their steps', () => {
    const complete = (id: number, stage: string) =>
      app.inject({ method: 'PUT', url: `/api/project-states/${id}/stages/${stage}`, headers: alice.headers, payload: { is_completed: true } });

    it.each([
      ['execution', [], /Execution has no steps yet/],
      ['execution', ['completed', 'waiting_approval', 'completed'], /1 of 3 steps did not complete \(step 2 \(execution step 2\) is waiting for approval\)/],
      ['validation', [], /Validation has not run yet/],
      // What a faked progress poll once completed: no check had run on the server.
      ['validation', Array(6).fill('waiting_approval'), /6 of 6 checks did not complete .*, and 3 more\)/],
      ['validation', ['completed', 'failed', 'rejected', 'in_progress'], /check 2 \(validation step 2\) failed; check 3 \(validation step 3\) was rejected; check 4 \(validation step 4\) is still running/],
    ])('%s with steps %j answers 409 and changes nothing', async (stage, statuses, detail) => {
      const id = await newProject();
      if (statuses.length) await recordSteps(database.db, stage as 'execution' | 'validation', id, statuses);
      await app.inject({ method: 'PUT', url: `/api/project-states/${id}/current-stage/${stage}`, headers: alice.headers });
      const response = await complete(id, stage);
      expect(response.statusCode).toBe(409);
      expect(response.json().detail).toMatch(detail);
      const body = (await state(id)).json();
      expect(body.stages.find((s: { stage_id: string }) => s.stage_id === stage).is_completed).toBe(false);
    });

    it('completes execution once every step completed, and un-completing is never refused', async () => {
      const id = await newProject();
      await recordSteps(database.db, 'execution', id, ['completed', 'completed']);
      expect((await complete(id, 'execution')).statusCode).toBe(200);
      expect((await state(id)).json().current_stage_index).toBe(4);
      const undone = await app.inject({ method: 'PUT', url: `/api/project-states/${id}/stages/validation`, headers: alice.headers, payload: { is_completed: false } });
      expect(undone.statusCode).toBe(200);
    });
  });

  it('sets the current stage and marks it active', async () => {
    const id = await newProject();
    const response = await app.inject({ method: 'PUT', url: `/api/project-states/${id}/current-stage/execution`, headers: alice.headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ current_stage_index: 3, stage_id: 'execution' });
    const body = (await state(id)).json();
    expect(body.current_stage_index).toBe(3);
    expect(body.stages[3].is_active).toBe(true);
  });

  it('answers 404 for an unknown stage id and changes nothing', async () => {
    const id = await newProject();
    for (const url of [`/api/project-states/${id}/current-stage/deploy`, `/api/project-states/${id}/stages/deploy`]) {
      const response = await app.inject({ method: 'PUT', url, headers: alice.headers, payload: { is_completed: true } });
      expect(response.statusCode).toBe(404);
      expect(response.json().detail).toMatch(/Stage not found/);
    }
    expect((await state(id)).json().current_stage_index).toBe(0);
  });

  it('answers 400 for a wrong field type and ignores fields a client may not set', async () => {
    const id = await newProject();
    const wrong = await app.inject({
      method: 'PUT',
      url: `/api/project-states/${id}/stages/requirements`,
      headers: alice.headers,
      payload: { is_completed: 'yes' },
    });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().detail).toMatch(/is_completed must be boolean/);

    const smuggled = await app.inject({
      method: 'PUT',
      url: `/api/project-states/${id}/stages/requirements`,
      headers: alice.headers,
      payload: { order: 9, stage_id: 'x', agent_id: 'evil' },
    });
    expect(smuggled.statusCode).toBe(200);
    expect(smuggled.json()).toMatchObject({ stage_id: 'requirements', order: 0, agent_id: 'requirementsAgent' });
  });

  it("answers 404 for another tenant's project on every stage route", async () => {
    const id = await newProject();
    expect((await state(id, mallory)).statusCode).toBe(404);
    const put1 = await app.inject({ method: 'PUT', url: `/api/project-states/${id}/current-stage/architecture`, headers: mallory.headers });
    const put2 = await app.inject({
      method: 'PUT',
      url: `/api/project-states/${id}/stages/requirements`,
      headers: mallory.headers,
      payload: { is_completed: true },
    });
    expect([put1.statusCode, put2.statusCode]).toEqual([404, 404]);
    const body = (await state(id)).json();
    expect(body.current_stage_index).toBe(0);
    expect(body.stages[0].is_completed).toBe(false);
  });
});
