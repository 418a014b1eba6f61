import type { Db } from '../../../src/server/db/client';
import { executionPlans, executionSteps, validationPlans, validationSteps } from '../../../src/server/db/schema';

const TABLES = {
  execution: { plans: executionPlans, steps: executionSteps },
  validation: { plans: validationPlans, steps: validationSteps },
} as const;

/**
 * Writes a project's execution or validation record straight to the database: one plan and a step per
 * status (numbered from 1), finished now when completed or failed. For tests of what the server decides
 * from its own record, without running the steps.
 */
export async function recordSteps(db: Db, stage: keyof typeof TABLES, projectId: number, statuses: string[], finishedAt = new Date()): Promise<void> {
  const { plans, steps } = TABLES[stage];
  const [plan] = await db.insert(plans).values({ projectId }).returning({ id: plans.id });
  await db.insert(steps).values(
    statuses.map((status, i) => ({
      planId: plan!.id,
      stepNumber: i + 1,
      description: `${stage} step ${i + 1}`,
      command: 'true',
      status,
      ...(status === 'completed' || status === 'failed' ? { startedAt: finishedAt, finishedAt } : {}),
    })),
  );
}
