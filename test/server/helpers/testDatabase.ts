import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { openDatabase, pgliteDatabase, pgliteDirectory, type Database } from '../../../src/server/db/client';
import { MIGRATIONS_DIR, pgliteTemplate, postgresTemplate, untilDisconnected } from './databaseTemplates';

export type DatabaseKind = 'pglite' | 'postgres';

/**
 * The databases the server's tests run on: PGlite always, PostgreSQL too when TEST_DATABASE_URL
 * is set (CI sets it). Use with `describe.each(databaseKinds())`.
 */
export function databaseKinds(): DatabaseKind[] {
  return process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
}

export interface TestDatabase extends Database {
  /** Drops what the test created (the whole PostgreSQL database). */
  destroy(): Promise<void>;
  /** The PostgreSQL database's URL, for a server process of its own; absent for PGlite. */
  url?: string;
}

/**
 * A fresh, migrated database started from the migrated template (databaseTemplates.ts): PGlite in
 * memory (or in `dataDir`, laid out as the server lays out DATA_DIR), or a new PostgreSQL database
 * dropped afterwards.
 */
export async function openTestDatabase(kind: DatabaseKind, dataDir?: string): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const loadDataDir = await pgliteTemplate();
    const client = await PGlite.create({ dataDir: dataDir && pgliteDirectory(dataDir), loadDataDir });
    const database = await pgliteDatabase(client, MIGRATIONS_DIR);
    return { ...database, destroy: () => database.close() };
  }
  const created = await createPostgresTestDatabase();
  const database = await openDatabase({ url: created.url, migrationsDir: MIGRATIONS_DIR });
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    await database.close();
  };
  return {
    ...database,
    url: created.url,
    close,
    destroy: async () => {
      await close();
      await created.drop();
    },
  };
}

/**
 * A new, migrated PostgreSQL database on TEST_DATABASE_URL's server (cloned from the migrated template),
 * for a test that hands its URL to server processes; `drop` removes it once every connection has gone.
 */
export async function createPostgresTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `da_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name} template ${await postgresTemplate(admin, adminUrl)}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const drop = new pg.Client({ connectionString: adminUrl });
      await drop.connect();
      // pool.end() resolves once it has asked its clients to close, not once they have: a forced drop
      // would then kill a closing client, whose FATAL surfaces as an unhandled error in the test run.
      await untilDisconnected(drop, name);
      await drop.query(`drop database if exists ${name} with (force)`);
      await drop.end();
    },
  };
}
