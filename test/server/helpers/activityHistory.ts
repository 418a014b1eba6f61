import { sql } from 'drizzle-orm';
import type { Database } from '../../../src/server/db/client';
import { backfillActivityDays } from './migrationFile';

/**
 * Three years of one installation's history (2023–2025), recorded before the per-day counts existed and
 * then counted by the migration's backfill: what the activity test and the bench's activity section read.
 */
export async function seedActivityHistory(database: Database, installationId: number, activities: number): Promise<void> {
  await database.db.execute(sql`
    insert into activities (installation_id, activity_type, created_at)
    select ${installationId}, 'DEPLOYMENT_COMPLETED', timestamptz '2023-01-01T00:00:00Z' + (i * interval '1 day' * 1095 / ${activities})
    from generate_series(0, ${activities - 1}) as i`);
  await backfillActivityDays(database);
}

const utcDay = sql`to_char(created_at at time zone 'UTC', 'YYYY-MM-DD')`;

/** What the grid would run without the counts: an aggregate over every activity of the installation in `year`. */
export async function aggregateGrid(database: Database, installationId: number, year: number): Promise<Array<{ day: string; count: number }>> {
  const result = (await database.db.execute(sql`select ${utcDay} as day, count(*) from activities where installation_id = ${installationId}
    and created_at >= ${`${year}-01-01T00:00:00Z`} and created_at < ${`${year + 1}-01-01T00:00:00Z`} group by 1`)) as unknown as { rows: Array<{ day: string; count: string | number }> };
  return result.rows.map((r) => ({ day: r.day, count: Number(r.count) }));
}

/** What the stats would run without the counts: a count and the distinct days over every activity. */
export async function aggregateStats(database: Database, installationId: number): Promise<void> {
  await database.db.execute(sql`select count(*) from activities where installation_id = ${installationId}`);
  await database.db.execute(sql`select distinct ${utcDay} as day from activities where installation_id = ${installationId} order by 1 desc`);
}
