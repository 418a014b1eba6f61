import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Database } from '../../../src/server/db/client';
import { MIGRATIONS_DIR } from './databaseTemplates';

/**
 * Runs one hand-written data migration again on a database that already has rows: what a database
 * upgraded with history gets. The file is found by its name, whatever number the migration has
 * (`runMigrationFile(database, 'activity_days_backfill')` runs `NNNN_activity_days_backfill.sql`).
 */
export async function runMigrationFile(database: Database, name: string): Promise<void> {
  const file = fs.readdirSync(MIGRATIONS_DIR).find((f) => f.endsWith(`_${name}.sql`));
  if (!file) throw new Error(`no *_${name}.sql in ${MIGRATIONS_DIR}`);
  await database.db.execute(sql.raw(fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8')));
}

/** The migration that counts, per installation and day, the activities recorded before activity_days existed. */
export const backfillActivityDays = (database: Database): Promise<void> => runMigrationFile(database, 'activity_days_backfill');
