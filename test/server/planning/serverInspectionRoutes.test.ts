import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ArchitecturePlanResponse } from '../../../src/shared/api/planning';
import type { ServerInspectionOffer, ServerInspectionResult } from '../../../src/shared/api/serverInspection';
import type { StackResponse } from '../../../src/shared/api/stack';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { requireInCi, sshTo, testServer, type TestHost } from '../helpers/testServer';

/**
 * Inspecting the person's existing server before the architecture plan is final, against the real test
 * server (`npm run test-server:up`) through the real app and its sandbox: the command is offered, runs only
 * when posted back unchanged, finds the ports and containers there (a container this test starts holds a
 * port that was free), and the plan made afterwards moves off the port it would take when the server
 * holds it, with no findings. An unreachable server is said in words and the plan goes on without facts.
 */

const server = testServer;
requireInCi(server);

const onServer = sshTo;

/** Redis's port, which a plan of Redis alone publishes on loopback for an SSH tunnel. */
const REDIS = 6379;

/**
 * The TCP ports the test server holds now, read from outside the product: its listening sockets and the
 * ports its containers publish (Docker's own record, which a daemon without the userland proxy has alone).
 * Others' stacks may be deployed there, as on a person's server.
 */
function heldOn(h: TestHost): Set<number> {
  const sockets = onServer(h, 'ss -Htln')
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => line.trim().split(/\s+/)[3] ?? '')
    .map((local) => Number(local.slice(local.lastIndexOf(':') + 1)));
  // A container removed between the two commands is left out of inspect's answer, not an error of the test.
  const inspected = onServer(h, 'docker ps -q | xargs -r docker inspect 2>/dev/null; true').trim();
  type Bindings = Record<string, Array<{ HostPort: string }> | null> | null;
  const containers = inspected ? (JSON.parse(inspected) as Array<{ NetworkSettings: { Ports: Bindings } }>) : [];
  const published = containers.flatMap((c) =>
    Object.entries(c.NetworkSettings.Ports ?? {})
      .filter(([port]) => port.endsWith('/tcp'))
      .flatMap(([, bindings]) => (bindings ?? []).map((b) => Number(b.HostPort))),
  );
  return new Set([...sockets, ...published]);
}

