import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { planningDocuments, validationPlans, validationSteps } from '../../db/schema';
import { badRequest, conflict } from '../../errors';
import { documentRedactor } from '../../sandbox/redactor';
import { sealSecrets } from '../../sandbox/sealedSecrets';
import type { StatusResponse } from '../../../shared/api/common';
import type { CancelStepBody, Step } from '../../../shared/api/execution';
import type { TerminalStreamEvent } from '../../../shared/api/terminal';
import type { ValidationApproveStepBody, ValidationApproveStepResponse, ValidationPlanResponse, ValidationProgress } from '../../../shared/api/validation';
import { RECORDED_ACTIVITY_TYPES } from '../../../shared/constants/activity';
import type { ActivityService } from '../activity/activityService';
import type { EventBus } from '../events/eventBus';
import { createStepActivityRecorder } from '../execution/executionService';
import { parsePlanSteps, type PlannedStep } from '../../../shared/planSteps';
import { loadProjectServers } from '../devopsHelper/projectServers';
import { READBACK_TITLE, readbackCommand } from '../serverReadback/readbackCommand';
import { createStepRuns, type ProgressState, type StepProject, type StepRunsDeps, type StepSandbox, type StepSecrets } from '../steps/stepRuns';

export interface ValidationDeps {
  db: Db;
  sandbox: StepSandbox;
  secrets: StepSecrets;
  commands: EventBus<TerminalStreamEvent>;
  /** The app's event bus (progress snapshots across replicas). */
  events?: EventBus<unknown>;
  /** Records VALIDATION_COMPLETED when every step is completed (once per transition), VALIDATION_FAILED when one fails. */
  activity: Pick<ActivityService, 'record'>;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  stepTimeoutMs?: number;
  /** After a check's result is stored (backups: a restore drill's run is recorded from its output). */
  afterStepStored?: StepRunsDeps['afterStepStored'];
}

export const NO_VALIDATION_PLAN = 'There is no validation plan yet: ask the validation agent to create one first.';
export const NO_VALIDATION_STEPS = 'The validation plan has no "## Step N" sections to run.';
export const NO_VALIDATION_RUN = 'Validation has not started yet: trigger it first.';
export const STALE_VALIDATION_RUN = 'The validation run has changed: reload the progress and try again.';

/** The kind of the validation agent's plan among the planning documents. */
const PLAN_KIND = 'validation';

const progressOf = (state: ProgressState): ValidationProgress => ({ steps: state.steps });

/**
 * The validation stage: the validation agent writes a plan of read-only checks of what execution built
 * (`savePlan`, its tool); the trigger turns it into steps that wait for approval; approved steps run in
 * the project's sandbox through the step runner shared with execution (services/steps/stepRuns.ts),
 * which answers the 3-second progress poll from memory with a weak ETag.
 */
