import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ArchitecturePlanResponse, ImplementationPlanResponse, PlanFinding } from '../../../src/shared/api/planning';
import { projectPlace } from '../../../src/server/services/releases/projectPlace';
import type { ServerFacts } from '../../../src/shared/stackModel';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * What an inspection of the server finds changes the findings of the plans already saved, without anyone
 * saving them again: a port the plan publishes that the server already uses becomes an error on both plans
 * (the architecture's confirm refused with why), and when the words name another server, the facts go and
 * so does the error. The facts come in through the stack model's own operation, as the inspection stores them.
 */

const HOLDER = 'container old-cache (compose project shop)';
const FACTS: ServerFacts = {
  inspectedAt: '2026-11-28T10:00:00.000Z',
  os: 'Debian GNU/Linux 12 (bookworm)',
  portsInUse: [
    { port: 22, protocol: 'tcp', holder: 'sshd' },
    { port: 6379, protocol: 'tcp', holder: HOLDER },
  ],
  containers: [{ name: 'old-cache', image: 'redis:7.4.1-alpine', project: 'shop' }],
  composeProjects: ['shop'],
};

const portTaken = (findings: PlanFinding[] | undefined): PlanFinding[] => (findings ?? []).filter((f) => f.code === 'port-in-use');

describe('findings follow what is known of the server', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-findings-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir } });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (projectId: number, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
    app.inject({ method, url: `/api${url}`, headers: { ...alice.headers, 'project-id': String(projectId) }, payload: payload as Record<string, unknown> | undefined });
  const architecture = async (projectId: number) => (await call(projectId, 'GET', '/planning/architecture-plan')).json<ArchitecturePlanResponse>();
  const implementation = async (projectId: number) => (await call(projectId, 'GET', '/planning/implementation-plan')).json<ImplementationPlanResponse>();

  test('a port the server already uses becomes an error on the saved plans, and goes with the facts', async () => {
    const projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'facts later' } })).json<{ id: number }>().id;
    expect((await call(projectId, 'POST', '/planning/requirements-gatherer', { message: 'Redis alone, nothing else, on my existing server deploy@203.0.113.7 port 22' })).statusCode).toBe(200);
    expect((await call(projectId, 'POST', '/planning/cloud-architect', { message: 'Generate architecture plan' })).statusCode).toBe(200);
    expect((await call(projectId, 'POST', '/planning/implementation-planner', { message: 'Generate implementation plan' })).statusCode).toBe(200);
    const before = await architecture(projectId);
    expect(before.plan).toMatch(/127\.0\.0\.1:6379:6379/);
    expect(portTaken(before.findings)).toEqual([]);
    expect(portTaken((await implementation(projectId)).findings)).toEqual([]);

    const stored = await call(projectId, 'POST', '/planning/stack/ops', { ops: [{ op: 'setServerFacts', facts: FACTS }] });
    expect(stored.statusCode).toBe(200);

    // The same plan, not saved again, now carries the error naming what holds the port.
    const after = await architecture(projectId);
    expect(after.plan).toBe(before.plan);
    expect(portTaken(after.findings)).toEqual([
      expect.objectContaining({ severity: 'error', message: expect.stringContaining(`port 6379/tcp, which ${HOLDER} on the server already holds`) }),
    ]);
    const impl = await implementation(projectId);
    expect(impl.outdated).toBe(false);
    expect(portTaken(impl.findings)).toHaveLength(1);
    const confirm = await app.inject({ method: 'PUT', url: `/api/project-states/${projectId}/stages/architecture`, headers: alice.headers, payload: { is_completed: true } });
    expect(confirm.statusCode).toBe(409);
    expect(confirm.json<{ detail: string }>().detail).toContain(HOLDER);

    // The words name another server: its facts are unknown, so the error on the old server's port goes.
    expect((await call(projectId, 'POST', '/planning/requirements-gatherer', { message: 'actually, deploy it on my existing server other@198.51.100.7 port 22' })).statusCode).toBe(200);
    expect(portTaken((await architecture(projectId)).findings)).toEqual([]);
    expect(portTaken((await implementation(projectId)).findings)).toEqual([]);
  }, 120_000);

  test("the project's own containers from its earlier deploy hold no port against it; another project's do", async () => {
    const projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'own stack' } })).json<{ id: number }>().id;
    expect((await call(projectId, 'POST', '/planning/requirements-gatherer', { message: 'Redis alone, nothing else, on my existing server deploy@203.0.113.7 port 22' })).statusCode).toBe(200);
    const own = (await projectPlace(database.db, projectId)).project;
    const facts = (holderProject: string): ServerFacts => ({
      ...FACTS,
      portsInUse: [
        { port: 22, protocol: 'tcp', holder: 'sshd' },
        { port: 6379, protocol: 'tcp', holder: `container ${holderProject}-redis-1 (compose project ${holderProject})` },
      ],
      containers: [{ name: `${holderProject}-redis-1`, image: 'redis:7.4.1-alpine', project: holderProject }],
      composeProjects: [holderProject],
    });
    expect((await call(projectId, 'POST', '/planning/stack/ops', { ops: [{ op: 'setServerFacts', facts: facts(own) }] })).statusCode).toBe(200);
    expect((await call(projectId, 'POST', '/planning/cloud-architect', { message: 'Generate architecture plan' })).statusCode).toBe(200);
    // Its redeploy replaces its own container: the port stays, and no error says it is taken.
    const mine = await architecture(projectId);
    expect(mine.plan).toMatch(/127\.0\.0\.1:6379:6379/);
    expect(portTaken(mine.findings)).toEqual([]);
    expect((await call(projectId, 'POST', '/planning/stack/ops', { ops: [{ op: 'setServerFacts', facts: facts('other-9') }] })).statusCode).toBe(200);
    expect(portTaken((await architecture(projectId)).findings)).toEqual([expect.objectContaining({ message: expect.stringContaining('compose project other-9') })]);
  }, 120_000);
});
