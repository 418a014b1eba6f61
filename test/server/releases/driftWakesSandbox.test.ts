import type { FastifyInstance } from 'fastify';
import type { SandboxInitializeResponse } from '../../../src/shared/api/sandbox';
import type { ContainerStatusName } from '../../../src/shared/constants/sandbox';
import { createReleaseService } from '../../../src/server/services/releases/releaseService';
import { recordRelease } from '../../../src/server/services/releases/releaseStore';
import type { LiveState } from '../../../src/server/services/releases/drift';
import { buildTestApp, installationRowId, signIn } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const live: LiveState = { containers: [], firewall: [], cron: [], disk: { size: 100, available: 50 } };

/**
 * A drift check runs its commands in the project's sandbox, so one that is not running is started first,
 * as the execution's confirm does (initialise); when it cannot start, the stored check says why in words
 * instead of a command's failure. The sandbox here stands in for the service's lifecycle answers (a
 * failed start, a start under way elsewhere) that a real driver gives only under faults; the release
 * service, its database and the stored checks are real. The real start is covered in releaseRoutes.test.ts.
 */
describe('a drift check and a sandbox that is not running', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let project: { projectId: number; installationId: number };
  beforeAll(async () => {
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { DRIFT_CHECK_MINUTES: '0' } });
    const alice = await signIn(app, 'alice');
    const id = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'shop' } })).json<{ id: number }>().id;
    project = { projectId: id, installationId: await installationRowId(database, alice) };
    await recordRelease(database.db, id, '/opt/stack', { 'docker-compose.yml': 'services: {}\n' }, live);
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  const service = (answers: SandboxInitializeResponse[], state: { status: ContainerStatusName; commands: string[] }) =>
    createReleaseService({
      db: database.db,
      sandbox: {
        containerStatus: async () => ({ container_status: state.status, username: 'u', last_sync_time: null }),
        initialise: async () => {
          const next = answers.shift()!;
          if (next.status === 'success') state.status = 'Running';
          return next;
        },
        activity: () => ({ running: 0, started: 0 }),
        stop: async () => {
          state.status = 'NotRunning';
          return { container_status: state.status, message: 'Sandbox stopped' };
        },
        exec: async (_p, command) => {
          state.commands.push(command);
          return { exitCode: 3, output: 'no server', timedOut: false, cancelled: false, durationMs: 1 };
        },
      },
      hiddenValues: async () => ({}),
      execution: { planOf: async () => undefined, addStep: () => Promise.reject(new Error('not used')) },
      notifier: { notify: async () => undefined },
      log: { warn: () => undefined },
      wake: { attempts: 3, waitMs: 1 },
    });

  it('says in words why the sandbox could not start, and runs nothing', async () => {
    const state = { status: 'NotRunning' as ContainerStatusName, commands: [] as string[] };
    const check = await service([{ status: 'failed', detail: 'Sandbox initialization failed: No space left on device' }], state).checkDrift(project);
    expect(check).toMatchObject({ release: 1, checks: [], differences: [], error: "The check could not run: the project's sandbox could not start: Sandbox initialization failed: No space left on device." });
    expect(state.commands).toEqual([]);
    // What the panel reads is the stored check.
    const alice = await signIn(app, 'alice');
    expect((await app.inject({ method: 'GET', url: `/api/projects/${project.projectId}/drift`, headers: alice.headers })).json<{ check: { error: string } }>().check.error).toBe(check.error);
  });

  it('waits for a start under way elsewhere, then runs the commands', async () => {
    const state = { status: 'NotRunning' as ContainerStatusName, commands: [] as string[] };
    const check = await service([{ status: 'creating', detail: '' }, { status: 'success', detail: '' }], state).checkDrift(project);
    // The start was the other request's: the sandbox is left running for it.
    expect(state.status).toBe('Running');
    expect(state.commands).toHaveLength(1);
    expect(check.error).toMatch(/^The check could not finish: /);
  });

  it('gives up in words when the start under way does not end', async () => {
    const state = { status: 'NotRunning' as ContainerStatusName, commands: [] as string[] };
    const check = await service([1, 2, 3].map(() => ({ status: 'creating' as const, detail: '' })), state).checkDrift(project);
    expect(check.error).toBe("The check could not run: the project's sandbox is still being started by another request: try again in a minute.");
    expect(state.commands).toEqual([]);
  });

  it('runs at once in a sandbox that is running, starting nothing', async () => {
    const state = { status: 'Running' as ContainerStatusName, commands: [] as string[] };
    await service([], state).checkDrift(project);
    expect(state.commands).toHaveLength(1);
  });
});
