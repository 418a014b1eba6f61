import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { rssBytes, startNode, stopChild, waitForUrl } from './processes';

const BUILT_SERVER = 'dist/server/server.mjs';

export interface ColdStart {
  /** From spawn to the first 200 of /api/health, in ms. */
  newDirMs: number;
  existingDirMs: number;
  /** Resident memory right after the first start. */
  rssBytes: number;
}

/** Starts `script` on a new DATA_DIR, stops it, starts it again on the same one; times both to a healthy answer. */
async function coldStart(script: string, cwd: string, env: Record<string, string>): Promise<ColdStart> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-bench-cold-'));
  try {
    const once = async (): Promise<{ ms: number; rss: number }> => {
      const port = 20_000 + Math.floor(Math.random() * 20_000);
      const started = Date.now();
      const child = startNode(script, { cwd, env: { ...env, PORT: String(port), DATA_DIR: dataDir }, logFile: path.join(dataDir, 'start.log') });
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
 * Cold start of the app's server (its built bundle when there is one, else `src/server/server.ts`; PGlite) against the minimal reference
 * (coldReference.ts: Fastify + PGlite + the same migrations), each on a new data directory and then on
 * the one it left, started the same way (`node --import tsx`), one after the other.
 */
export async function benchColdStart(serverDir: string): Promise<{ app: ColdStart; reference: ColdStart; script: string }> {
  // What `npm run serve` starts when the server is built (`npm run build:server`); the sources otherwise.
  const script = fs.existsSync(path.join(serverDir, BUILT_SERVER)) ? BUILT_SERVER : 'src/server/server.ts';
  const app = await coldStart(script, serverDir, { STATIC_DIR: '/nonexistent', LOG_LEVEL: 'warn' });
  const reference = await coldStart(path.resolve('test/bench/coldReference.ts'), process.cwd(), { MIGRATIONS_DIR: path.join(serverDir, 'migrations') });
  return { app, reference, script };
}
