import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { rssBytes, startNode, stopChild, waitForUrl } from './processes';

const BUILT_SERVER = 'dist/server/server.mjs';

export interface ColdStart {
  /** From spawn to the first 200 of /api/health, in ms. */
  newDirMs: number;
  existingDirMs: number;
  /** Resident memory right after the first start. */
  rssBytes: number;
}

/** How a script is started: through tsx (sources), or built JavaScript with plain node (`npm run serve`). */
interface Start {
  tsx: boolean;
  nodeArgs: string[];
}

/** Starts `script` on a new DATA_DIR, stops it, starts it again on the same one; times both to a healthy answer. */
async function coldStart(script: string, cwd: string, env: Record<string, string>, start: Start): Promise<ColdStart> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-bench-cold-'));
  try {
    const once = async (): Promise<{ ms: number; rss: number }> => {
      const port = 20_000 + Math.floor(Math.random() * 20_000);
      const started = Date.now();
      const child = startNode(script, { cwd, env: { ...env, PORT: String(port), DATA_DIR: dataDir }, logFile: path.join(dataDir, 'start.log'), ...start });
      try {
        await waitForUrl(`http://127.0.0.1:${port}/api/health`, 180_000, child);
        const ms = Date.now() - started;
        return { ms, rss: rssBytes(child.pid!) };
      } finally {
        await stopChild(child);
      }
    };
    const first = await once();
    const second = await once();
    return { newDirMs: first.ms, existingDirMs: second.ms, rssBytes: first.rss };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The reference built the way `npm run build:server` builds the server (esbuild, one ESM file, packages
 * left to node_modules), into `dist/bench` so that its imports resolve.
 */
async function buildReference(): Promise<string> {
  const outfile = path.resolve('dist/bench/coldReference.mjs');
  await build({ entryPoints: [path.resolve('test/bench/coldReference.ts')], bundle: true, platform: 'node', target: 'node20', format: 'esm', packages: 'external', outfile, logLevel: 'error' });
  return outfile;
}

/**
 * Cold start of the app's server against the minimal reference (coldReference.ts: Fastify + PGlite + the
 * same migrations), each on a new data directory and then on the one it left, one after the other.
 * When the server is built (`npm run build:server`), it starts as `npm run serve` starts it (plain node)
 * and the reference is built and started the same way; otherwise both start from their sources through tsx.
 */
export async function benchColdStart(serverDir: string): Promise<{ app: ColdStart; reference: ColdStart; script: string }> {
  const built = fs.existsSync(path.join(serverDir, BUILT_SERVER));
  const start: Start = built ? { tsx: false, nodeArgs: [] } : { tsx: true, nodeArgs: [] };
  const script = built ? BUILT_SERVER : 'src/server/server.ts';
  const app = await coldStart(script, serverDir, { STATIC_DIR: '/nonexistent', LOG_LEVEL: 'warn' }, start);
  const referenceScript = built ? await buildReference() : path.resolve('test/bench/coldReference.ts');
  const reference = await coldStart(referenceScript, process.cwd(), { MIGRATIONS_DIR: path.join(serverDir, 'migrations') }, start);
  return { app, reference, script: built ? `${script}, plain node` : `${script}, tsx` };
}
