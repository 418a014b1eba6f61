import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { planningDocuments } from '../../../src/server/db/schema';
import { recordRelease } from '../../../src/server/services/releases/releaseStore';
import type { LiveState } from '../../../src/server/services/releases/drift';
import { buildTestApp, installationRowId, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { unmountUnder } from '../sandbox/dockerEngine';
import { NO_SERVER } from '../../../src/server/services/releases/onServer';

const live: LiveState = {
  containers: [{ service: 'web', image: 'nginx:1', digest: 'sha256:aa', ports: ['0.0.0.0:80->80/tcp'], state: 'running' }],
  firewall: [],
  cron: [],
  disk: { size: 100, available: 50 },
};

/** The release and drift routes: bad input answers 400 with a detail, another person's project 404, wrong state 409. */
describe('release routes', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let bob: TestUser;
  let projectId: number;
  // A data directory of its own: the drift checks start real sandboxes, named by project ids other test files' databases share.
  let dataDir: string;
  const env = (): Record<string, string> => ({ DRIFT_CHECK_MINUTES: '0', DATA_DIR: dataDir });

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-release-routes-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: env() });
    alice = await signIn(app, 'alice');
    bob = await signIn(app, 'bob');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'shop' } })).json<{ id: number }>().id;
  });
  afterAll(async () => {
    await app.close();
    unmountUnder(dataDir);
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (user: TestUser, method: 'GET' | 'POST', url: string) => app.inject({ method, url, headers: user.headers });

  it('answers bad input, other tenants and wrong states with a detail, never a 500', async () => {
    expect((await call(alice, 'GET', `/api/projects/${projectId}/drift`)).json()).toEqual({ check: null });
    for (const url of [`/api/projects/${projectId}/releases/abc/rollback`, `/api/projects/${projectId}/releases/0/rollback`, '/api/projects/x/drift']) {
      const r = await call(alice, url.endsWith('drift') ? 'GET' : 'POST', url);
      expect([r.statusCode, typeof r.json<{ detail: string }>().detail]).toEqual([400, 'string']);
    }
    expect((await call(alice, 'POST', `/api/projects/${projectId}/releases/9/rollback`)).json()).toEqual({ detail: 'The project has no release 9' });

    await recordRelease(database.db, projectId, '/opt/stack', { 'docker-compose.yml': 'services: {}\n' }, live);
    await recordRelease(database.db, projectId, '/opt/stack', { 'docker-compose.yml': 'services: {}\n' }, live);
    const current = await call(alice, 'POST', `/api/projects/${projectId}/releases/2/rollback`);
    expect([current.statusCode, current.json<{ detail: string }>().detail]).toEqual([409, 'Release 2 is the one running now']);
    const noPlan = await call(alice, 'POST', `/api/projects/${projectId}/releases/1/rollback`);
    expect([noPlan.statusCode, noPlan.json<{ detail: string }>().detail]).toEqual([409, 'There is no execution plan to add the roll back to: deploy first.']);

    for (const [method, url] of [['GET', `/api/projects/${projectId}/releases`], ['POST', `/api/projects/${projectId}/releases/1/rollback`], ['GET', `/api/projects/${projectId}/drift`], ['POST', `/api/projects/${projectId}/drift`]] as const) {
      expect((await call(bob, method, url)).statusCode).toBe(404);
    }
  });

  it('"Roll back" adds a step waiting for approval to the execution plan, with the exact command it shows', async () => {
    await database.db.insert(planningDocuments).values({ projectId, kind: 'implementation', content: '# Implementation Plan\n\n## Step 1: Reach the server\n\nReach it.\n\n```bash\ntrue\n```\n' });
    const headers = { ...alice.headers, 'project-id': String(projectId) };
    expect((await app.inject({ method: 'POST', url: '/api/execution/trigger', headers, payload: { message: 'Start execution' } })).statusCode).toBe(200);
    const asked = await call(alice, 'POST', `/api/projects/${projectId}/releases/1/rollback`);
    expect(asked.statusCode).toBe(200);
    const body = asked.json<{ plan_id: number; step_number: number; command: string }>();
    const progress = (await app.inject({ method: 'GET', url: '/api/execution/progress', headers })).json<{ id: number; steps: Array<{ step_number: number; status: string; command: string; description: string }> }>();
    const step = progress.steps.find((s) => s.step_number === body.step_number)!;
    expect([progress.id, step.status, step.command]).toEqual([body.plan_id, 'waiting_approval', body.command]);
    expect(step.description).toMatch(/^Roll back to release 1 \(deployed .* UTC\): write its files \(docker-compose\.yml\) over the stack in \/opt\/stack, replacing release 2's/);
    expect(body.command).toContain("ssh -F ssh-keys/config da-server 'bash -s'");
  });

  it('a drift check with no release says so, stored with its time', async () => {
    const other = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'empty' } })).json<{ id: number }>().id;
    const checked = await call(alice, 'POST', `/api/projects/${other}/drift`);
    expect(checked.statusCode).toBe(200);
    expect(checked.json()).toMatchObject({ release: null, checks: [], differences: [], error: expect.stringContaining('no release yet') as string });
    expect((await call(alice, 'GET', `/api/projects/${other}/drift`)).json<{ check: { checked_at: string } }>().check.checked_at).toBe(checked.json<{ checked_at: string }>().checked_at);
  });

  it('the schedule checks each deployed project when due, from what the database says, across a restart', async () => {
    const deployed = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'deployed' } })).json<{ id: number }>().id;
    await recordRelease(database.db, deployed, '/opt/stack', { 'docker-compose.yml': 'services: {}\n' }, live);
    // The first project (releases, checked never) and this one are due; the one with no release is not.
    expect(await app.services.releases.checkDue(60)).toBe(2);
    // Its sandbox was never started: the check started it as the execution does and ran its first command
    // there, which found no server to read (no deploy step wrote the SSH config); that counts as the last check.
    const project = { id: deployed, installationId: await installationRowId(database, alice) };
    const last = (await call(alice, 'GET', `/api/projects/${deployed}/drift`)).json<{ check: { error: string; release: number; checks: Array<{ exit_code: number }> } }>().check;
    expect(last).toMatchObject({ release: 1, error: expect.stringMatching(/^The check could not finish: Containers, image digests and published ports of the stack: exit 3/) as string, checks: [{ exit_code: 3 }] });
    expect(last.error).toContain(NO_SERVER);
    // Woken only for the check, it is stopped again once the check ended.
    expect((await app.services.sandbox.containerStatus(project)).container_status).toBe('NotRunning');
    expect(await app.services.releases.checkDue(60)).toBe(0);
    // A restarted server reads the last checks: nothing is due again before its time, everything after it.
    const restarted = await buildTestApp(database, { env: env() });
    try {
      expect(await restarted.services.releases.checkDue(60)).toBe(0);
      expect(await restarted.services.releases.checkDue(0)).toBe(2);
    } finally {
      await restarted.close();
    }
  });
});
