import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { and, asc, eq, like } from 'drizzle-orm';
import { activities, planningDocuments } from '../../../src/server/db/schema';
import { RECORDED_ACTIVITY_TYPES } from '../../../src/shared/constants/activity';
import type { ExecutionProgress, Step } from '../../../src/shared/api/execution';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const CANARY = 'canary-Pw4r9Tx2-do-not-leak';

/** A plan of these steps; a null command is a step with nothing to run (it completes at once). */
const planOf = (...commands: Array<string | null>): string =>
  [
    '# Implementation Plan',
    '',
    ...commands.flatMap((command, i) => [`## Step ${i + 1}: Step ${i + 1}`, '', `Runs step ${i + 1}.`, '', ...(command === null ? [] : ['```bash', command, '```', ''])]),
  ].join('\n');

/** DEPLOYMENT_COMPLETED once per run reaching every step completed, DEPLOYMENT_FAILED for each failed step. */
describe.each(databaseKinds())('deployment activities (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-deploy-activity-'));
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (projectId: number, method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url, headers: { ...alice.headers, 'project-id': String(projectId) }, ...(payload ? { payload } : {}) });
  const progress = async (projectId: number): Promise<ExecutionProgress> => (await call(projectId, 'GET', '/api/execution/progress')).json();
  const approve = async (projectId: number, stepNumber: number) => {
    const response = await call(projectId, 'POST', '/api/execution/approve-step', { plan_id: (await progress(projectId)).id, step_number: stepNumber, approved: true });
    expect(response.statusCode).toBe(200);
  };
  const settled = async (projectId: number, stepNumber: number): Promise<Step> => {
    for (let i = 0; i < 400; i++) {
      const step = (await progress(projectId)).steps.find((s) => s.step_number === stepNumber)!;
      if (step.status !== 'in_progress') return step;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`step ${stepNumber} did not finish`);
  };
  const deployments = (projectId: number) =>
    database.db
      .select({ type: activities.activityType, data: activities.activityData })
      .from(activities)
      .where(and(eq(activities.projectId, projectId), like(activities.activityType, 'DEPLOYMENT_%')))
      .orderBy(asc(activities.id));

  /** A project whose sandbox is ready and whose plan has these steps, all waiting for approval. */
  async function projectWith(name: string, ...commands: Array<string | null>): Promise<number> {
    const projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json().id as number;
    await app.services.planning.storeAnalysisSecrets(projectId, { environment: [{ name: 'CANARY_TOKEN', description: 'A token', value: CANARY }] });
    await database.db.insert(planningDocuments).values({ projectId, kind: 'implementation', content: planOf(...commands) });
    expect((await call(projectId, 'POST', '/api/execution/trigger', { message: 'Start execution' })).statusCode).toBe(200);
    const init = (await call(projectId, 'POST', `/api/sandbox/initialize/${projectId}`, {})).json();
    expect(init).toMatchObject({ status: 'success' });
    return projectId;
  }

  it('records a failed step, then one completion when the last open step completes, however often progress is polled', async () => {
    const projectId = await projectWith('Deploy web', 'echo one', `test "$CANARY_TOKEN" = "${CANARY}" && exit 3`);
    await approve(projectId, 1);
    expect((await settled(projectId, 1)).status).toBe('completed');
    expect(await deployments(projectId)).toEqual([]);

    await approve(projectId, 2);
    expect((await settled(projectId, 2)).status).toBe('failed');
    const [failed] = await deployments(projectId);
    expect(failed).toEqual({
      type: RECORDED_ACTIVITY_TYPES.deploymentFailed,
      data: {
        project_id: projectId,
        project_name: 'Deploy web',
        step_number: 2,
        command: 'test "$CANARY_TOKEN" = "[REDACTED]" && exit 3',
        error_message: 'The command exited with code 3.',
      },
    });
    expect(JSON.stringify(await deployments(projectId))).not.toContain(CANARY);

    await app.services.execution.updateStep(projectId, 2, { command: 'echo two' });
    await approve(projectId, 2);
    expect((await settled(projectId, 2)).status).toBe('completed');
    for (let i = 0; i < 5; i++) await progress(projectId);
    const recorded = await deployments(projectId);
    expect(recorded.map((a) => a.type)).toEqual([RECORDED_ACTIVITY_TYPES.deploymentFailed, RECORDED_ACTIVITY_TYPES.deploymentCompleted]);
    expect(recorded[1]!.data).toEqual({ project_id: projectId, project_name: 'Deploy web', step_number: 2, command: 'echo two', total_steps: 2 });

    // Running a step again leaves all-completed and comes back: a new deployment.
    await approve(projectId, 1);
    expect((await settled(projectId, 1)).status).toBe('completed');
    expect((await deployments(projectId)).map((a) => a.type)).toEqual([
      RECORDED_ACTIVITY_TYPES.deploymentFailed,
      RECORDED_ACTIVITY_TYPES.deploymentCompleted,
      RECORDED_ACTIVITY_TYPES.deploymentCompleted,
    ]);
  });

  it('records one completion when the last steps complete together', async () => {
    for (let round = 0; round < 3; round++) {
      // Steps with nothing to run end at once, so their results are stored at the same moment.
      const projectId = await projectWith(`Deploy api ${round}`, 'echo a', null, null, null);
      await approve(projectId, 1);
      await settled(projectId, 1);
      await Promise.all([2, 3, 4].map((n) => approve(projectId, n)));
      for (const n of [2, 3, 4]) expect((await settled(projectId, n)).status).toBe('completed');
      const recorded = await deployments(projectId);
      expect(recorded.map((a) => a.type)).toEqual([RECORDED_ACTIVITY_TYPES.deploymentCompleted]);
      expect(recorded[0]!.data).toMatchObject({ project_name: `Deploy api ${round}`, total_steps: 4, command: null });
    }
  });

  it('shows the deployments in the installation timeline', async () => {
    const timeline = (await app.inject({ method: 'GET', url: '/api/users/current/activity/timeline', headers: alice.headers })).json().activities as Array<{ activity_type: string }>;
    expect(timeline.filter((a) => a.activity_type.startsWith('DEPLOYMENT_'))).toHaveLength(6);
  });
});
