import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { Database } from '../../../src/server/db/client';
import { MIGRATIONS_DIR } from './databaseTemplates';

/**
 * Runs the migration that counts, per installation and day, the activities recorded before
 * activity_days existed: what a database upgraded with history gets (the file is found by its name,
 * whatever number the migration has).
 */
export async function backfillActivityDays(database: Database): Promise<void> {
  const file = fs.readdirSync(MIGRATIONS_DIR).find((f) => f.endsWith('_activity_days_backfill.sql'));
  if (!file) throw new Error(`no *_activity_days_backfill.sql in ${MIGRATIONS_DIR}`);
  await database.db.execute(sql.raw(fs.readFileSync(path.join(MIGRATIONS_DIR, file), 'utf8')));
}
