import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DETECT_DOCKER, waitHealthy } from '../../../src/server/agents/offline/remoteShell';
import { standinBaseImage } from '../helpers/testServer';

/**
 * The deploy's wait for a healthy stack, run against the real Docker engine with Compose: services
 * without a healthcheck count when they run, a task that runs once counts when it exited 0, and a
 * container that stops fails the wait. Uses the test server's stand-in base image (built by
 * `npm run test-server:up`, which CI runs first); skipped where there is no engine or no image.
 */
const image = standinBaseImage();

(image ? describe : describe.skip)('waiting for a stack on a real engine', () => {
  const project = `da-wait-${process.pid}`;
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-wait-'));
  });
  afterEach(() => {
    spawnSync('docker-compose', ['-p', project, 'down', '-v', '--remove-orphans', '-t', '1'], { cwd: dir, encoding: 'utf8' });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const compose = (services: Record<string, string>): void => {
    const body = Object.entries(services).map(([name, spec]) => `  ${name}:\n    image: ${image}\n${spec}`).join('\n');
    fs.writeFileSync(path.join(dir, 'docker-compose.yml'), `version: "3.8"\nservices:\n${body}\n`);
    execFileSync('docker-compose', ['-p', project, 'up', '-d'], { cwd: dir, encoding: 'utf8', stdio: 'pipe' });
  };
  const wait = (oneShot: string[]) =>
    spawnSync('bash', ['-c', `set -euo pipefail\n${DETECT_DOCKER}\ncd ${dir}\n${waitHealthy(90, oneShot)}`], { encoding: 'utf8', env: { ...process.env, COMPOSE_PROJECT_NAME: project }, timeout: 150_000 });

  it('says what it waits for as it happens, not only when it gives up', () => {
    compose({ slow: '    command: ["sh", "-c", "sleep 6; touch /tmp/ok; sleep 600"]\n    healthcheck:\n      test: ["CMD", "test", "-f", "/tmp/ok"]\n      interval: 1s\n      retries: 1\n' });
    const r = wait([]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^waiting for: slow (starting|unhealthy) \(\d+ s\)$/m);
    expect(r.stdout).toMatch(/^slow running healthy 0$/m);
  });

  it('passes for running services with and without a healthcheck and a task that exited 0', () => {
    compose({
      checked: '    command: ["sleep", "600"]\n    healthcheck:\n      test: ["CMD", "true"]\n      interval: 1s\n',
      plain: '    command: ["sleep", "600"]\n',
      init: '    command: ["true"]\n',
    });
    const r = wait(['init']);
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
    expect(r.stdout).toMatch(/^checked running healthy 0$/m);
    expect(r.stdout).toMatch(/^plain running no-healthcheck 0$/m);
    expect(r.stdout).toMatch(/^init exited no-healthcheck 0$/m);
  }, 180_000);

  it('reads the tasks that run once from a shell variable when only the server knows them (a restored release)', () => {
    compose({ plain: '    command: ["sleep", "600"]\n', init: '    command: ["true"]\n' });
    const byVariable = (once: string) =>
      spawnSync('bash', ['-c', `set -euo pipefail\n${DETECT_DOCKER}\ncd ${dir}\nonce='${once}'\n${waitHealthy(20, ['other'], { oneShotVar: 'once' })}`], { encoding: 'utf8', env: { ...process.env, COMPOSE_PROJECT_NAME: project }, timeout: 150_000 });
    expect(byVariable('init|other').status).toBe(0);
    // A task still running is not done yet: the wait ends once it exited 0.
    compose({ plain: '    command: ["sleep", "600"]\n', init: '    command: ["sh", "-c", "sleep 5"]\n' });
    const waited = byVariable('init');
    expect(waited.status).toBe(0);
    expect(waited.stdout).toMatch(/^waiting for: init running/m);
    expect(waited.stdout).toMatch(/^init exited no-healthcheck 0$/m);
    const none = byVariable('');
    expect(none.status).not.toBe(0);
    expect(none.stderr).toMatch(/^init exited no-healthcheck 0$/m);
  }, 180_000);

  it('fails when a task that should run once fails, or a service stops', () => {
    compose({ plain: '    command: ["sleep", "600"]\n', init: '    command: ["false"]\n' });
    const failedTask = wait(['init']);
    expect(failedTask.status).not.toBe(0);
    expect(failedTask.stderr).toContain('a container stopped');
    expect(failedTask.stderr).toMatch(/^init exited no-healthcheck 1$/m);
    const notOneShot = wait([]);
    expect(notOneShot.status).not.toBe(0);
  }, 180_000);
});
