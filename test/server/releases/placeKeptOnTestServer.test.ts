import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import { connectCommands, DETECT_DOCKER, PIN_HOST_KEY, remote, SSH } from '../../../src/server/agents/offline/remoteShell';
import { gatedUp } from '../../../src/server/agents/offline/releaseGate';
import { placeOfProject } from '../../../src/server/agents/offline/stackPlace';
import { executionPlans, executionSteps, projects } from '../../../src/server/db/schema';
import type { ExecResult } from '../../../src/server/sandbox/driver';
import { createReleaseService } from '../../../src/server/services/releases/releaseService';
import { projectPlace } from '../../../src/server/services/releases/projectPlace';
import { listReleases } from '../../../src/server/services/releases/releaseStore';
import { strictScript } from '../../../src/server/services/steps/stepRuns';
import { buildTestApp, signIn } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { requireInCi, testServer } from '../helpers/testServer';

/**
 * On the real test server: a project whose steps deployed it (a container holding a port) before any
 * release was read back, then renamed, is planned, redeployed and recorded in the folder its steps used —
 * its compose project, so `up` replaces its own containers instead of a second stack failing on the port
 * the first still holds. (The legacy `/opt/stack` takes the same path, projectPlaceFixed.test.ts; a shared
 * server's `/opt/stack` is not this test's to take.) Its own folder and port 18095 keep it apart from
 * anything else on the server.
 */

const server = testServer;
requireInCi(server);

const FIRST = `first ${process.pid}`;
const PORT = 18095;
const COMPOSE = `services:\n  web:\n    image: nginx:1.27.2-alpine\n    ports:\n      - "127.0.0.1:${PORT}:80"\n`;

function execIn(workspace: string, command: string): Promise<ExecResult> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd: workspace });
    let output = '';
    child.stdout.on('data', (b: Buffer) => (output += b.toString()));
    child.stderr.on('data', (b: Buffer) => (output += b.toString()));
    child.on('close', (code) => resolve({ exitCode: code, output, timedOut: false, cancelled: false, durationMs: Date.now() - started }));
  });
}