export function createValidationService(deps: ValidationDeps) {
  const { db } = deps;
  const runs = createStepRuns({
    db,
    tables: { plans: validationPlans, steps: validationSteps },
    sandbox: deps.sandbox,
    secrets: deps.secrets,
    commands: deps.commands,
    ...(deps.events ? { events: deps.events } : {}),
    log: deps.log,
    ...(deps.stepTimeoutMs ? { stepTimeoutMs: deps.stepTimeoutMs } : {}),
    serialize: (state) => JSON.stringify(progressOf(state)),
    onStepEnded: createStepActivityRecorder(deps.activity, validationSteps, {
      completed: RECORDED_ACTIVITY_TYPES.validationCompleted,
      failed: RECORDED_ACTIVITY_TYPES.validationFailed,
    }),
    stage: 'validation',
    ...(deps.afterStepStored ? { afterStepStored: deps.afterStepStored } : {}),
  });
  /** Projects whose validation agent is writing (`planning`), or whose last turn failed with no plan. */
  const planning = new Set<number>();
  const failed = new Set<number>();

  async function planDocument(projectId: number): Promise<string | null> {
    const [row] = await db
      .select({ content: planningDocuments.content })
      .from(planningDocuments)
      .where(and(eq(planningDocuments.projectId, projectId), eq(planningDocuments.kind, PLAN_KIND)));
    return row?.content ?? null;
  }

  async function requirePlan(projectId: number): Promise<number> {
    const plan = await runs.planOf(projectId);
    if (!plan) throw conflict(NO_VALIDATION_RUN);
    return plan.id;
  }

  /**
   * The read-back checks the server adds after the plan's own, whoever wrote it: one per server the steps'
   * SSH configuration names, read-only, approved like every check. Their output is what the documentation
   * says about the server (services/documentation/serverSections.ts). None when the sandbox cannot say.
   */
  async function readbackSteps(project: StepProject, after: number): Promise<PlannedStep[]> {
    const { servers } = await loadProjectServers((command) => deps.sandbox.exec({ id: project.projectId, installationId: project.installationId }, command, { timeoutMs: 10_000 }));
    return servers.slice(0, 3).map((server, i) => ({
      stepNumber: after + i + 1,
      description: `${READBACK_TITLE}: ${server.name}`,
      prompt: `Read, without changing anything, what ${server.name} (${server.host}) has and runs after the deploy: its system, Docker and Compose versions, CPUs, memory and disk, sshd's settings, firewall, listening ports and TLS certificates, and the compose files and mounted files of every compose project. The documentation states only what this read finds or a step did.`,
      command: readbackCommand(server.name),
    }));
  }

  return {
    /** GET /api/validation/plan: `none`, `planning` while the agent writes, `ready` with the markdown, or `failed`. */
    async plan(projectId: number): Promise<ValidationPlanResponse> {
      const stored = await planDocument(projectId);
      // As the person (and the agent) read it: a secret in it, sealed or not, blanked.
      const plan = stored === null ? null : documentRedactor(Object.values(await deps.secrets.hiddenValues(projectId)))(stored);
      if (planning.has(projectId)) return { status: 'planning', plan };
      if (plan !== null) return { status: 'ready', plan };
      return { status: failed.has(projectId) ? 'failed' : 'none', plan: null };
    },

    /** The validation agent's turns: its plan status follows them. */
    onPlanTurn(projectId: number, phase: 'started' | 'ended' | 'failed'): void {
      if (phase === 'started') {
        planning.add(projectId);
        failed.delete(projectId);
      } else {
        planning.delete(projectId);
        if (phase === 'failed') failed.add(projectId);
      }
    },

    /** Stores the validation agent's plan (its tool); 400 when it has no `## Step N` sections. */
    async savePlan(projectId: number, text: string): Promise<number> {
      const steps = parsePlanSteps(text);
      if (!steps.length) throw badRequest(NO_VALIDATION_STEPS);
      // Its commands are what approvals run: a secret's value typed into them is stored sealed (by name).
      const plan = sealSecrets(text, await deps.secrets.sealableValues(projectId));
      await db
        .insert(planningDocuments)
        .values({ projectId, kind: PLAN_KIND, content: plan })
        .onConflictDoUpdate({ target: [planningDocuments.projectId, planningDocuments.kind], set: { content: plan, updatedAt: sql`now()` } });
      return steps.length;
    },

    /**
     * Turns the validation plan into steps, each `waiting_approval`. While steps exist this answers
     * success and changes nothing (the validation stage calls it again when a step failed).
     *
     * @throws 409 when the agent has written no plan yet.
     */
    async trigger(project: StepProject): Promise<StatusResponse> {
      const existing = await runs.planOf(project.projectId);
      if (existing) return { status: 'success', detail: 'Validation is already under way' };
      const plan = await planDocument(project.projectId);
      if (plan === null) throw conflict(NO_VALIDATION_PLAN);
      const planned = parsePlanSteps(plan);
      if (!planned.length) throw conflict(NO_VALIDATION_STEPS);
      planned.push(...(await readbackSteps(project, planned.length)));
      const created = await runs.createPlan(project.projectId, planned);
      if (!created) return { status: 'success', detail: 'Validation is already under way' };
      return { status: 'success', detail: `Validation plan created with ${planned.length} steps waiting for approval` };
    },

    /** Approves (runs, or runs again) or rejects a validation step; 409 before the trigger. */
    async approveStep(project: StepProject, body: ValidationApproveStepBody): Promise<ValidationApproveStepResponse> {
      return runs.approveStep(project, await requirePlan(project.projectId), body.step_number, body.approved);
    },

    /** Cancels a running validation step (its process group is killed); answers the step as stored, failed. */
    async cancelStep(project: StepProject, body: CancelStepBody): Promise<Step> {
      const planId = await requirePlan(project.projectId);
      if (body.plan_id !== undefined && body.plan_id !== planId) throw conflict(STALE_VALIDATION_RUN);
      return runs.cancelStep(project, planId, body.step_number);
    },

    /** The progress poll's snapshots by project (`sendSnapshot` answers one). */
    progress: runs.progress,

    steps: runs.steps,
    recoverInterrupted: runs.recoverInterrupted,
    startSweep: runs.startSweep,
    close: runs.close,
  };
}

export type ValidationService = ReturnType<typeof createValidationService>;
