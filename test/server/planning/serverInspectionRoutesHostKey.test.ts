import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ImplementationPlanResponse } from '../../../src/shared/api/planning';
import type { ServerInspectionOffer, ServerInspectionResult } from '../../../src/shared/api/serverInspection';
import type { StackResponse } from '../../../src/shared/api/stack';
import { parsePlanSteps } from '../../../src/shared/planSteps';
import { strictScript } from '../../../src/server/services/steps/stepRuns';
import { buildTestApp, installationRowId, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { requireInCi, sshTo, testServer } from '../helpers/testServer';

/**
 * The inspection pins the server's SSH host key where the deploy checks it (the workspace's
 * ssh-keys/known_hosts), against a real sshd: a second one this test starts on the test server, on a port
 * of its own with a host key of its own, so the test server's own sshd and its key stay as they are. The
 * first key seen is shown with its fingerprint; a later inspection and the deploy's first step meet the
 * same key; once the server answers with another key, both refuse it and say why. A server named only by
 * the SERVER_USER and SERVER_HOST User Secrets is inspected the same way, on port 22 as the plans reach it.
 */

const server = testServer;
requireInCi(server);

(server || process.env.CI ? describe : describe.skip)('the inspection pins the host key the deploy checks', () => {
  const s = server!;
  // A port of this run's own on the test server (2222 is its sshd's; the stacks' tests publish below 10000).
  const port = 20_000 + (process.pid % 20_000);
  const dir = `/tmp/da-hostkey-${process.pid}`;
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;

  const call = (projectId: number, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.inject({ method, url: `/api${url}`, headers: { ...alice.headers, 'project-id': String(projectId) }, payload: payload as Record<string, unknown> | undefined });

  /** (Re)starts the second sshd with host key `name` (made once), its configuration the server's own minus its host keys. */
  const sshdWith = (name: 'first' | 'second', on = port): string =>
    sshTo(
      s,
      [
        'set -e',
        `mkdir -p ${dir}`,
        `[ -f ${dir}/${name} ] || ssh-keygen -q -t ed25519 -N '' -C ${name} -f ${dir}/${name}`,
        // The one before goes first (sshd removes its pid file as it exits): the port is free again for the next.
        `if [ -f ${dir}/pid ]; then p=$(cat ${dir}/pid); sudo kill "$p" 2>/dev/null || true; for i in $(seq 1 50); do sudo kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; fi`,
        `sudo sed '/^[[:space:]]*HostKey[[:space:]]/d' /etc/ssh/sshd_config > ${dir}/sshd_config`,
        `sudo /usr/sbin/sshd -f ${dir}/sshd_config -p ${on} -h ${dir}/${name} -o PidFile=${dir}/pid`,
        `ssh-keygen -l -f ${dir}/${name}.pub | awk '{print $2}'`,
      ].join('\n'),
    ).trim();

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'da-hostkey-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir } });
    alice = await signIn(app, 'alice');
  }, 120_000);
  afterAll(async () => {
    sshTo(s, `if [ -f ${dir}/pid ]; then sudo kill "$(cat ${dir}/pid)" 2>/dev/null || true; fi; rm -rf ${dir}`);
    await app.close();
    await database.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  test('the first key seen is pinned and shown; the deploy meets it; a changed key is refused by both', async () => {
    const first = sshdWith('first');
    expect(first).toMatch(/^SHA256:/);
    const projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'pinned' } })).json<{ id: number }>().id;
    expect((await call(projectId, 'POST', '/planning/requirements-gatherer', { message: `Redis alone, nothing else, on my existing server ${s.user}@${s.host} port ${port}` })).statusCode).toBe(200);
    const key = readFileSync(s.private_key_file, 'utf8');
    expect((await call(projectId, 'POST', '/planning/requirements/user-secrets', { name: 'SSH_PRIVATE_KEY', value: key })).statusCode).toBe(200);

    const inspect = async (): Promise<ServerInspectionResult> => {
      const offer = (await call(projectId, 'GET', '/planning/server-inspection')).json<ServerInspectionOffer>();
      expect(offer).toMatchObject({ available: true, target: `${s.user}@${s.host}:${port}` });
      const ran = await call(projectId, 'POST', '/planning/server-inspection', { command: offer.command });
      expect(ran.statusCode).toBe(200);
      return ran.json<ServerInspectionResult>();
    };

    // First contact: pinned, and the person reads the fingerprint.
    const met = await inspect();
    expect({ status: met.status, detail: met.status === 'failed' ? met.detail : '' }).toEqual({ status: 'completed', detail: '' });
    expect(met.facts!.hostKey).toEqual({ algorithm: 'ED25519', fingerprint: first, firstContact: true });
    expect(met.detail).toContain(`SSH host key ED25519 ${first}, pinned at this first contact`);
    expect((await call(projectId, 'GET', '/planning/server-inspection')).json<ServerInspectionOffer>().facts?.hostKey?.fingerprint).toBe(first);

    // Again: the same key, pinned earlier.
    expect((await inspect()).facts!.hostKey).toEqual({ algorithm: 'ED25519', fingerprint: first, firstContact: false });

    // The deploy's first step, as the plan writes it and the step runner runs it, meets the key the inspection pinned.
    expect((await call(projectId, 'POST', '/planning/cloud-architect', { message: 'Generate architecture plan' })).statusCode).toBe(200);
    expect((await call(projectId, 'POST', '/planning/implementation-planner', { message: 'Generate implementation plan' })).statusCode).toBe(200);
    const steps = parsePlanSteps((await call(projectId, 'GET', '/planning/implementation-plan')).json<ImplementationPlanResponse>().plan);
    expect(steps[0]!.description).toBe('Connect to the server and pin its host key');
    const sandboxProject = { id: projectId, installationId: await installationRowId(database, alice) };
    const env = await app.services.planning.secretValues(projectId);
    const connect = async () => app.services.sandbox.exec(sandboxProject, strictScript(steps[0]!.command!), { env, secrets: [key], timeoutMs: 120_000 });
    const connected = await connect();
    expect({ exit: connected.exitCode, output: connected.exitCode === 0 ? '' : connected.output }).toEqual({ exit: 0, output: '' });
    expect(connected.output).toContain(first);

    // The server now answers with another key: the inspection refuses it and says why, the deploy refuses it too.
    const second = sshdWith('second');
    expect(second).not.toBe(first);
    const refused = await inspect();
    expect(refused.status).toBe('failed');
    expect(refused.detail).toContain(`${s.user}@${s.host}:${port} answered with another SSH host key than the one pinned in this workspace`);
    expect(refused.detail).toContain(`ssh-keygen -R '[${s.host}]:${port}' -f ssh-keys/known_hosts`);
    expect(refused.output ?? '').not.toContain('== da-readback end ==');
    const deployRefused = await connect();
    expect(deployRefused.exitCode).not.toBe(0);
    expect(deployRefused.output).toMatch(/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed/);
    expect(deployRefused.output).not.toContain('connected to');
    // What was found before stays: the refused run stores nothing.
    expect((await call(projectId, 'GET', '/planning/server-inspection')).json<ServerInspectionOffer>().facts?.hostKey?.fingerprint).toBe(first);
  }, 300_000);

  test('a server named only by SERVER_USER and SERVER_HOST: inspected through them, its key pinned where the deploy looks, no value sent back', async () => {
    // The plans reach such a server on port 22: the second sshd listens there (the test server's own is on 2222).
    const first = sshdWith('first', 22);
    const projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'by secrets' } })).json<{ id: number }>().id;
    expect((await call(projectId, 'POST', '/planning/requirements-gatherer', { message: 'Redis alone, nothing else, on my VPS' })).statusCode).toBe(200);
    const key = readFileSync(s.private_key_file, 'utf8');
    for (const [name, value] of [['SSH_PRIVATE_KEY', key], ['SERVER_HOST', s.host], ['SERVER_USER', s.user]]) {
      expect((await call(projectId, 'POST', '/planning/requirements/user-secrets', { name, value })).statusCode).toBe(200);
    }
    const offered = await call(projectId, 'GET', '/planning/server-inspection');
    expect(offered.body).not.toContain(s.host);
    const offer = offered.json<ServerInspectionOffer>();
    expect(offer).toMatchObject({ available: true, target: '$SERVER_USER@$SERVER_HOST:22', named_by_secrets: ['SERVER_USER', 'SERVER_HOST'] });

    const ran = await call(projectId, 'POST', '/planning/server-inspection', { command: offer.command });
    expect(ran.body).not.toContain(s.host);
    expect(ran.body).not.toContain(`${s.user}@`);
    const result = ran.json<ServerInspectionResult>();
    expect({ status: result.status, detail: result.status === 'failed' ? result.detail : '' }).toEqual({ status: 'completed', detail: '' });
    expect(result.facts!.os).toMatch(/Debian/);
    expect(result.facts!.portsInUse).toEqual(expect.arrayContaining([expect.objectContaining({ port: 22, protocol: 'tcp' })]));
    expect(result.facts!.hostKey).toEqual({ algorithm: 'ED25519', fingerprint: first, firstContact: true });
    expect((await call(projectId, 'GET', '/planning/stack')).json<StackResponse>().model.serverFacts).toEqual(result.facts);

    // The deploy's first step (HostName $SERVER_HOST, port 22) meets the key pinned under the same name; a changed one stops it.
    expect((await call(projectId, 'POST', '/planning/cloud-architect', { message: 'Generate architecture plan' })).statusCode).toBe(200);
    expect((await call(projectId, 'POST', '/planning/implementation-planner', { message: 'Generate implementation plan' })).statusCode).toBe(200);
    const steps = parsePlanSteps((await call(projectId, 'GET', '/planning/implementation-plan')).json<ImplementationPlanResponse>().plan);
    expect(steps[0]!.command).toContain('HostName $SERVER_HOST');
    const sandboxProject = { id: projectId, installationId: await installationRowId(database, alice) };
    const env = await app.services.planning.secretValues(projectId);
    const connect = async () => app.services.sandbox.exec(sandboxProject, strictScript(steps[0]!.command!), { env, secrets: [key], timeoutMs: 120_000 });
    const connected = await connect();
    expect({ exit: connected.exitCode, output: connected.exitCode === 0 ? '' : connected.output }).toEqual({ exit: 0, output: '' });
    expect(connected.output).toContain(first);
    sshdWith('second', 22);
    const refused = await call(projectId, 'POST', '/planning/server-inspection', { command: offer.command });
    expect(refused.body).not.toContain(s.host);
    expect(refused.json<ServerInspectionResult>().detail).toMatch(/^\$SERVER_USER@\$SERVER_HOST:22 answered with another SSH host key than the one pinned/);
    expect((await connect()).exitCode).not.toBe(0);
  }, 300_000);
});
