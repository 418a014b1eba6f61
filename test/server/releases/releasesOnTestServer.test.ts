import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { compareToRelease } from '../../../src/server/services/releases/drift';
import { applyReleaseScript, rollbackScript } from '../../../src/server/services/releases/releaseScripts';
import { checkDrift, reportFailedGate } from '../../../src/server/services/releases/releaseChecks';
import type { Notice } from '../../../src/server/services/notifications/notificationService';
import { baselineRelease, listReleases, readLiveState, recordRelease } from '../../../src/server/services/releases/releaseStore';
import { buildTestApp, signIn } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * Releases, their health gate and rollback, and drift, on the real test server (`npm run
 * test-server:up`), in a compose project of this test's own (`darel`, ports 1808x) beside anything else.
 */

interface TestServer { host: string; port: number; user: string; private_key_file: string }
const SERVER_JSON = process.env.DA_TEST_SERVER_JSON ?? path.resolve('.test-server', 'server.json');
const server = existsSync(SERVER_JSON) ? (JSON.parse(readFileSync(SERVER_JSON, 'utf8')) as TestServer) : undefined;
if (!server && process.env.CI) throw new Error('CI starts the test server (npm run test-server:up) before the tests');

const PROJECT = 'darel';
const DIR = '/home/deploy/darel';

