import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/** The docker driver with its engine unreachable (a socket that does not exist): 503s naming the engine, never a bare 500. */
describe('sandbox routes with the Docker engine down', () => {
  const socket = '/nonexistent/docker.sock';
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;
  let projectId: number;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-engine-down-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, SANDBOX_DRIVER: 'docker', DOCKER_HOST: `unix://${socket}` } });
    alice = await signIn(app, 'alice');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'No engine' } })).json().id;
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers the status poll, start and stop with 503 and a detail naming the engine', async () => {
    for (const [method, url] of [
      ['GET', `/api/sandboxes/${projectId}/status`],
      ['POST', `/api/sandboxes/${projectId}/start`],
      ['POST', `/api/sandboxes/${projectId}/stop`],
    ] as const) {
      const response = await app.inject({ method, url, headers: alice.headers });
      expect({ url, status: response.statusCode }).toEqual({ url, status: 503 });
      expect(response.json().detail).toContain(`unix://${socket}`);
    }
    const init = await app.inject({ method: 'POST', url: `/api/sandbox/initialize/${projectId}`, headers: alice.headers, payload: {} });
    expect(init.json()).toEqual({ status: 'failed', detail: expect.stringContaining(`The Docker engine at unix://${socket} cannot be reached`) });
  });
});
