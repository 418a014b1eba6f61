import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rollbackScript } from '../../../src/server/services/releases/releaseScripts';
import { standinBaseImage } from '../helpers/testServer';

/**
 * A roll back's health gate on the real Docker engine with Compose: a task of the release that runs once
 * (a migration, `restart: "no"`) counts when it exited 0, fails the gate at once, in words, when it
 * exited with another code, and a service not marked so that exits still fails it. The script is the
 * roll back step's server side, run here in a directory of this test's own. Uses the test server's
 * stand-in base image (built by `npm run test-server:up`, which CI runs first); skipped without it.
 */
const docker = (args: string[]): string => execFileSync('docker', args, { encoding: 'utf8' }).trim();
const image = standinBaseImage();

(image ? describe : describe.skip)('rolling back to a release with a task that runs once, on a real engine', () => {
  const project = `da-once-${process.pid}`;
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-once-'));
  });
  afterEach(() => {
    spawnSync('docker-compose', ['-p', project, 'down', '-v', '--remove-orphans', '-t', '1'], { cwd: dir, encoding: 'utf8' });
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const release = (services: Record<string, string>) => ({
    number: 1,
    files: { 'docker-compose.yml': `version: "2.4"\nservices:\n${Object.entries(services).map(([name, spec]) => `  ${name}:\n    image: ${image}\n${spec}`).join('\n')}\n` },
  });
  const rollBack = (target: ReturnType<typeof release>, gateSeconds: number) =>
    spawnSync('bash', ['-c', rollbackScript({ project, directory: dir, target, gateSeconds })], { encoding: 'utf8', timeout: 150_000 });
  const web = '    command: ["sleep", "600"]\n    restart: unless-stopped\n';

  it('waits for a migration to end, and counts it done once it exited 0', () => {
    const r = rollBack(release({ web, migrate: '    command: ["sh", "-c", "sleep 5"]\n    restart: "no"\n' }), 60);
    expect({ status: r.status, stdout: r.stdout.trim().split('\n').pop() }).toEqual({ status: 0, stdout: 'release 1 restored and healthy' });
    expect(docker(['inspect', '-f', '{{.State.Status}} {{.State.ExitCode}}', `${project}_migrate_1`])).toBe('exited 0');
    // The restored release is the last healthy one now: the next change is compared with it and restores it.
    expect(fs.readFileSync(path.join(dir, '.release/last-healthy/docker-compose.yml'), 'utf8')).toBe(fs.readFileSync(path.join(dir, 'docker-compose.yml'), 'utf8'));
    expect(fs.readFileSync(path.join(dir, '.release/last-healthy.one-shot'), 'utf8')).toBe('migrate\n');
  }, 180_000);

  it('fails at once, saying so, when the migration exited with another code', () => {
    const r = rollBack(release({ web, migrate: '    command: ["sh", "-c", "exit 3"]\n    restart: "no"\n' }), 120);
    expect(r.status).not.toBe(0);
    expect(r.stdout).toContain('migrate runs once and exited with code 3');
    expect(r.stdout).not.toContain('restored and healthy');
    // Not healthy: not kept as the last healthy release.
    expect(fs.existsSync(path.join(dir, '.release/last-healthy'))).toBe(false);
  }, 180_000);

  it('still fails a service the release does not mark as running once that exited', () => {
    const r = rollBack(release({ web, server: '    command: ["true"]\n' }), 6);
    expect(r.status).not.toBe(0);
    expect(r.stdout).toMatch(/^not healthy in time: server\(exited 0 none\)$/m);
  }, 180_000);
});