(server || process.env.CI ? describe : describe.skip)('a project keeps its folder on the test server', () => {
  const s = server!;
  let database: TestDatabase;
  let app: FastifyInstance;
  let workspace: string;
  let projectId = 0;
  const folders: string[] = [];

  const run = (command: string): Promise<ExecResult> => execIn(workspace, strictScript(command));
  const onServer = (command: string): string => execFileSync('bash', ['-c', `${SSH} ${JSON.stringify(command)}`], { cwd: workspace, encoding: 'utf8', timeout: 120_000 });
  const reset = (dir: string): void =>
    void execFileSync('bash', ['-c', `${SSH} 'if [ -d ${dir} ]; then cd ${dir} && docker-compose -p ${dir.split('/').pop()} down -v --remove-orphans >/dev/null 2>&1 || true; fi; rm -rf ${dir} 2>/dev/null || sudo -n rm -rf ${dir}'`], { cwd: workspace, timeout: 120_000 });
  /** The plan's copy and start steps for a folder, as the offline planner renders them (deploySteps.ts). */
  const deploySteps = (dir: string): string[] => [
    `${SSH} 'mkdir -p ${dir} 2>/dev/null || { sudo mkdir -p ${dir} && sudo chown "$(id -u):$(id -g)" ${dir}; }'\ntar -C stack -czf - . | ${SSH} 'tar -C ${dir} -xzf -'`,
    remote([DETECT_DOCKER, `cd ${dir}`, ...gatedUp({ files: [], oneShot: [], seconds: 60, restoreSeconds: 60 })].join('\n')),
  ];

  beforeAll(async () => {
    workspace = mkdtempSync(path.join(tmpdir(), 'da-place-'));
    mkdirSync(path.join(workspace, 'ssh-keys'), { mode: 0o700 });
    copyFileSync(s.private_key_file, path.join(workspace, 'ssh-keys', 'deploy_key'));
    execFileSync('bash', ['-c', `chmod 600 ssh-keys/deploy_key\n${connectCommands({ user: s.user, host: s.host, port: s.port }, 'ssh-keys/deploy_key').join('\n')}\n${PIN_HOST_KEY}`], { cwd: workspace });
    mkdirSync(path.join(workspace, 'stack'));
    writeFileSync(path.join(workspace, 'stack', 'docker-compose.yml'), COMPOSE);
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database);
    const alice = await signIn(app, 'alice');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: FIRST } })).json<{ id: number }>().id;
  });
  afterAll(async () => {
    if (workspace) {
      for (const dir of folders) reset(dir);
      rmSync(workspace, { recursive: true, force: true });
    }
    await app?.close();
    await database?.destroy();
  });

  it('redeploys and records in the folder its steps used, with the same containers, after a rename', async () => {
    // As a server before places were stored: the steps ran in the folder the first name gave, nothing recorded.
    const first = placeOfProject({ id: projectId, name: FIRST }).dir;
    folders.push(first);
    reset(first);
    const steps = deploySteps(first);
    const [plan] = await database.db.insert(executionPlans).values({ projectId }).returning({ id: executionPlans.id });
    for (const [i, command] of steps.entries()) {
      const ran = await run(command);
      expect({ step: i + 1, exit: ran.exitCode, output: ran.exitCode === 0 ? '' : ran.output }).toEqual({ step: i + 1, exit: 0, output: '' });
      await database.db.insert(executionSteps).values({ planId: plan!.id, stepNumber: i + 1, command, status: 'completed', startedAt: new Date(), finishedAt: new Date() });
    }
    const container = (): string => onServer(`docker ps -q --no-trunc --filter label=com.docker.compose.project=${first.split('/').pop()} --filter label=com.docker.compose.service=web`).trim();
    const before = container();
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    await database.db.update(projects).set({ name: `second ${process.pid}` }).where(eq(projects.id, projectId));
    await database.db.update(projects).set({ stackDirectory: null }).where(eq(projects.id, projectId));

    // The next plan asks where the stack is: the folder its steps used, not one from the new name.
    const place = await projectPlace(database.db, projectId);
    expect(place.dir).toBe(first);
    expect(placeOfProject({ id: projectId, name: `second ${process.pid}` }).dir).not.toBe(first);
    for (const command of deploySteps(place.dir)) {
      const ran = await run(command);
      expect({ exit: ran.exitCode, output: ran.exitCode === 0 ? '' : ran.output }).toEqual({ exit: 0, output: '' });
    }
    // Its own containers, unchanged (nothing differed), still answering on the port.
    expect(container()).toBe(before);
    expect(onServer(`curl -fsS http://127.0.0.1:${PORT}/`)).toMatch(/nginx/i);

    // The deploy is read back as a release of that folder and compose project.
    const service = createReleaseService({
      db: database.db,
      sandbox: {
        exec: (_p, command) => execIn(workspace, command),
        containerStatus: async () => ({ container_status: 'Running', username: 'deploy', last_sync_time: null }),
        initialise: async () => ({ status: 'success', detail: '' }),
        activity: () => ({ running: 0, started: 0 }),
        stop: () => Promise.reject(new Error('a running sandbox is never stopped')),
      },
      hiddenValues: async () => ({}),
      execution: { planOf: async () => ({ id: plan!.id }), addStep: () => Promise.reject(new Error('no step is added here')) },
      notifier: { notify: async () => undefined },
      log: { warn: (obj, msg) => void process.stderr.write(`${msg}: ${JSON.stringify(obj)}\n`) },
    });
    const recorded = await service.recordDeploy({ projectId, installationId: 0 });
    expect(recorded).toMatchObject({ number: 1, directory: first });
    expect((await listReleases(database.db, projectId))[0]!.containers).toEqual([expect.objectContaining({ service: 'web', ports: [`127.0.0.1:${PORT}->80/tcp`] })]);
    expect((await projectPlace(database.db, projectId)).dir).toBe(first);
  }, 600_000);
});