const sshArgs = (s: TestServer): string[] => ['-i', s.private_key_file, '-p', String(s.port), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', `${s.user}@${s.host}`];
/** A script on the server through `bash -s`, as a step runs it: status and output. */
const script = (s: TestServer, text: string): { status: number | null; output: string } => {
  const r = spawnSync('ssh', [...sshArgs(s), 'bash -s'], { input: text, encoding: 'utf8', timeout: 300_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
};
const onServer = (s: TestServer, command: string): string => execFileSync('ssh', [...sshArgs(s), command], { encoding: 'utf8', timeout: 120_000 });

const compose = (services: string): string => `version: "2.4"\nservices:\n${services}`;
const web = (port: number): string => `  web:\n    image: nginx:1.27.2-alpine\n    ports:\n      - "127.0.0.1:${port}:80"\n`;
const cache = '  cache:\n    image: redis:7.4.1-alpine\n';
/** A service whose health check can never pass. */
const broken = '  worker:\n    image: redis:7.4.1-alpine\n    healthcheck:\n      test: ["CMD-SHELL", "exit 1"]\n      interval: 1s\n      retries: 1\n';

(server || process.env.CI ? describe : describe.skip)('releases on the test server', () => {
  const s = server!;
  let database: TestDatabase;
  let app: FastifyInstance;
  let projectId: number;
  let headers: Record<string, string>;
  const run = async (command: string): Promise<string> => onServer(s, command);
  const reset = (): void => void script(s, `if [ -d ${DIR} ]; then cd ${DIR} && docker-compose -p ${PROJECT} down -v --remove-orphans >/dev/null 2>&1 || true; fi; rm -rf ${DIR}`);

  beforeAll(async () => {
    reset();
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database);
    const alice = await signIn(app, 'alice');
    headers = alice.headers;
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'shop' } })).json<{ id: number }>().id;
  });
  afterAll(async () => {
    reset();
    await app.close();
    await database.destroy();
  });

  it('a change whose new service never becomes healthy is rolled back and the old stack still answers; "Roll back" restores a chosen release; drift is seen', async () => {
    const one = { 'docker-compose.yml': compose(web(18080)), 'site/README': 'release one\n' };
    const first = script(s, applyReleaseScript({ project: PROJECT, directory: DIR, next: { number: 1, files: one }, gateSeconds: 60 }));
    expect(first).toEqual({ status: 0, output: expect.stringContaining('release 1 is up') as string });
    const r1 = await recordRelease(database.db, projectId, DIR, one, await readLiveState(run, PROJECT, DIR));
    expect(r1.number).toBe(1);
    expect(r1.containers).toEqual([{ service: 'web', image: 'nginx:1.27.2-alpine', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) as string, ports: ['127.0.0.1:18080->80/tcp'] }]);
    expect(compareToRelease(r1, await readLiveState(run, PROJECT, DIR))).toEqual([]);

    // The change: an added service that never becomes healthy. The gate fails, release 1 comes back.
    const two = { 'docker-compose.yml': compose(web(18080) + broken), 'site/README': 'release two\n' };
    const failed = script(s, applyReleaseScript({ project: PROJECT, directory: DIR, next: { number: 2, files: two }, previous: { number: 1, files: one }, gateSeconds: 15 }));
    expect(failed.status).toBe(1);
    expect(failed.output).toContain('not healthy in time: worker(unhealthy)');
    expect(failed.output).toContain('release 1 restored and healthy');
    const r2 = await recordRelease(database.db, projectId, DIR, two, await readLiveState(run, PROJECT, DIR));
    const notices: Notice[] = [];
    const notifier = { notify: async (_id: number, n: Notice): Promise<void> => void notices.push(n) };
    await reportFailedGate(database.db, notifier, { id: projectId, name: 'shop' }, { number: r2.number, output: failed.output });
    expect(notices).toEqual([{ event: 'health_gate_failed', projectName: 'shop', title: 'Release 2 failed its health check and was rolled back', detail: expect.stringContaining('not healthy in time: worker(unhealthy)') as string }]);
    expect(onServer(s, 'curl -fsS http://127.0.0.1:18080/')).toMatch(/\S/);
    expect(onServer(s, `cat ${DIR}/site/README; docker ps -a --filter label=com.docker.compose.project=${PROJECT} --format '{{.Label "com.docker.compose.service"}}'`).trim().split('\n').sort()).toEqual(['release one', 'web']);
    expect((await baselineRelease(database.db, projectId))!.number).toBe(1);

    // A healthy change: web moves to 18081 and a cache is added; then "Roll back" to release 1, timed.
    const three = { 'docker-compose.yml': compose(web(18081) + cache) };
    expect(script(s, applyReleaseScript({ project: PROJECT, directory: DIR, next: { number: 3, files: three }, previous: { number: 1, files: one }, gateSeconds: 60 })).status).toBe(0);
    const r3 = await recordRelease(database.db, projectId, DIR, three, await readLiveState(run, PROJECT, DIR));
    expect(r3.number).toBe(3);
    expect((await listReleases(database.db, projectId)).map((r) => [r.number, r.status])).toEqual([[3, 'live'], [2, 'rolled_back'], [1, 'superseded']]);
    const started = Date.now();
    const back = script(s, rollbackScript({ project: PROJECT, directory: DIR, target: { number: 1, files: one }, current: { number: 3, files: three }, gateSeconds: 60 }));
    expect(back).toEqual({ status: 0, output: expect.stringContaining('release 1 restored and healthy') as string });
    let answered = '';
    for (let i = 0; i < 60 && !answered; i++) answered = script(s, 'curl -fsS http://127.0.0.1:18080/ 2>/dev/null || sleep 0.5').output;
    const seconds = (Date.now() - started) / 1000;
    expect(answered).toMatch(/\S/);
    process.stdout.write(`roll back to release 1 answering after ${seconds.toFixed(1)} s\n`);
    const r4 = await recordRelease(database.db, projectId, DIR, one, await readLiveState(run, PROJECT, DIR));

    const listed = await app.inject({ method: 'GET', url: `/api/projects/${projectId}/releases`, headers });
    expect(listed.json<{ releases: { number: number; status: string; files: string[] }[] }>().releases.map((r) => [r.number, r.status, r.files])).toEqual([
      [4, 'live', ['docker-compose.yml', 'site/README']], [3, 'superseded', ['docker-compose.yml']], [2, 'rolled_back', ['docker-compose.yml', 'site/README']], [1, 'superseded', ['docker-compose.yml', 'site/README']],
    ]);
    const bob = await signIn(app, 'bob');
    expect((await app.inject({ method: 'GET', url: `/api/projects/${projectId}/releases`, headers: bob.headers })).statusCode).toBe(404);

    // Drift: a container stopped by hand, then a port changed by hand, a cron entry added.
    onServer(s, `docker stop ${PROJECT}_web_1 >/dev/null`);
    const stopped = compareToRelease(r4, await readLiveState(run, PROJECT, DIR));
    const checked = await checkDrift(database.db, notifier, { id: projectId, name: 'shop', composeProject: PROJECT }, run);
    expect(checked).toEqual({ release: 4, differences: stopped });
    expect(notices[1]).toEqual({ event: 'drift', projectName: 'shop', title: 'The server differs from release 4', detail: expect.stringContaining('containers: web: exited') as string });
    expect(stopped).toEqual([{ kind: 'containers', detail: 'web: exited, the release had it running' }, { kind: 'ports', detail: 'web published port missing on the server: 127.0.0.1:18080->80/tcp' }]);
    onServer(s, `cd ${DIR} && sed -i 's/18080/18082/' docker-compose.yml && docker-compose -p ${PROJECT} up -d >/dev/null 2>&1`);
    const hasCron = script(s, 'command -v crontab').status === 0;
    if (hasCron) onServer(s, "(crontab -l 2>/dev/null; echo '*/5 * * * * true # darel drift') | crontab -");
    try {
      const moved = compareToRelease(r4, await readLiveState(run, PROJECT, DIR));
      expect(moved).toEqual(expect.arrayContaining([
        { kind: 'ports', detail: 'web published port missing on the server: 127.0.0.1:18080->80/tcp' },
        { kind: 'ports', detail: 'web published port added on the server: 127.0.0.1:18082->80/tcp' },
      ]));
      if (hasCron) expect(moved).toContainEqual({ kind: 'cron', detail: 'cron entry added on the server: */5 * * * * true # darel drift' });
      process.stdout.write(`drift kinds detected: ${[...new Set([...stopped, ...moved].map((d) => d.kind))].join(', ')}\n`);
    } finally {
      if (hasCron) onServer(s, "crontab -l 2>/dev/null | grep -v 'darel drift' | crontab - || true");
    }
  }, 600_000);
});
