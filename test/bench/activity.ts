import { performance } from 'node:perf_hooks';
import { eq } from 'drizzle-orm';
import type { Database } from '../../src/server/db/client';
import { installations } from '../../src/server/db/schema';
import { createActivityService } from '../../src/server/services/activity/activityService';
import { aggregateGrid, aggregateStats, seedActivityHistory } from '../server/helpers/activityHistory';
import { addRow } from './summary';

const ACTIVITIES = 100_000;
const YEAR = 2025;
/** The counts read a row per day, the aggregate every activity: at least this many times faster. */
const SPEED_UP_BUDGET = 3;

/**
 * The fastest of `runs` calls of each of `fns`, in ms, taken in turns (after one warm-up call each): on a
 * shared machine the minimum is the estimate least moved by other work, and turns expose both to the same load.
 */
async function fastestMs(runs: number, fns: Array<() => Promise<unknown>>): Promise<number[]> {
  const best = fns.map(() => Infinity);
  for (const fn of fns) await fn();
  for (let i = 0; i < runs; i += 1) {
    for (const [k, fn] of fns.entries()) {
      const start = performance.now();
      await fn();
      best[k] = Math.min(best[k]!, performance.now() - start);
    }
  }
  return best;
}

/**
 * ARCHITECTURE.md: heavy reads never stall polls. The activity grid and stats read the per-day counts
 * kept up on write; measured against the aggregate over every activity they would otherwise run, on the
 * same database in the same run, at three years of history counted by the migration's backfill.
 */
export async function benchActivity(database: Database, installationPublicId: number): Promise<void> {
  const [row] = await database.db.select({ id: installations.id }).from(installations).where(eq(installations.publicId, installationPublicId));
  const installationId = row!.id;
  await seedActivityHistory(database, installationId, ACTIVITIES);
  const activity = createActivityService({ db: database.db });
  const [grid, gridAggregate, stats, statsAggregate] = (await fastestMs(7, [
    () => activity.grid(installationId, YEAR),
    () => aggregateGrid(database, installationId, YEAR),
    () => activity.stats(installationId),
    () => aggregateStats(database, installationId),
  ])) as [number, number, number, number];
  console.log(`Activity at ${ACTIVITIES.toLocaleString('en')} activities (${database.kind}): grid ${grid.toFixed(2)} ms (aggregate ${gridAggregate.toFixed(1)} ms), stats ${stats.toFixed(2)} ms (aggregate ${statsAggregate.toFixed(1)} ms)\n`);
  for (const [name, counts, aggregate] of [['grid', grid, gridAggregate], ['stats', stats, statsAggregate]] as const) {
    addRow({
      measure: `activity ${name} at ${ACTIVITIES / 1000}k activities (${database.kind})`,
      project: `${counts.toFixed(2)} ms`,
      reference: `${aggregate.toFixed(1)} ms (aggregate)`,
      ratio: counts / aggregate,
      budget: `≤ 1/${SPEED_UP_BUDGET}`,
      met: counts * SPEED_UP_BUDGET < aggregate,
    });
  }
}
