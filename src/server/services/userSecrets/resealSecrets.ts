import { and, eq, ne } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { executionPlans, executionSteps, planningDocuments, validationPlans, validationSteps } from '../../db/schema';
import { sealSecrets } from '../../sandbox/sealedSecrets';

/**
 * Seals a project's stored plans and step commands (and their earlier and proposed versions) again with its secret values as they are now. A
 * value typed into a plan before it was saved as a User Secret was stored in clear; once it is a
 * secret, it is replaced by its reference here (sealedSecrets.ts). Rows that do not change are not
 * written. Answers how many rows changed.
 */
export async function resealProject(db: Db, projectId: number, values: Readonly<Record<string, string>>): Promise<number> {
  if (!Object.keys(values).length) return 0;
  return db.transaction(async (tx) => {
    let changed = 0;
    const documents = await tx
      .select({ kind: planningDocuments.kind, content: planningDocuments.content })
      .from(planningDocuments)
      .where(and(eq(planningDocuments.projectId, projectId), ne(planningDocuments.kind, 'analysis')));
    for (const doc of documents) {
      const sealed = sealSecrets(doc.content, values);
      if (sealed === doc.content) continue;
      await tx.update(planningDocuments).set({ content: sealed }).where(and(eq(planningDocuments.projectId, projectId), eq(planningDocuments.kind, doc.kind)));
      changed += 1;
    }
    for (const [plans, steps] of [
      [executionPlans, executionSteps],
      [validationPlans, validationSteps],
    ] as const) {
      const rows = await tx
        .select({ planId: steps.planId, stepNumber: steps.stepNumber, command: steps.command, previousCommand: steps.previousCommand, proposal: steps.proposal })
        .from(steps)
        .innerJoin(plans, eq(plans.id, steps.planId))
        .where(eq(plans.projectId, projectId));
      for (const row of rows) {
        // The command, the one a revision replaced, and a proposed change not saved yet: all run or may run.
        const command = row.command === null ? null : sealSecrets(row.command, values);
        const previousCommand = row.previousCommand === null ? null : sealSecrets(row.previousCommand, values);
        const proposalCommand = row.proposal?.command == null ? null : sealSecrets(row.proposal.command, values);
        if (command === row.command && previousCommand === row.previousCommand && proposalCommand === (row.proposal?.command ?? null)) continue;
        await tx
          .update(steps)
          .set({ command, previousCommand, ...(row.proposal ? { proposal: { ...row.proposal, command: proposalCommand } } : {}) })
          .where(and(eq(steps.planId, row.planId), eq(steps.stepNumber, row.stepNumber)));
        changed += 1;
      }
    }
    return changed;
  });
}
