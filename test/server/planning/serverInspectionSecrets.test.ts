import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ServerInspectionOffer, ServerInspectionResult } from '../../../src/shared/api/serverInspection';
import type { StackResponse } from '../../../src/shared/api/stack';
import type { ServerFacts } from '../../../src/shared/stackModel';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * A plan that names its server only through the SERVER_HOST and SERVER_USER User Secrets (the words said
 * "my VPS", no address) can be inspected: the command names the variables, the sandbox gets their values
 * as a deploy step does, and no value reaches what the browser is sent: not the offer, not a failure, not
 * the facts. Here the address is the sandbox's own loopback, where nothing answers, so the run fails at
 * once in words; the real server's run is in serverInspectionRoutes.test.ts.
 */

const HOST = '127.0.0.1';
const USER = 'opsadmin';

describe('inspecting a server named by User Secrets', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;
  let key: string;

  const call = (projectId: number, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.inject({ method, url: `/api${url}`, headers: { ...alice.headers, 'project-id': String(projectId) }, payload: payload as Record<string, unknown> | undefined });
  const secret = async (projectId: number, name: string, value: string) => expect((await call(projectId, 'POST', '/planning/requirements/user-secrets', { name, value })).statusCode).toBe(200);
  const offerOf = async (projectId: number) => {
    const r = await call(projectId, 'GET', '/planning/server-inspection');
    expect(r.body).not.toContain(USER);
    return r.json<ServerInspectionOffer>();
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'da-inspect-secrets-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir } });
    alice = await signIn(app, 'alice');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dataDir, 'key')]);
    key = readFileSync(path.join(dataDir, 'key'), 'utf8');
  }, 120_000);
  afterAll(async () => {
    await app.close();
    await database.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  test('offered once the values are there, run with them, and said back by their names', async () => {
    const projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'my vps' } })).json<{ id: number }>().id;
    expect((await call(projectId, 'POST', '/planning/requirements-gatherer', { message: 'Redis alone, nothing else, on my VPS' })).statusCode).toBe(200);
    expect((await call(projectId, 'GET', '/planning/stack')).json<StackResponse>().model.target).toBeUndefined();

    // Declared by the plan, no values yet: which to add, and no command.
    const waiting = await offerOf(projectId);
    expect(waiting).toMatchObject({ target_kind: 'existing', available: false, target: '$SERVER_USER@$SERVER_HOST:22' });
    expect(waiting.reason).toMatch(/^Add the private key that logs in \(SSH_PRIVATE_KEY\), SERVER_HOST, SERVER_USER to User Secrets/);
    expect(waiting.command).toBeUndefined();

    // A value ssh could read as an option is refused before any command is offered; the reason does not repeat it.
    await secret(projectId, 'SSH_PRIVATE_KEY', key);
    await secret(projectId, 'SERVER_HOST', HOST);
    await secret(projectId, 'SERVER_USER', '-oProxyCommand=touch /tmp/x');
    const refused = await call(projectId, 'GET', '/planning/server-inspection');
    expect(refused.body).not.toContain('ProxyCommand');
    expect(refused.json<ServerInspectionOffer>()).toMatchObject({ available: false, reason: expect.stringMatching(/^SERVER_USER or SERVER_HOST in User Secrets is not/) });

    await secret(projectId, 'SERVER_USER', USER);
    const offer = await offerOf(projectId);
    expect(offer).toMatchObject({ target_kind: 'existing', available: true, target: '$SERVER_USER@$SERVER_HOST:22', named_by_secrets: ['SERVER_USER', 'SERVER_HOST'] });
    expect(offer.command).toContain(`"$SERVER_USER@$SERVER_HOST" 'bash -s'`);
    expect(offer.command).not.toContain(HOST);

    const ran = await call(projectId, 'POST', '/planning/server-inspection', { command: offer.command });
    expect(ran.statusCode).toBe(200);
    expect(ran.body).not.toContain(USER);
    expect(ran.body).not.toContain(HOST);
    const result = ran.json<ServerInspectionResult>();
    expect(result.status).toBe('failed');
    expect(result.detail).toMatch(/^Could not reach \$SERVER_USER@\$SERVER_HOST:22 over SSH: nothing answered on that address and port/);
    expect(result.output).toContain('connect to host $SERVER_HOST port 22');
  }, 120_000);

  test('facts of the server the secrets name are kept, and go when either secret changes', async () => {
    const projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'facts kept' } })).json<{ id: number }>().id;
    expect((await call(projectId, 'POST', '/planning/requirements-gatherer', { message: 'Redis alone, nothing else, on my VPS' })).statusCode).toBe(200);
    const facts: ServerFacts = { inspectedAt: '2026-11-28T10:00:00.000Z', portsInUse: [{ port: 6379, protocol: 'tcp', holder: 'container old-cache' }], containers: [], composeProjects: [] };
    expect((await call(projectId, 'POST', '/planning/stack/ops', { ops: [{ op: 'setServerFacts', facts }] })).statusCode).toBe(200);
    // Through the conversation's next turn too (the edit is replayed on the model the words compose).
    expect((await call(projectId, 'POST', '/planning/requirements-gatherer', { message: 'keep the backups for 30 days' })).statusCode).toBe(200);
    expect((await call(projectId, 'GET', '/planning/stack')).json<StackResponse>().model.serverFacts).toEqual(facts);
    // The plan made from them moves Redis off the port the server uses.
    expect((await call(projectId, 'POST', '/planning/cloud-architect', { message: 'Generate architecture plan' })).statusCode).toBe(200);
    expect((await call(projectId, 'GET', '/planning/architecture-plan')).json<{ plan: string }>().plan).not.toMatch(/127\.0\.0\.1:6379:6379/);

    await secret(projectId, 'SERVER_HOST', '198.51.100.20');
    expect((await call(projectId, 'GET', '/planning/stack')).json<StackResponse>().model.serverFacts).toBeUndefined();
    expect((await call(projectId, 'POST', '/planning/requirements-gatherer', { message: 'keep the backups for 14 days' })).statusCode).toBe(200);
    expect((await call(projectId, 'GET', '/planning/stack')).json<StackResponse>().model.serverFacts).toBeUndefined();
  }, 120_000);
});
