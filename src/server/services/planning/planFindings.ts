import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { planningDocuments } from '../../db/schema';
import { conflict } from '../../errors';
import type { PlanFinding } from '../../../shared/api/planning';
import { blockingReason } from '../../../shared/planFindings';

/**
 * What the plan verifier found in each saved plan, kept beside the plan (a planning document of its own
 * kind, as JSON): the plan views show it, and the confirm of a plan with an error is refused.
 */

export type VerifiedPlan = 'architecture' | 'implementation';
const KIND: Record<VerifiedPlan, string> = { architecture: 'architecture_findings', implementation: 'implementation_findings' };

export async function putFindings(db: Db, projectId: number, plan: VerifiedPlan, findings: PlanFinding[], seal: (text: string) => string): Promise<void> {
  const content = seal(JSON.stringify(findings));
  await db
    .insert(planningDocuments)
    .values({ projectId, kind: KIND[plan], content })
    .onConflictDoUpdate({ target: [planningDocuments.projectId, planningDocuments.kind], set: { content, updatedAt: new Date() } });
}

/** The findings of the plan as last saved; undefined for a plan saved before the verifier ran. */
export async function findingsOf(db: Db, projectId: number, plan: VerifiedPlan): Promise<PlanFinding[] | undefined> {
  const [row] = await db
    .select({ content: planningDocuments.content })
    .from(planningDocuments)
    .where(and(eq(planningDocuments.projectId, projectId), eq(planningDocuments.kind, KIND[plan])));
  if (!row) return undefined;
  try {
    const parsed = JSON.parse(row.content) as unknown;
    return Array.isArray(parsed) ? (parsed as PlanFinding[]) : undefined;
  } catch {
    return undefined;
  }
}

/** The stages whose confirm is a plan's: completing one whose plan has an error answers 409 with the reason. */
export async function assertConfirmable(db: Db, projectId: number, stageId: string): Promise<void> {
  if (stageId !== 'architecture' && stageId !== 'implementation') return;
  const reason = blockingReason(await findingsOf(db, projectId, stageId));
  if (reason) throw conflict(reason);
}
