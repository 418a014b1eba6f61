import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

/**
 * Journeys against the real server (built exactly as `npm start` builds it) in Debian's Chromium.
 * Each run gets a fresh data directory, so tests start from an empty product.
 */
/**
 * A port no other process holds, unless E2E_PORT names one: a second test run on the machine must not
 * find its journeys' server port taken. The runner picks it once and its workers inherit it through the
 * environment (they load this file again, and must reach the same server).
 */
function freePort(): string {
  const probe = "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{process.stdout.write(String(s.address().port));s.close()})";
  return execFileSync(process.execPath, ['-e', probe], { encoding: 'utf8' }).trim();
}
process.env.E2E_PORT ??= freePort();
const port = Number(process.env.E2E_PORT);
const dataDir = path.join(os.tmpdir(), `devops-agents-e2e-${process.pid}`);

export default defineConfig({
  testDir: '.',
  testMatch: '**/*.spec.ts',
  outputDir: '../test-results/e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    // A server that was killed leaves its bounded workspaces (SANDBOX_DISK_MB) mounted: unmounted before the folder goes.
    command: `bash test/support/e2e-clean-stale.sh && { findmnt -rn -o TARGET | grep -F '${dataDir}/' | xargs -r -n1 umount --lazy; true; } && rm -rf ${dataDir} && npm run build && node dist/server/server.mjs`,
    cwd: '..',
    url: `http://127.0.0.1:${port}/api/ready`,
    timeout: 420_000,
    reuseExistingServer: false,
    // Stopped as a person stops it (SIGTERM), not SIGKILLed (Playwright's default): its shutdown unmounts the
    // bounded workspaces, which a killed server leaves mounted, so the data directory can be removed. It
    // bounds its own shutdown (SHUTDOWN_TIMEOUT_SECONDS, 10 s); the kill after 30 s is for a server that hangs.
    gracefulShutdown: { signal: 'SIGTERM', timeout: 30_000 },
    stdout: 'ignore',
    stderr: 'pipe',
    // Every journey's project reserves its workspace on the disk: small ones, or a run fills the disk the deploy journey's server checks.
    env: { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', SANDBOX_DISK_MB: '512' },
  },
});
