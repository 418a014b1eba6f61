import type { FastifyInstance } from 'fastify';
import { createReleaseService } from '../../../src/server/services/releases/releaseService';
import { listReleases } from '../../../src/server/services/releases/releaseStore';
import { buildTestApp, installationRowId, signIn } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * The files of a release are read back in base64 and checked once decoded: a file is kept whatever its
 * base64 looks like (an nginx file's "server {" encodes to "c2VydmVy", a piece a key's own text can hold),
 * and a file holding a secret value is left out. The server's answers are what the read-back and the
 * live-state commands print; the service and its database are real.
 */
describe('the files a release keeps', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  beforeAll(async () => {
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { DRIFT_CHECK_MINUTES: '0' } });
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  it('keeps a file whose base64 matches a piece of a secret, and leaves out one that holds a secret value', async () => {
    const alice = await signIn(app, 'alice');
    const id = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'shop' } })).json<{ id: number }>().id;
    const project = { projectId: id, installationId: await installationRowId(database, alice) };
    const nginx = 'server {\n    listen 80 default_server;\n}\n';
    // A secret whose own text holds the base64 of "server" (as an OpenSSH key's body can, through its comment).
    const key = `-----BEGIN KEY-----\nAAAAC3NzaC1lZDI1NTE5${Buffer.from('server').toString('base64')}AAAAQ0deploy\n-----END KEY-----\n`;
    const files = { 'docker-compose.yml': 'services:\n  web: { image: nginx }\n', 'nginx/default.conf': nginx, 'app.conf': 'password=hunter2-secret\n' };
    const listing = Object.entries(files).map(([f, t]) => `${f}\t${Buffer.from(t).toString('base64')}`).join('\n');
    const answers: Array<[string, string]> = [['base64 -w0', listing], ['docker inspect', '[]'], ['df -P', 'Filesystem 1-blocks Used Available Capacity Mounted on\n/dev/sda1 100 50 50 50% /\n'], ['', '']];
    const service = createReleaseService({
      db: database.db,
      sandbox: {
        exec: async (_p, command, options) => {
          const output = answers.find(([k]) => command.includes(k))![1];
          // The sandbox redacts what it is told to: a read-back given the secrets would lose nginx/default.conf.
          const shown = (options?.secrets ?? []).reduce((text, s) => (s.includes('c2VydmVy') ? text.replaceAll('c2VydmVy', '[REDACTED]') : text), output);
          return { exitCode: 0, output: shown, timedOut: false, cancelled: false, durationMs: 1 };
        },
        containerStatus: async () => ({ container_status: 'Running', username: 'u', last_sync_time: null }),
        initialise: async () => ({ status: 'success', detail: '' }),
        activity: () => ({ running: 0, started: 0 }),
        stop: () => Promise.reject(new Error('a running sandbox is never stopped')),
      },
      hiddenValues: async () => ({ SSH_PRIVATE_KEY: key, APP_PASSWORD: 'hunter2-secret' }),
      execution: { planOf: async () => undefined, addStep: () => Promise.reject(new Error('not used')) },
      notifier: { notify: async () => undefined },
      log: { warn: () => undefined },
    });
    await service.recordDeploy(project);
    const [release] = await listReleases(database.db, id);
    expect(release!.files).toEqual({ 'docker-compose.yml': files['docker-compose.yml'], 'nginx/default.conf': nginx });
  });
});
