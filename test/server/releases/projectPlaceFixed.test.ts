import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { eq } from 'drizzle-orm';
import { executionPlans, executionSteps, projects, releases } from '../../../src/server/db/schema';
import { LEGACY_STACK_DIR, stackDirectoriesIn } from '../../../src/server/agents/offline/stackPlace';
import { projectPlace } from '../../../src/server/services/releases/projectPlace';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * A project's stack folder on its server is fixed once and kept with the project: a rename never moves
 * it, and a project whose steps already deployed somewhere (the legacy `/opt/stack`, or a folder named
 * after an earlier name) keeps planning there, so its next deploy does not start a second stack beside
 * the first one's containers and ports.
 */
describe.each(databaseKinds())('a project keeps its stack folder (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-place-'));
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, DRIFT_CHECK_MINUTES: '0' } });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function newProject(name: string): Promise<number> {
    return (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json<{ id: number }>().id;
  }
  const headersOf = (projectId: number) => ({ ...alice.headers, 'project-id': String(projectId) });
  async function chat(projectId: number, agent: string, message: string): Promise<void> {
    const r = await app.inject({ method: 'POST', url: `/api/planning/${agent}`, headers: headersOf(projectId), payload: { message } });
    expect(r.statusCode).toBe(200);
  }
  /** The stack folders the project's implementation plan (made now) works in. */
  async function plannedFolders(projectId: number): Promise<string[]> {
    await chat(projectId, 'cloud-architect', 'Generate architecture plan');
    await chat(projectId, 'implementation-planner', 'Generate implementation plan');
    const plan = (await app.inject({ method: 'GET', url: '/api/planning/implementation-plan', headers: headersOf(projectId) })).json<{ plan: string }>().plan;
    expect(plan).toMatch(/## Step 1: /);
    return stackDirectoriesIn(plan);
  }
  async function requirements(projectId: number): Promise<void> {
    await chat(projectId, 'requirements-gatherer', 'n8n with PostgreSQL behind a reverse proxy with SSL at n8n.example.com');
    await chat(projectId, 'requirements-gatherer', 'my own VPS, about 30 workflows');
  }
  const rename = (projectId: number, name: string) => database.db.update(projects).set({ name }).where(eq(projects.id, projectId));
  const stored = async (projectId: number): Promise<string | null> =>
    (await database.db.select({ d: projects.stackDirectory }).from(projects).where(eq(projects.id, projectId)))[0]!.d;
  /** Steps that ran (the execution stage's), as an older server left them: no release read back. */
  async function ranSteps(projectId: number, commands: string[], started = true): Promise<void> {
    const [plan] = await database.db.insert(executionPlans).values({ projectId }).returning({ id: executionPlans.id });
    await database.db
      .insert(executionSteps)
      .values(commands.map((command, i) => ({ planId: plan!.id, stepNumber: i + 1, command, status: started ? 'completed' : 'waiting_approval', ...(started ? { startedAt: new Date(), finishedAt: new Date() } : {}) })));
  }

  it('a project renamed before its first release keeps the folder its first plan used', async () => {
    const id = await newProject('Shop');
    await requirements(id);
    // The first planning turn fixed the folder, from the name it had then.
    expect(await stored(id)).toBe(`/opt/stacks/shop-${id}`);
    expect(await plannedFolders(id)).toEqual([`/opt/stacks/shop-${id}`]);
    await rename(id, 'Boutique');
    expect(await plannedFolders(id)).toEqual([`/opt/stacks/shop-${id}`]);
    expect((await projectPlace(database.db, id)).project).toBe(`shop-${id}`);
  });

  it('a project deployed to /opt/stack before releases were recorded keeps /opt/stack, and says so to every plan', async () => {
    const id = await newProject('Legacy');
    await database.db.update(projects).set({ stackDirectory: null }).where(eq(projects.id, id));
    await ranSteps(id, [
      "ssh -F ssh-keys/config da-server 'mkdir -p /opt/stack'",
      'rsync -a -e "ssh -F ssh-keys/config" stack/ da-server:/opt/stack/',
      "ssh -F ssh-keys/config da-server 'bash -s' <<'REMOTE'\ncd /opt/stack\ndocker compose up -d\nREMOTE",
    ]);
    await rename(id, 'Legacy renamed');
    await requirements(id);
    expect(await stored(id)).toBe(LEGACY_STACK_DIR);
    expect(await plannedFolders(id)).toEqual([LEGACY_STACK_DIR]);
    expect(await projectPlace(database.db, id)).toMatchObject({ dir: LEGACY_STACK_DIR, project: 'stack' });
  });

  it('a folder named after an earlier name, used by steps that ran, is kept; a step that only read another project’s folder is not', async () => {
    const id = await newProject('Renamed');
    await ranSteps(id, [`ssh da-server 'ls /opt/stacks/first-name-${id}/'`, "ssh da-server 'cat /opt/stacks/other-99999/docker-compose.yml'", 'cat /opt/stacks'], true);
    expect((await projectPlace(database.db, id)).dir).toBe(`/opt/stacks/first-name-${id}`);
    expect(await stored(id)).toBe(`/opt/stacks/first-name-${id}`);
  });

  it('steps that never ran say nothing about where the stack is', async () => {
    const id = await newProject('Pending');
    await ranSteps(id, ['rsync -a stack/ da-server:/opt/stack/'], false);
    expect((await projectPlace(database.db, id)).dir).toBe(`/opt/stacks/pending-${id}`);
  });

  it("a recorded release's folder wins over the steps and the name; a read that does not fix leaves nothing stored", async () => {
    const id = await newProject('Released');
    await ranSteps(id, [`rsync -a stack/ da-server:/opt/stacks/released-${id}/`]);
    await database.db.insert(releases).values({ projectId: id, number: 1, directory: LEGACY_STACK_DIR, files: {}, containers: [], baseline: { firewall: [], cron: [] } });
    expect((await projectPlace(database.db, id, { fix: false })).dir).toBe(LEGACY_STACK_DIR);
    expect(await stored(id)).toBeNull();
    expect((await projectPlace(database.db, id)).dir).toBe(LEGACY_STACK_DIR);
    expect(await stored(id)).toBe(LEGACY_STACK_DIR);
    // Once fixed, a rename does not move it.
    await rename(id, 'Other');
    expect((await projectPlace(database.db, id)).dir).toBe(LEGACY_STACK_DIR);
  });

  it('two first uses at once fix one folder', async () => {
    const id = await newProject('Race');
    const [a, b] = await Promise.all([projectPlace(database.db, id), (async () => (await rename(id, 'Race two'), projectPlace(database.db, id)))()]);
    expect(a.dir).toBe(b.dir);
    expect(await stored(id)).toBe(a.dir);
  });
});
