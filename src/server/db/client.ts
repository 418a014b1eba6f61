import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import * as schema from './schema';

export type Schema = typeof schema;
/** The Drizzle database, whichever driver is under it. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
/** An open Drizzle transaction (the argument of `db.transaction`'s callback). */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** postgres:// URL; when absent, PGlite is used. */
  url?: string;
  /** PGlite data directory; undefined means in-memory (tests). */
  dataDir?: string;
  migrationsDir: string;
}

/**
 * Opens the database and applies the committed migrations (PGlite by default, node-postgres when a
 * URL is given). Both drivers share one schema and one migration folder.
 */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const migrationsFolder = options.migrationsDir;
  if (options.url) {
    const pool = new pg.Pool({ connectionString: options.url, max: 10 });
    const db = drizzlePg(pool, { schema });
    await migratePg(db, { migrationsFolder });
    return {
      db: db as unknown as Db,
      kind: 'postgres',
      ping: async () => void (await pool.query('select 1')),
      close: () => pool.end(),
    };
  }
  return pgliteDatabase(await PGlite.create(options.dataDir ? pgliteDirectory(options.dataDir) : undefined), migrationsFolder);
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
    ping: async () => void (await db.execute(sql`select 1`)),
    close: () => client.close(),
  };
}
