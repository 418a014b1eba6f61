import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The disposable test server (`npm run test-server:up`) and its backup host, as up.sh describes them in
 * `.test-server/`. A test that needs one runs only when it is there, and CI, which starts it, fails loudly
 * when it is not.
 */
export interface TestHost { host: string; port: number; user: string; private_key_file: string; path?: string }

export const TEST_SERVER_JSON = process.env.DA_TEST_SERVER_JSON ?? path.resolve('.test-server', 'server.json');
const BACKUP_JSON = path.join(path.dirname(TEST_SERVER_JSON), 'backup.json');

const read = (file: string): TestHost | undefined => (existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as TestHost) : undefined);

export const testServer = read(TEST_SERVER_JSON);
export const backupHost = read(BACKUP_JSON);

/** Throws under CI when a host the test needs is missing: CI starts them before the tests. */
export function requireInCi(...hosts: Array<TestHost | undefined>): void {
  if (hosts.some((h) => !h) && process.env.CI) throw new Error('CI starts the test server and its backup host (npm run test-server:up) before the tests');
}

/**
 * The test server's stand-in base image on the local engine (built by `npm run test-server:up`, under the
 * image prefix up.sh uses), for tests that run Compose here; undefined without it, and under CI, which
 * builds it first, a loud failure.
 */
export function standinBaseImage(): string | undefined {
  let image: string | undefined;
  try {
    const name = `${process.env.DA_TEST_SERVER_IMAGE_PREFIX ?? 'da-test-server'}-standin-base`;
    image = execFileSync('docker', ['images', '--format', '{{.Repository}}:{{.Tag}}', name], { encoding: 'utf8' }).trim().split('\n').find(Boolean);
  } catch {
    image = undefined;
  }
  if (!image && process.env.CI) throw new Error('CI builds the test server images (npm run test-server:up) before the tests');
  return image;
}

/** One command over SSH, as the test's own check from outside the product. */
export const sshTo = (h: TestHost, command: string, timeout = 120_000): string =>
  execFileSync('ssh', ['-i', h.private_key_file, '-p', String(h.port), '-o', 'BatchMode=yes', '-o', 'StrictHostKeyChecking=no', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'LogLevel=ERROR', `${h.user}@${h.host}`, command], { encoding: 'utf8', timeout });
