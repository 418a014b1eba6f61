import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { rssBytes, startNode, stopChild, waitForUrl } from './processes';
import { freePort } from '../server/helpers/freePort';
import { PGLITE_TEMPLATE } from '../../src/server/db/pglite';

/** What `npm run build:server` writes and `npm run serve` starts. */
export const BUILT_SERVER = 'dist/server/server.mjs';

export interface ColdStart {
  /** From spawn to the first 200 of /api/health, in ms: the median of the starts on a new data dir. */
  newDirMs: number;
  /** The same, on the data dir a start left (the median of BENCH_COLD_STARTS starts). */
  existingDirMs: number;
  /** Resident memory right after the first start. */
  rssBytes: number;
}

/** How a script is started: through tsx (sources), or built JavaScript with plain node (`npm run serve`). */
export interface Start {
  tsx: boolean;
  nodeArgs: string[];
}

export interface Server {
  script: string;
  cwd: string;
  env: Record<string, string>;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Starts `server` on `dataDir` and times it to its first healthy answer; then stops it. */
async function timedStart(server: Server, dataDir: string, start: Start): Promise<{ ms: number; rss: number }> {
  const port = await freePort();
  const started = Date.now();
  const child = startNode(server.script, { cwd: server.cwd, env: { ...server.env, PORT: String(port), DATA_DIR: dataDir }, logFile: path.join(dataDir, 'start.log'), ...start });
  try {
    await waitForUrl(`http://127.0.0.1:${port}/api/health`, 180_000, child);
    return { ms: Date.now() - started, rss: rssBytes(child.pid!) };
  } finally {
    await stopChild(child);
  }
}

/**
 * Both servers, turn about, so that a noisy moment of the machine falls on both: each starts on new data
 * dirs and then on the one it left, `starts` times each (medians).
 */
async function coldStarts(servers: [Server, Server], start: Start, starts: number): Promise<[ColdStart, ColdStart]> {
  const kept = servers.map(() => fs.mkdtempSync(path.join(os.tmpdir(), 'da-bench-cold-')));
  const fresh: number[][] = [[], []];
  const existing: number[][] = [[], []];
  const rss = [0, 0];
  try {
    for (let round = 0; round < starts; round += 1) {
      for (const [i, server] of servers.entries()) {
        // The first round's new dir is the one the later rounds start on again.
        const dir = round === 0 ? kept[i]! : fs.mkdtempSync(path.join(os.tmpdir(), 'da-bench-cold-'));
        try {
          const first = await timedStart(server, dir, start);
          fresh[i]!.push(first.ms);
          if (round === 0) rss[i] = first.rss;
        } finally {
          if (round !== 0) fs.rmSync(dir, { recursive: true, force: true });
        }
        existing[i]!.push((await timedStart(server, kept[i]!, start)).ms);
      }
    }
  } finally {
    for (const dir of kept) fs.rmSync(dir, { recursive: true, force: true });
  }
  const result = (i: number): ColdStart => ({ newDirMs: median(fresh[i]!), existingDirMs: median(existing[i]!), rssBytes: rss[i]! });
  return [result(0), result(1)];
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

/** The app's server and the reference, started the same way (see `benchColdStart`); `label` says how. */
export interface StartedAlike {
  start: Start;
  label: string;
  app: Server;
  reference: Server;
}

/**
 * When the server is built (`npm run build:server`), it starts as `npm run serve` starts it (plain node)
 * and the reference is built and started the same way, a new data directory of each from the build's
 * PGlite template; otherwise both start from their sources through tsx (and run initdb).
 */
export async function startedAlike(serverDir: string): Promise<StartedAlike> {
  const built = fs.existsSync(path.join(serverDir, BUILT_SERVER));
  const template = path.join(serverDir, path.dirname(BUILT_SERVER), PGLITE_TEMPLATE);
  const script = built ? BUILT_SERVER : 'src/server/server.ts';
  return {
    start: { tsx: !built, nodeArgs: [] },
    label: built ? `${script}, plain node` : `${script}, tsx`,
    app: { script, cwd: serverDir, env: { STATIC_DIR: '/nonexistent', LOG_LEVEL: 'warn' } },
    reference: {
      script: built ? await buildReference() : path.resolve('test/bench/coldReference.ts'),
      cwd: process.cwd(),
      env: { MIGRATIONS_DIR: path.join(serverDir, 'migrations'), ...(built && fs.existsSync(template) ? { PGLITE_TEMPLATE_FILE: template } : {}) },
    },
  };
}

/**
 * Cold start of the app's server against the minimal reference (coldReference.ts: Fastify + PGlite + the
 * same migrations), each on new data directories and on the one it left, turn about, medians of
 * BENCH_COLD_STARTS (3) starts of each kind, started alike (`startedAlike`).
 */
export async function benchColdStart(serverDir: string): Promise<{ app: ColdStart; reference: ColdStart; script: string; starts: number }> {
  const alike = await startedAlike(serverDir);
  const starts = Number(process.env.BENCH_COLD_STARTS ?? 3);
  const [app, reference] = await coldStarts([alike.app, alike.reference], alike.start, starts);
  return { app, reference, script: alike.label, starts };
}
