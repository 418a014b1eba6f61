import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import Docker from 'dockerode';
import { createDockerDriver } from '../../../src/server/sandbox/docker/dockerDriver';
import type { SandboxRef } from '../../../src/server/sandbox/driver';
import { listenOnLoopback, type Listening } from './fakeServer';

/**
 * What a healthy engine cannot be made to answer on purpose: its error answers. Everything else the
 * driver does is tested on the real engine (dockerDriver.test.ts).
 */
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'docker');
const fixture = (name: string): string => fs.readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8');
const ref: SandboxRef = { projectId: 7, username: 'user_3_7' };

describe('docker driver on engine error answers (recorded)', () => {
  let listening: Listening;
  let root: string;
  let answers: Array<[RegExp, number, string]>;
  const seen: string[] = [];

  beforeEach(async () => {
    seen.length = 0;
    const server = http.createServer((req, res) => {
      const route = `${req.method} ${req.url!.replace(/^\/v[\d.]+/, '').split('?')[0]}`;
      seen.push(route);
      const [, status, body] = answers.find(([pattern]) => pattern.test(route)) ?? [null, 404, fixture('error-no-such-container')];
      req.resume();
      req.on('end', () => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
    });
    listening = await listenOnLoopback(server, (_req, socket) => socket.destroy());
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'docker-errors-'));
  });
  afterEach(async () => {
    await listening.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const driver = () =>
    createDockerDriver({
      docker: new Docker({ host: '127.0.0.1', port: listening.port, protocol: 'http', version: 'v1.41' }),
      engine: `tcp://127.0.0.1:${listening.port}`,
      instanceId: 'abc123',
      root,
      image: 'devops-agents-toolbox:bookworm',
      network: false,
      memoryMb: 0,
      cpus: 0,
      pidsLimit: 0,
      execTimeoutMs: 1_000,
    });

  it('reads "no such container" as NotRunning, and a 500 as a failure with the engine message (not as the engine being down)', async () => {
    answers = [];
    expect(await driver().status(ref)).toBe('NotRunning');
    expect(seen).toEqual(['GET /containers/devops-agents-abc123-7/json']);
    answers = [[/^GET \/containers\//, 500, '{"message":"layer does not exist"}']];
    await expect(driver().status(ref)).rejects.toMatchObject({ code: 'failed', message: expect.stringContaining('layer does not exist') });
  });

  it('fails an initialise whose volume cannot be created with the engine message, and cleans up what it made', async () => {
    answers = [
      [/^GET \/images\//, 200, '{"Id":"sha256:1"}'],
      [/^GET \/volumes\//, 404, fixture('error-no-such-volume')],
      [/^POST \/volumes\/create$/, 500, '{"message":"create devops-agents-abc123-7-workspace: no space left on device"}'],
    ];
    await expect(driver().initialise(ref)).rejects.toMatchObject({ code: 'failed', message: expect.stringContaining('no space left on device') });
    expect(seen).not.toContain('POST /containers/create');
    expect(seen).toContain('DELETE /containers/devops-agents-abc123-7');
  });
});