(server || process.env.CI ? describe : describe.skip)('inspecting the server before the plan is final', () => {
  const s = server!;
  const probe = `da-inspect-probe-${process.pid}`;
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;
  let bob: TestUser;
  /** The port the probe holds: Redis's when it is free, so the plan has to move off the probe; else the next free one. */
  let held: number;

  const call = (user: TestUser, projectId: number, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.inject({ method, url: `/api${url}`, headers: { ...user.headers, 'project-id': String(projectId) }, payload: payload as Record<string, unknown> | undefined });

  async function projectOn(name: string, where: string): Promise<number> {
    const projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json<{ id: number }>().id;
    const said = await call(alice, projectId, 'POST', '/planning/requirements-gatherer', { message: `Redis alone, nothing else, on my existing server ${where}` });
    expect(said.statusCode).toBe(200);
    const key = await call(alice, projectId, 'POST', '/planning/requirements/user-secrets', { name: 'SSH_PRIVATE_KEY', value: readFileSync(s.private_key_file, 'utf8') });
    expect(key.statusCode).toBe(200);
    return projectId;
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'da-inspect-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir } });
    alice = await signIn(app, 'alice');
    bob = await signIn(app, 'bob');
    // Something of someone else's on the server, on a port free until now: the inspection must find it there.
    const before = heldOn(s);
    held = REDIS;
    while (before.has(held)) held += 1;
    onServer(s, `docker rm -f ${probe} >/dev/null 2>&1 || true; docker run -d --name ${probe} -p 127.0.0.1:${held}:6379 redis:7.4.1-alpine >/dev/null`);
  }, 120_000);
  afterAll(async () => {
    onServer(s, `docker rm -f ${probe} >/dev/null 2>&1 || true`);
    await app.close();
    await database.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  test('the approved command finds what the server runs, and the plan made afterwards moves off the taken port', async () => {
    const projectId = await projectOn('inspected', `${s.user}@${s.host} port ${s.port}`);
    const generate = async (): Promise<ArchitecturePlanResponse> => {
      expect((await call(alice, projectId, 'POST', '/planning/cloud-architect', { message: 'Generate architecture plan' })).statusCode).toBe(200);
      return (await call(alice, projectId, 'GET', '/planning/architecture-plan')).json<ArchitecturePlanResponse>();
    };
    // Made before the inspection, the plan takes the port the server already uses: the deploy would fail starting Redis.
    expect((await generate()).plan).toMatch(new RegExp(`127\\.0\\.0\\.1:${REDIS}:6379`));
    const offer = (await call(alice, projectId, 'GET', '/planning/server-inspection')).json<ServerInspectionOffer>();
    expect(offer).toMatchObject({ target_kind: 'existing', available: true, target: `${s.user}@${s.host}:${s.port}` });
    expect(offer.command).toMatch(/^# da-inspect v1 target=/);
    expect(offer.facts).toBeUndefined();

    // Another installation's call names the project: not found, and nothing runs.
    expect((await call(bob, projectId, 'GET', '/planning/server-inspection')).statusCode).toBe(404);
    expect((await call(bob, projectId, 'POST', '/planning/server-inspection', { command: offer.command })).statusCode).toBe(404);
    // Bad input and a command that is not the one offered: 4xx with a detail, nothing runs.
    const empty = await call(alice, projectId, 'POST', '/planning/server-inspection', {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json<{ detail: string }>().detail).toBeTruthy();
    const changed = await call(alice, projectId, 'POST', '/planning/server-inspection', { command: `${offer.command!}\ntouch /tmp/x` });
    expect(changed.statusCode).toBe(409);
    expect(changed.json<{ detail: string }>().detail).toMatch(/not the one offered/);

    const ran = await call(alice, projectId, 'POST', '/planning/server-inspection', { command: offer.command });
    expect(ran.statusCode).toBe(200);
    const result = ran.json<ServerInspectionResult>();
    expect({ status: result.status, detail: result.status === 'failed' ? result.detail : '' }).toEqual({ status: 'completed', detail: '' });
    const facts = result.facts!;
    expect(facts.os).toMatch(/Debian/);
    expect(facts.composeVersion).toMatch(/^\d+\.\d+/);
    expect(facts.freeDiskGb).toBeGreaterThan(0);
    expect(facts.portsInUse).toEqual(expect.arrayContaining([expect.objectContaining({ port: s.port, protocol: 'tcp' })]));
    // The probe is found holding exactly the port it took, and nothing else.
    expect(facts.portsInUse.filter((p) => p.holder === `container ${probe}`).map((p) => `${p.port}/${p.protocol}`)).toEqual([`${held}/tcp`]);
    expect(facts.containers).toEqual(expect.arrayContaining([{ name: probe, image: 'redis:7.4.1-alpine' }]));
    expect(result.detail).toContain(`${held}/tcp (container ${probe})`);
    // The port the plan took is held: by the probe, or by what held it before the probe came (named when ss could say).
    const redis = facts.portsInUse.find((p) => p.port === REDIS && p.protocol === 'tcp');
    expect(redis).toBeDefined();
    const redisHolder = redis!.holder ?? '';

    // Stored in the stack model through its operation: the offer and the stack show it.
    expect((await call(alice, projectId, 'GET', '/planning/stack')).json<StackResponse>().model.serverFacts).toEqual(facts);
    expect((await call(alice, projectId, 'GET', '/planning/server-inspection')).json<ServerInspectionOffer>().facts).toEqual(facts);
    // The plan made before, not saved again, now carries the port the server holds as an error (the server verified it again).
    expect((await call(alice, projectId, 'GET', '/planning/architecture-plan')).json<ArchitecturePlanResponse>().findings).toEqual(
      expect.arrayContaining([expect.objectContaining({ severity: 'error', code: 'port-in-use', message: expect.stringContaining(`port ${REDIS}/tcp, which ${redisHolder}`) })]),
    );

    // The plan made now publishes Redis on another port, says why, and the verifier finds nothing.
    const plan = await generate();
    const published = plan.plan.match(/127\.0\.0\.1:(\d+):6379/);
    expect(published).not.toBeNull();
    expect(facts.portsInUse.map((p) => `${p.port}/${p.protocol}`)).not.toContain(`${published![1]}/tcp`);
    expect(plan.plan).toContain(`instead of ${REDIS}: the server already uses port ${REDIS} (${redisHolder}`);
    // No error: the one warning left is Redis's --requirepass, which the verifier says of every Redis (secret-on-command-line).
    expect((plan.findings ?? []).filter((f) => f.severity === 'error')).toEqual([]);

    // The facts stay through the requirements conversation while it speaks of the same server, and go when it names another.
    const say = async (message: string): Promise<StackResponse> => {
      expect((await call(alice, projectId, 'POST', '/planning/requirements-gatherer', { message })).statusCode).toBe(200);
      return (await call(alice, projectId, 'GET', '/planning/stack')).json<StackResponse>();
    };
    expect((await say('keep the backups for 30 days')).model.serverFacts).toEqual(facts);
    expect((await say('actually, deploy it on my existing server other@198.51.100.7 port 22')).model.serverFacts).toBeUndefined();
  }, 300_000);

  test('a server nothing answers on: said in words, the facts stay absent, and the plan goes on', async () => {
    // Port 1 of the test server: nothing listens there.
    const projectId = await projectOn('unreachable', `${s.user}@${s.host} port 1`);
    const offer = (await call(alice, projectId, 'GET', '/planning/server-inspection')).json<ServerInspectionOffer>();
    expect(offer.available).toBe(true);
    const result = (await call(alice, projectId, 'POST', '/planning/server-inspection', { command: offer.command })).json<ServerInspectionResult>();
    expect(result.status).toBe('failed');
    expect(result.detail).toMatch(new RegExp(`^Could not reach ${s.user}@${s.host.replace(/\./g, '\\.')}:1 over SSH: nothing answered`));
    expect(result.detail).toContain('The plan goes on without facts about the server.');
    expect((await call(alice, projectId, 'GET', '/planning/stack')).json<StackResponse>().model.serverFacts).toBeUndefined();
    expect((await call(alice, projectId, 'POST', '/planning/cloud-architect', { message: 'Generate architecture plan' })).statusCode).toBe(200);
    expect((await call(alice, projectId, 'GET', '/planning/architecture-plan')).json<ArchitecturePlanResponse>().plan).toMatch(/127\.0\.0\.1:6379:6379/);
  }, 300_000);

  test('no server named, or no key: why, in words, and no command', async () => {
    const projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'nowhere' } })).json<{ id: number }>().id;
    const none = (await call(alice, projectId, 'GET', '/planning/server-inspection')).json<ServerInspectionOffer>();
    expect(none).toEqual({ target_kind: 'none', available: false, reason: expect.stringMatching(/^No server is named yet/) });
    await call(alice, projectId, 'POST', '/planning/requirements-gatherer', { message: `Redis alone on my existing server ${s.user}@${s.host} port ${s.port}` });
    const keyless = (await call(alice, projectId, 'GET', '/planning/server-inspection')).json<ServerInspectionOffer>();
    expect(keyless).toMatchObject({ available: false, reason: expect.stringContaining('SSH_PRIVATE_KEY') });
    expect(keyless.command).toBeUndefined();
    const refused = await call(alice, projectId, 'POST', '/planning/server-inspection', { command: 'uptime' });
    expect(refused.statusCode).toBe(409);
    expect(refused.json<{ detail: string }>().detail).toContain('SSH_PRIVATE_KEY');
  }, 120_000);
});
