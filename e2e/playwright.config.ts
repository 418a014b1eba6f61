import os from 'node:os';
import path from 'node:path';
import { defineConfig } from '@playwright/test';

/**
 * Journeys against the real server (built exactly as `npm start` builds it) in Debian's Chromium.
 * Each run gets a fresh data directory, so tests start from an empty product.
 */
const port = Number(process.env.E2E_PORT ?? 8181);
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
    command: `{ findmnt -rn -o TARGET | grep -F '${dataDir}/' | xargs -r -n1 umount --lazy; true; } && rm -rf ${dataDir} && npm run build && node dist/server/server.mjs`,
    cwd: '..',
    url: `http://127.0.0.1:${port}/api/ready`,
    timeout: 420_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    // Every journey's project reserves its workspace on the disk: small ones, or a run fills the disk the deploy journey's server checks.
    env: { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', SANDBOX_DISK_MB: '512' },
  },
});
