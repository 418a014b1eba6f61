import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../server/helpers/freePort';
import { startedAlike, type Server, type Start } from './coldStart';
import { peakRssBytes, rssBytes, startNode, stopChild, waitForUrl } from './processes';

/** How long a server is left after its first healthy answer before its RSS is read "at rest". */
const REST_MS = Number(process.env.BENCH_MEMORY_REST_SECONDS ?? 5) * 1000;

/** One server's memory over one run: a first start on a new PGlite data directory, then a start on the directory it left. */
export interface MemoryRun {
  /** The most RSS of the first start (VmHWM): initdb, or loading the build's template, and the migrations. */
  firstStartPeak: number;
  /** RSS at rest after the first start. */
  firstStartRest: number;
  /** RSS at rest after a start on the existing data directory: what the server holds day to day. */
  rest: number;
  /** The most RSS of that start. */
  restPeak: number;
}

/** Median and spread of one figure over the runs, in bytes. */
export interface Spread {
  median: number;
  min: number;
  max: number;
}

export type MemoryFigures = Record<keyof MemoryRun, Spread>;

function spread(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** Starts `server` on `dataDir`, waits for its first healthy answer and then REST_MS, reads its RSS and peak, and stops it. */
async function atRest(server: Server, start: Start, dataDir: string, env: Record<string, string> = {}): Promise<{ rest: number; peak: number }> {
  const port = await freePort();
  const child = startNode(server.script, { cwd: server.cwd, env: { ...server.env, ...env, PORT: String(port), DATA_DIR: dataDir }, logFile: path.join(dataDir, 'memory.log'), ...start });
  try {
    await waitForUrl(`http://127.0.0.1:${port}/api/health`, 180_000, child);
    await new Promise((resolve) => setTimeout(resolve, REST_MS));
    return { rest: rssBytes(child.pid!), peak: peakRssBytes(child.pid!) };
  } finally {
    await stopChild(child);
  }
}

async function run(server: Server, start: Start): Promise<MemoryRun> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-bench-memory-'));
  try {
    const first = await atRest(server, start, dataDir);
    const again = await atRest(server, start, dataDir);
    return { firstStartPeak: first.peak, firstStartRest: first.rest, rest: again.rest, restPeak: again.peak };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

function figures(runs: MemoryRun[]): MemoryFigures {
  const keys = ['firstStartPeak', 'firstStartRest', 'rest', 'restPeak'] as const;
  return Object.fromEntries(keys.map((key) => [key, spread(runs.map((r) => r[key]))])) as MemoryFigures;
}

/**
 * The memory section: the app's server and the minimal reference (coldReference.ts: Fastify + PGlite + the
 * same migrations), started alike (`startedAlike`), turn about, BENCH_MEMORY_RUNS (3) runs of each: a first
 * start on a new PGlite data directory (its peak, and RSS at rest after it), then a start on the directory
 * it left (RSS at rest). With `databaseUrl` (a fresh database), the app's RSS at rest on PostgreSQL too.
 */
export async function benchMemory(
  serverDir: string,
  databaseUrl?: string,
): Promise<{ app: MemoryFigures; reference: MemoryFigures; postgres?: Spread; label: string; runs: number }> {
  const alike = await startedAlike(serverDir);
  const count = Number(process.env.BENCH_MEMORY_RUNS ?? 3);
  const app: MemoryRun[] = [];
  const reference: MemoryRun[] = [];
  for (let i = 0; i < count; i += 1) {
    app.push(await run(alike.app, alike.start));
    reference.push(await run(alike.reference, alike.start));
  }
  let postgres: Spread | undefined;
  if (databaseUrl) {
    const rests: number[] = [];
    for (let i = 0; i < count; i += 1) {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-bench-memory-'));
      try {
        rests.push((await atRest(alike.app, alike.start, dataDir, { DATABASE_URL: databaseUrl })).rest);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    }
    postgres = spread(rests);
  }
  return { app: figures(app), reference: figures(reference), postgres, label: alike.label, runs: count };
}
