import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import type { PGlite, PGliteOptions } from '@electric-sql/pglite';

/**
 * How this server runs PGlite, for memory: measured on an existing data directory, a bare PGlite held
 * 311 MB of RSS at rest with PGlite's defaults and 118 MB with these (issue 29; README, "Memory").
 */

/**
 * PostgreSQL's shared buffers. PGlite's shared memory lives in its WASM heap, whose allocator zeroes what
 * it hands out, so every byte of shared_buffers is resident from the first query: PostgreSQL's default
 * (128 MB) was about 150 MB of RSS. The tables are small and the operating system's page cache holds
 * the data files anyway; a hot poll reads no table at all (ARCHITECTURE.md).
 */
const SHARED_BUFFERS = '16MB';

/**
 * PGlite's WASM compiled by V8's baseline compiler (Liftoff) only. With tiering, V8 also compiled hot
 * PostgreSQL functions with TurboFan in the background: about 55 MB more of code and compiler memory
 * kept, and on a busy two-core machine the background compiles slowed queries down instead of up
 * (2,000 queries: 3.9–4.8 s tiered, 1.8–2.0 s Liftoff only; the open 1.2–1.4 s against 0.6–0.8 s).
 * A V8 flag, process-wide: read when a WASM module is compiled, so it is set before PGlite's is.
 */
function baselineWasmOnly(): void {
  v8.setFlagsFromString('--liftoff-only');
}

/** PGlite's options: its own start parameters and initdb's, with this server's shared buffers. */
export function pgliteOptions(PGliteClass: typeof PGlite): Pick<PGliteOptions, 'startParams' | 'initDbStartParams'> {
  const settings = ['-c', `shared_buffers=${SHARED_BUFFERS}`];
  // initdb writes the setting into the new cluster's postgresql.conf too; the start parameter holds it
  // for a data directory an older version made with the default.
  return { startParams: [...PGliteClass.defaultStartParams, ...settings], initDbStartParams: settings };
}

/** PGlite's constructor, loaded only when the server runs on PGlite (with DATABASE_URL it is never loaded). */
export async function loadPglite(): Promise<typeof PGlite> {
  baselineWasmOnly();
  return (await import('@electric-sql/pglite')).PGlite;
}

/**
 * The file `npm run build:server` writes beside the bundle: a migrated PGlite data directory, dumped.
 * A first start loads it rather than running initdb, which starts a second PostgreSQL in the process
 * and copies its whole heap to reset it between initdb's steps: a first start peaked at 780–880 MB of
 * RSS, and about 330 MB from the template.
 */
export const PGLITE_TEMPLATE = 'pglite-template.tar.gz';

/** The template beside the running bundle (`dist/server`), if there is one (none when run from source). */
export function builtPgliteTemplate(): string | undefined {
  const file = process.argv[1] ? path.join(path.dirname(path.resolve(process.argv[1])), PGLITE_TEMPLATE) : undefined;
  return file && fs.existsSync(file) ? file : undefined;
}

/** Whether `directory` already holds a PostgreSQL cluster (PGlite resumes it; a template must not be loaded over it). */
export function holdsCluster(directory: string): boolean {
  return fs.existsSync(path.join(directory, 'PG_VERSION'));
}
