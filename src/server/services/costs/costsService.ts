import { asc, count, desc, eq, max, sql, sum } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { tokenUsage } from '../../db/schema';
import type { TokenUsageResponse } from '../../../shared/api/costs';
import type { EventBus } from '../events/eventBus';
import { createVersionedSnapshots, sharedOn, type SnapshotSource } from '../snapshots/versionedSnapshots';

/** How many of the latest model calls the costs page lists one by one. */
export const TURNS_SHOWN = 50;

export interface ProjectCosts {
  total_cost: string;
  last_updated: string | null;
}

/**
 * What a project has cost so far: the sum of its priced model calls. The cost poll
 * (`GET /api/projects/{id}/costs`, every 10 s in the workspace) is answered from a snapshot per project,
 * which the meter drops after each call it records (`invalidate`).
 */
export function createCostsService({ db, events }: { db: Db; events?: EventBus<unknown> }) {
  async function projectCosts(projectId: number): Promise<ProjectCosts> {
    const [row] = await db
      .select({ total: sum(tokenUsage.cost), last: max(tokenUsage.createdAt) })
      .from(tokenUsage)
      .where(eq(tokenUsage.projectId, projectId));
    return {
      total_cost: Number(row?.total ?? 0).toFixed(8),
      last_updated: row?.last ? new Date(row.last).toISOString() : null,
    };
  }

  const snapshots = createVersionedSnapshots<number, ProjectCosts>({ load: projectCosts, ...sharedOn(events, 'snapshots.costs') });

  return {
    projectCosts,

    /** The cost poll's snapshots by project, from memory until the project's next metered call. */
    snapshots: { get: snapshots.get, peek: snapshots.peek } satisfies SnapshotSource<number, ProjectCosts>,

    /** A model call of the project was recorded (after its commit): the next poll reads the sum again. */
    invalidate(projectId: number): void {
      snapshots.invalidate(projectId);
    },

    /**
     * The same sum as `projectCosts`, with the breakdown by agent and model and the latest calls one by one. The lines add up to the
     * total exactly in the database; as JSON numbers they are rounded to 8 decimals.
     */
    async tokenUsage(projectId: number): Promise<TokenUsageResponse> {
      const rows = await db
        .select({
          agent: tokenUsage.agent,
          model: tokenUsage.model,
          input: sql<string>`coalesce(sum(${tokenUsage.inputTokens}), 0)`,
          output: sql<string>`coalesce(sum(${tokenUsage.outputTokens}), 0)`,
          cost: sum(tokenUsage.cost),
        })
        .from(tokenUsage)
        .where(eq(tokenUsage.projectId, projectId))
        .groupBy(tokenUsage.agent, tokenUsage.model)
        .orderBy(asc(tokenUsage.agent), asc(tokenUsage.model));
      const days = await db
        .select({
          date: sql<string>`to_char(date_trunc('day', ${tokenUsage.createdAt} at time zone 'UTC'), 'YYYY-MM-DD')`,
          cost: sum(tokenUsage.cost),
        })
        .from(tokenUsage)
        .where(eq(tokenUsage.projectId, projectId))
        .groupBy(sql`1`)
        .orderBy(sql`1`);
      const turns = await db
        .select()
        .from(tokenUsage)
        .where(eq(tokenUsage.projectId, projectId))
        .orderBy(desc(tokenUsage.createdAt), desc(tokenUsage.id))
        .limit(TURNS_SHOWN);
      const [counted] = await db.select({ n: count() }).from(tokenUsage).where(eq(tokenUsage.projectId, projectId));
      const { total_cost } = await projectCosts(projectId);
      return {
        turns: turns.map((t) => ({
          at: new Date(t.createdAt).toISOString(),
          agent: t.agent,
          model: t.model,
          input_tokens: t.inputTokens,
          output_tokens: t.outputTokens,
          cost: Number(t.cost),
        })),
        turn_count: counted?.n ?? 0,
        total_cost: Number(total_cost),
        daily: days.map((day) => ({ date: day.date, cost: Number(day.cost ?? 0) })),
        breakdown: rows.map((row) => ({
          agent: row.agent,
          model: row.model,
          input_tokens: Number(row.input),
          output_tokens: Number(row.output),
          cost: Number(row.cost ?? 0),
        })),
      };
    },
  };
}

export type CostsService = ReturnType<typeof createCostsService>;
