import type { Db } from '../../db/client';
import type { PlanFinding } from '../../../shared/api/planning';
import type { StackModel } from '../../../shared/stackModel';
import { TOOL_NAMES } from '../../agents/toolNames';
import { verifyPlans } from '../../agents/verifier/verifyPlan';
import { verifierFactsOf } from '../../agents/verifier/stackModelFacts';
import { readStackModel } from '../../agents/offline/documents';
import { modelWithOthersOnServer } from '../releases/othersOnServer';
import { projectPlace } from '../releases/projectPlace';
import { documentRedactor } from '../../sandbox/redactor';
import { sealSecrets } from '../../sandbox/sealedSecrets';
import type { UserSecrets } from '../userSecrets/userSecrets';
import { findingsOf, putFindings, type VerifiedPlan } from './planFindings';
import type { PlanningDocuments } from './planningDocuments';

/** Saves with verifier errors a model is asked to revise in one turn; then the person sees the findings. */
export const MAX_PLAN_REVISIONS = 2;
const SAVE_TOOL: Record<VerifiedPlan, string> = { architecture: TOOL_NAMES.architecture, implementation: TOOL_NAMES.implementation };

export interface PlanVerificationDeps {
  db: Db;
  documents: Pick<PlanningDocuments, 'get'>;
  secrets: Pick<UserSecrets, 'declaredNames' | 'sealableValues'>;
  /** The project's stack model now: what the last inspection of its server found is read from it. */
  stackModel(projectId: number): Promise<StackModel | undefined>;
}

/**
 * The plan verifier between a saving agent and the person: each saved plan is verified, its findings kept
 * beside it, and the agent reads back the errors to fix while its turn's revisions last.
 */
export function createPlanVerification(deps: PlanVerificationDeps) {
  const { db, documents, secrets } = deps;
  /** Saves with verifier errors in the running turn, by `projectId:plan` (a new turn starts again at 0). */
  const revisions = new Map<string, number>();

  function toolAnswer(projectId: number, plan: VerifiedPlan, findings: PlanFinding[]): string {
    const key = `${projectId}:${plan}`;
    const errors = findings.filter((f) => f.severity === 'error');
    const warnings = findings.length - errors.length;
    const saved = `Saved the ${plan} plan.`;
    if (!errors.length) {
      revisions.delete(key);
      return `${saved} The plan verifier found no error${warnings ? ` (${warnings} warning${warnings === 1 ? '' : 's'} shown with the plan)` : ''}.`;
    }
    const attempt = (revisions.get(key) ?? 0) + 1;
    revisions.set(key, attempt);
    const list = errors.map((f) => `- [${f.code}] ${f.where}: ${f.message}`).join('\n');
    if (attempt > MAX_PLAN_REVISIONS) {
      return `${saved} The plan verifier still finds ${errors.length} error(s) after ${MAX_PLAN_REVISIONS} revisions; they are shown with the plan and block its confirm:\n${list}\nDo not save again in this turn: tell the person which errors remain and what they can decide.`;
    }
    return `${saved} The plan verifier found ${errors.length} error(s), which block the plan's confirm:\n${list}\nFix every one and call ${SAVE_TOOL[plan]} again with the whole plan (revision ${attempt} of ${MAX_PLAN_REVISIONS}).`;
  }

  /**
   * Verifies a plan (the implementation with the saved architecture) and keeps its findings. The person's
   * words come from the stack model the plan carries (the offline planner's do), what the server runs from
   * the project's stack model now: the facts belong to the server, not to the plan, and an inspection made
   * after the plan was saved counts.
   */
  async function verifyAndPut(projectId: number, plan: VerifiedPlan, text: string): Promise<PlanFinding[]> {
    const architecture = plan === 'architecture' ? text : ((await documents.get(projectId, 'architecture'))?.content ?? '');
    const [names, current, place] = await Promise.all([secrets.declaredNames(projectId), deps.stackModel(projectId), projectPlace(db, projectId)]);
    const carried = readStackModel(text) ?? (plan === 'implementation' ? readStackModel(architecture) : undefined);
    const { intent } = verifierFactsOf(carried);
    // The project's own containers from an earlier deploy hold no port against its redeploy.
    const { target } = verifierFactsOf(current && modelWithOthersOnServer(current, place.project));
    const findings = await verifyPlans({
      architecture,
      ...(plan === 'implementation' ? { implementation: text } : {}),
      secrets: names,
      stackDirectory: place.dir,
      ...(intent ? { intent } : {}),
      ...(target ? { target } : {}),
    });
    const values = await secrets.sealableValues(projectId);
    await putFindings(db, projectId, plan, findings, (t) => sealSecrets(t, values));
    return findings;
  }

  return {
    /** A new turn of the plan's agent gets its own revisions. */
    startTurn(projectId: number, plan: VerifiedPlan): void {
      revisions.delete(`${projectId}:${plan}`);
    },

    /**
     * Verifies a plan being saved (the implementation with the saved architecture), keeps the findings beside
     * it, and answers what the saving agent reads back: the errors to fix while revisions remain.
     */
    async verifyAndKeep(projectId: number, plan: VerifiedPlan, text: string): Promise<string> {
      const findings = await verifyAndPut(projectId, plan, text);
      return toolAnswer(projectId, plan, findings);
    },

    /**
     * Verifies the saved plans again, as they are, after what is known of the server changed (an inspection
     * found its ports, or the target moved and its facts went): the findings shown and the confirm follow the
     * facts without the plan being saved again. Returns the plans it verified.
     */
    async recheck(projectId: number): Promise<VerifiedPlan[]> {
      const rechecked: VerifiedPlan[] = [];
      for (const plan of ['architecture', 'implementation'] as const) {
        const saved = await documents.get(projectId, plan);
        if (!saved?.content.trim()) continue;
        await verifyAndPut(projectId, plan, saved.content);
        rechecked.push(plan);
      }
      return rechecked;
    },

    /** A plan's findings as the person reads them (a secret quoted in one blanked). */
    async shownFindings(projectId: number, plan: VerifiedPlan): Promise<PlanFinding[] | undefined> {
      const findings = await findingsOf(db, projectId, plan);
      if (!findings) return undefined;
      const redact = documentRedactor(Object.values(await secrets.sealableValues(projectId)));
      return findings.map((f) => ({ severity: f.severity, code: f.code, message: redact(f.message), where: redact(f.where) }));
    },
  };
}

export type PlanVerification = ReturnType<typeof createPlanVerification>;
