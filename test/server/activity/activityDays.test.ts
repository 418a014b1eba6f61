import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { createActivityService } from '../../../src/server/services/activity/activityService';
import { backfillActivityDays } from '../helpers/migrationFile';
import { aggregateGrid, seedActivityHistory } from '../helpers/activityHistory';
import { buildTestApp, installationRowId, signIn } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const ACTIVITIES = 100_000;
const YEAR = 2025;

/**
 * ARCHITECTURE.md: heavy reads never stall polls. The activity grid and stats read the per-day counts
 * kept up on write, not every activity. How much faster that is is a timing: `npm run bench` (activity
 * section) measures it against the aggregate; here, the same answers, read from the counts.
 */
describe.each(databaseKinds())('activity per-day counts (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let installationId: number;

  beforeAll(async () => {
    database = await openTestDatabase(kind);
    app = await buildTestApp(database);
    installationId = await installationRowId(database, await signIn(app, 'alice'));
  }, 120_000);
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  it('counts an activity in its day in the same transaction: a rolled-back cause leaves no count', async () => {
    const activity = createActivityService({ db: database.db });
    const today = new Date().toISOString().slice(0, 10);
    const todayCount = async (): Promise<number> => (await activity.grid(installationId, new Date().getUTCFullYear())).find((d) => d.date === today)!.count;
    const before = await todayCount();
    await activity.record({ installationId, activityType: 'DEPLOYMENT_COMPLETED' });
    await activity.record({ installationId, activityType: 'DEPLOYMENT_FAILED' });
    expect(await todayCount()).toBe(before + 2);
    await expect(
      database.db.transaction(async (tx) => {
        await activity.record({ installationId, activityType: 'DEPLOYMENT_COMPLETED' }, tx);
        throw new Error('the cause failed');
      }),
    ).rejects.toThrow('the cause failed');
    expect(await todayCount()).toBe(before + 2);
    expect((await activity.stats(installationId)).total_activities).toBe(before + 2);
  });

  it('counts a streak longer than a page of days', async () => {
    const bob = await installationRowId(database, await signIn(app, 'bob'));
    await database.db.execute(sql`
      insert into activities (installation_id, activity_type, created_at)
      select ${bob}, 'DEPLOYMENT_COMPLETED', now() - i * interval '1 day' from generate_series(0, 99) as i`);
    await backfillActivityDays(database);
    expect(await createActivityService({ db: database.db }).stats(bob)).toEqual({ total_activities: 100, current_streak: 100 });
  });

  it(`answers the grid and stats at ${ACTIVITIES.toLocaleString('en')} activities from the counts, not by aggregating the activities`, async () => {
    await seedActivityHistory(database, installationId, ACTIVITIES);
    const activity = createActivityService({ db: database.db });

    // The same answers as the aggregate over every activity of the installation.
    const grid = await activity.grid(installationId, YEAR);
    const aggregated = await aggregateGrid(database, installationId, YEAR);
    expect(grid.filter((d) => d.count > 0).map((d) => [d.date, d.count])).toEqual(aggregated.map((r) => [r.day, r.count]).sort());
    const stats = await activity.stats(installationId);
    expect(stats.total_activities).toBeGreaterThanOrEqual(ACTIVITIES);

    // Read from the counts: with the activities themselves gone (no cause writes, so no count changes),
    // the grid and stats answer exactly as before.
    await database.db.execute(sql`delete from activities where installation_id = ${installationId}`);
    expect(await activity.grid(installationId, YEAR)).toEqual(grid);
    expect(await activity.stats(installationId)).toEqual(stats);
  }, 300_000);
});
