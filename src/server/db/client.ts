import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { closeModes } from '../dataDir';
import { holdsCluster, loadPglite, pgliteOptions } from './pglite';
import * as schema from './schema';

export type Schema = typeof schema;
/** The Drizzle database, whichever driver is under it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** An open Drizzle transaction (the argument of `db.transaction`'s callback). */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Resolves when the database answers a trivial query within `timeoutMs` (default PING_TIMEOUT_MS); rejects otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent, PGlite is used. */
  url?: string;
  /** PGlite data directory; undefined means in-memory (tests). */
  dataDir?: string;
  /** A dumped PGlite data directory (`PGLITE_TEMPLATE`) that a data directory with no cluster yet starts from, instead of initdb. */
  pgliteTemplate?: string;
  migrationsDir: string;
  /** Told about an idle PostgreSQL connection that broke (the server logs it); the pool carries on. */
  onIdleError?: (err: Error) => void;
}

/** How long readiness waits for the database: a frozen or restarting server answers "not ready" within a second. */
export const PING_TIMEOUT_MS = 800;

/** `work`, or a rejection once `ms` have passed (the work itself is left to finish or fail on its own). */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`The database did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Opens the database and applies the committed migrations (PGlite by default, node-postgres when a
 * URL is given). Both drivers share one schema and one migration folder.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const migrationsFolder = options.migrationsDir;
  if (options.url) {
    // A connection that cannot be made in 5 s fails the request (503) instead of hanging it.
    const pool = new pg.Pool({ connectionString: options.url, max: 10, connectionTimeoutMillis: 5_000 });
    // An idle client whose server went away (a restart, a failover) emits 'error' on the pool; unheard,
    // it would end the process. The pool has already dropped that client and connects anew on the next
    // query, so the server rides out the outage: requests meanwhile fail with 503.
    pool.on('error', (err) => options.onIdleError?.(err));
    const db = drizzlePg(pool, { schema });
    await migratePg(db, { migrationsFolder });
    return {
      db: db as unknown as Db,
      kind: 'postgres',
      ping: async (timeoutMs = PING_TIMEOUT_MS) => void (await withTimeout(pool.query('select 1'), timeoutMs)),
      close: () => pool.end(),
    };
  }
  const PGliteClass = await loadPglite();
  const directory = options.dataDir ? pgliteDirectory(options.dataDir) : undefined;
  const template = directory && options.pgliteTemplate && !holdsCluster(directory) ? new Blob([fs.readFileSync(options.pgliteTemplate)]) : undefined;
  const database = await pgliteDatabase(await PGliteClass.create(directory, { ...pgliteOptions(PGliteClass), loadDataDir: template }), migrationsFolder);
  // A template unpacks with the modes its archive recorded (0644), past the umask: private from the first start too.
  if (directory) closeModes(directory);
  return database;
}

/** Writes `file`: a new PGlite with the committed migrations applied, its data directory dumped (gzip), for `pgliteTemplate`. */
export async function writePgliteTemplate(file: string, migrationsFolder: string): Promise<void> {
  const PGliteClass = await loadPglite();
  const client = await PGliteClass.create(undefined, pgliteOptions(PGliteClass));
  try {
    await pgliteDatabase(client, migrationsFolder);
    const dump = await client.dumpDataDir('gzip');
    fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
  } finally {
    await client.close();
  }
}

/** PGlite's own directory inside DATA_DIR, made when missing. */
export function pgliteDirectory(dataDir: string): string {
  const directory = path.join(dataDir, 'pglite');
  fs.mkdirSync(directory, { recursive: true });
  return directory;
}

/**
 * The Drizzle database over an open PGlite, with the committed migrations applied (those already in
 * its data directory are skipped, so a PGlite started from a migrated data directory opens at once).
 */
export async function pgliteDatabase(client: PGlite, migrationsFolder: string): Promise<Database> {
  const db = drizzlePglite(client, { schema });
  await migratePglite(db, { migrationsFolder });
  return {
    db: db as unknown as Db,
    kind: 'pglite',
    ping: async (timeoutMs = PING_TIMEOUT_MS) => void (await withTimeout(db.execute(sql`select 1`), timeoutMs)),
    close: () => client.close(),
  };
}
