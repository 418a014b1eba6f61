import { eq, max, sum } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { tokenUsage } from '../../db/schema';

export interface ProjectCosts {
  total_cost: string;
  last_updated: string | null;
}

/** What a project has cost so far: the sum of its priced model calls. */
export function createCostsService({ db }: { db: Db }) {
  return {
    async projectCosts(projectId: number): Promise<ProjectCosts> {
      const [row] = await db
        .select({ total: sum(tokenUsage.cost), last: max(tokenUsage.createdAt) })
        .from(tokenUsage)
        .where(eq(tokenUsage.projectId, projectId));
      return {
        total_cost: Number(row?.total ?? 0).toFixed(8),
        last_updated: row?.last ? new Date(row.last).toISOString() : null,
      };
    },
  };
}

export type CostsService = ReturnType<typeof createCostsService>;
