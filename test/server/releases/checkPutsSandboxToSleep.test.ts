import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { LiveState } from '../../../src/server/services/releases/drift';
import { recordRelease } from '../../../src/server/services/releases/releaseStore';
import { whileAwake } from '../../../src/server/services/sandbox/wakeSandbox';
import { buildTestApp, installationRowId, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { unmountUnder } from '../sandbox/dockerEngine';

const live: LiveState = { containers: [], firewall: [], cron: [], disk: { size: 100, available: 50 } };
type Project = { id: number; installationId: number };

/**
 * A drift check (or the backup watch's read) wakes a stopped sandbox to run its read-only commands in it;
 * afterwards the sandbox goes back to the state the person left it in, stopped, unless someone began
 * using it meanwhile. Through the real app on the local driver: real sandboxes, real processes.
 */
describe('a sandbox woken only for a check goes back to sleep', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  // A data directory of its own: the checks start real sandboxes, named by project ids other test files' databases share.
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-check-sleep-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { DRIFT_CHECK_MINUTES: '0', DATA_DIR: dataDir } });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    unmountUnder(dataDir);
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** A deployed project (a release recorded) whose sandbox the person stopped. */
  const stoppedProject = async (name: string): Promise<Project> => {
    const id = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json<{ id: number }>().id;
    const project = { id, installationId: await installationRowId(database, alice) };
    await recordRelease(database.db, id, '/opt/stack', { 'docker-compose.yml': 'services: {}\n' }, live);
    expect((await app.services.sandbox.initialise(project)).status).toBe('success');
    await app.services.sandbox.stop(project);
    expect(await statusOf(project)).toBe('NotRunning');
    return project;
  };
  const statusOf = async (project: Project): Promise<string> => (await app.services.sandbox.containerStatus(project)).container_status;
  const checkDrift = (project: Project) => app.services.releases.checkDrift({ projectId: project.id, installationId: project.installationId });

  it('"Check drift" on a stopped sandbox runs its commands in it, then leaves it stopped', async () => {
    const project = await stoppedProject('stopped');
    const check = await app.inject({ method: 'POST', url: `/api/projects/${project.id}/drift`, headers: alice.headers });
    // The commands ran in the woken sandbox (there is no server to read: no deploy step wrote the SSH config).
    expect(check.json<{ release: number; checks: Array<{ exit_code: number }> }>()).toMatchObject({ release: 1, checks: [{ exit_code: 3 }] });
    expect(await statusOf(project)).toBe('NotRunning');
    // The next check wakes it again, and puts it back again.
    expect((await checkDrift(project)).checks).toHaveLength(1);
    expect(await statusOf(project)).toBe('NotRunning');
  });

  it('a sandbox that was running before the check stays running', async () => {
    const project = await stoppedProject('running');
    await app.services.sandbox.start(project);
    await checkDrift(project);
    expect(await statusOf(project)).toBe('Running');
  });

  it('stays running when a step began running in it during the check, or the person started it', async () => {
    const project = await stoppedProject('used');
    // A step's command that runs on after the check: it waits on a fifo in the workspace until the test writes to it.
    const fifo = `step-${project.id}.fifo`;
    let step: Promise<{ exitCode: number | null }> = Promise.resolve({ exitCode: null });
    const during = await whileAwake(app.services.sandbox, project, async () => {
      expect(await statusOf(project)).toBe('Running');
      step = app.services.sandbox.exec(project, `rm -f ${fifo}; mkfifo ${fifo} && cat ${fifo} >/dev/null; rm -f ${fifo}`, { timeoutMs: 60_000 });
      return 'read';
    });
    expect(during).toEqual({ ran: true, value: 'read', sleepError: null });
    expect(await statusOf(project)).toBe('Running');
    await app.services.sandbox.exec(project, `for i in $(seq 1 300); do [ -p ${fifo} ] && break; sleep 0.1; done; echo done > ${fifo}`, { timeoutMs: 60_000 });
    expect((await step).exitCode).toBe(0);

    await app.services.sandbox.stop(project);
    const started = await whileAwake(app.services.sandbox, project, async () => {
      // The person pressed Start on the project home while the check ran.
      await app.services.sandbox.start(project);
    });
    expect(started.ran).toBe(true);
    expect(await statusOf(project)).toBe('Running');
  });

  it('overlapping checks of one project share the wake: the last to end puts it back', async () => {
    const project = await stoppedProject('overlap');
    const states: string[] = [];
    let finishFirst = (): void => undefined;
    const firstMayEnd = new Promise<void>((resolve) => (finishFirst = resolve));
    const first = whileAwake(app.services.sandbox, project, () => firstMayEnd);
    const second = await whileAwake(app.services.sandbox, project, async () => {
      states.push(await statusOf(project));
    });
    // The second ended first: the first still reads, so the sandbox runs on.
    states.push(await statusOf(project));
    finishFirst();
    expect((await first).ran).toBe(true);
    expect(second.ran).toBe(true);
    states.push(await statusOf(project));
    expect(states).toEqual(['Running', 'Running', 'NotRunning']);
  });
});
