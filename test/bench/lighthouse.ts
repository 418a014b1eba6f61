import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNode, stopChild, waitForUrl } from './processes';
import { freePort } from '../server/helpers/freePort';

/** Debian's chromium: what Lighthouse drives (headless, no sandbox as root). CHROME_PATH overrides it. */
const CHROMIUM = process.env.CHROME_PATH ?? '/usr/bin/chromium';

export interface LighthouseResult {
  lcpMs: number;
  fcpMs: number;
  /** The element Lighthouse found largest, as HTML. */
  lcpElement: string;
}

interface LighthouseReport {
  audits: Record<string, { numericValue?: number; details?: { items?: Array<{ items?: Array<{ node?: { snippet?: string } }> }> } }>;
}

/**
 * Lighthouse mobile (its default: a mid-range phone on slow 4G, simulated) on the landing page of the
 * built app (`npm run build`, then started as `npm run serve` does), `runs` times; the median LCP run.
 */
export async function benchLighthouse(serverDir: string, runs = 3): Promise<LighthouseResult> {
  // Built every time: a build left from older sources would be measured instead.
  execFileSync('npm', ['run', 'build'], { cwd: serverDir, stdio: 'ignore' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-bench-lighthouse-'));
  const port = await freePort();
  const server = startNode('dist/server/server.mjs', {
    cwd: serverDir,
    env: { PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    logFile: path.join(dataDir, 'server.log'),
    tsx: false,
  });
  try {
    await waitForUrl(`http://127.0.0.1:${port}/api/health`, 120_000, server);
    const results: LighthouseResult[] = [];
    for (let i = 0; i < runs; i += 1) {
      const output = path.join(dataDir, `lighthouse-${i}.json`);
      execFileSync(
        path.resolve('node_modules/.bin/lighthouse'),
        [
          `http://127.0.0.1:${port}/`,
          '--quiet',
          '--only-categories=performance',
          '--form-factor=mobile',
          '--chrome-flags=--headless=new --no-sandbox',
          '--output=json',
          `--output-path=${output}`,
        ],
        { env: { ...process.env, CHROME_PATH: CHROMIUM }, stdio: 'ignore', timeout: 180_000 },
      );
      const { audits } = JSON.parse(fs.readFileSync(output, 'utf8')) as LighthouseReport;
      results.push({
        lcpMs: audits['largest-contentful-paint']?.numericValue ?? Infinity,
        fcpMs: audits['first-contentful-paint']?.numericValue ?? Infinity,
        lcpElement: audits['largest-contentful-paint-element']?.details?.items?.[0]?.items?.[0]?.node?.snippet ?? '?',
      });
    }
    results.sort((a, b) => a.lcpMs - b.lcpMs);
    return results[Math.floor(results.length / 2)]!;
  } finally {
    await stopChild(server);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
