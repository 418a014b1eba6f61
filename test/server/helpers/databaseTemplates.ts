import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { openDatabase, pgliteDatabase } from '../../../src/server/db/client';

/**
 * Migrated templates, so that a test's database starts migrated (ARCHITECTURE.md): a fresh PGlite runs
 * initdb (seconds of CPU, far more on a loaded machine) and then every migration, while one started
 * from a dumped data directory opens in a fraction of that; PostgreSQL clones a template database.
 * Templates are named by a hash of the migrations, so a changed migration makes a new template.
 */
export const MIGRATIONS_DIR = 'migrations';

function migrationsHash(): string {
  const hash = createHash('sha256');
  const files = fs.readdirSync(MIGRATIONS_DIR, { recursive: true, encoding: 'utf8' }).sort();
  for (const file of files) {
    const full = path.join(MIGRATIONS_DIR, file);
    if (fs.statSync(full).isFile()) hash.update(file).update('\0').update(fs.readFileSync(full)).update('\0');
  }
  const pglitePackage = JSON.parse(fs.readFileSync('node_modules/@electric-sql/pglite/package.json', 'utf8')) as { version: string };
  return hash.update(pglitePackage.version).digest('hex').slice(0, 16);
}

let pgliteDump: Promise<Blob> | null = null;

/**
 * The data directory of a migrated PGlite, dumped once into the temporary directory and shared by
 * every test file and every run beside this one (written under a unique name, then renamed into place,
 * so a reader never sees half a file).
 */
export function pgliteTemplate(): Promise<Blob> {
  pgliteDump ??= (async () => {
    const file = path.join(os.tmpdir(), `devops-agents-pglite-${migrationsHash()}.tar`);
    if (fs.existsSync(file)) return new Blob([fs.readFileSync(file)]);
    const client = await PGlite.create();
    await pgliteDatabase(client, MIGRATIONS_DIR);
    const dump = await client.dumpDataDir('none');
    await client.close();
    const partial = `${file}.${randomBytes(6).toString('hex')}`;
    fs.writeFileSync(partial, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(partial, file);
    return dump;
  })();
  pgliteDump.catch(() => {
    pgliteDump = null;
  });
  return pgliteDump;
}

/** Waits until no session is connected to a PostgreSQL database (pool.end() does not wait for that). */
export async function untilDisconnected(admin: pg.Client, name: string): Promise<void> {
  for (;;) {
    const { rows } = await admin.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = $1', [name]);
    if (rows[0].n === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The name of a migrated PostgreSQL template database on the server of `adminUrl`, made when missing:
 * migrated under a unique name, then renamed, so concurrent runs never clone a half-migrated one.
 */
export async function postgresTemplate(admin: pg.Client, adminUrl: string): Promise<string> {
  const name = `da_template_${migrationsHash()}`;
  const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
  if (exists.rowCount) return name;
  const building = `da_template_build_${randomBytes(6).toString('hex')}`;
  await admin.query(`create database ${building}`);
  const url = new URL(adminUrl);
  url.pathname = `/${building}`;
  const database = await openDatabase({ url: url.toString(), migrationsDir: MIGRATIONS_DIR });
  await database.close();
  await untilDisconnected(admin, building);
  try {
    await admin.query(`alter database ${building} rename to ${name}`);
  } catch (error) {
    // Another run made it first (42P04 duplicate_database): use theirs.
    if ((error as { code?: string }).code !== '42P04') throw error;
    await admin.query(`drop database if exists ${building} with (force)`);
  }
  return name;
}
