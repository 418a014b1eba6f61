import { count, eq, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { executionPlans, executionSteps, projects } from '../../db/schema';
import type { StepTables } from '../../db/schema/stepTables';
import { conflict } from '../../errors';
import type { ApproveStepResponse, CancelStepBody, ExecutionApproveStepBody, ExecutionProgress, ResolveProposalBody, Step } from '../../../shared/api/execution';
import type { StatusResponse } from '../../../shared/api/common';
import type { TerminalStreamEvent } from '../../../shared/api/terminal';
import { RECORDED_ACTIVITY_TYPES } from '../../../shared/constants/activity';
import type { ActivityService } from '../activity/activityService';
import type { EventBus } from '../events/eventBus';
import { parsePlanSteps } from '../../../shared/planSteps';
import { createStepRuns, type EndedStep, type PlanReplacement, type ProgressState, type StepChangeRequest, type StepProject, type StepRunsDeps, type StepSandbox, type StepSecrets } from '../steps/stepRuns';

export { INTERRUPTED_MESSAGE, SANDBOX_NOT_READY, terminalCommandsTopic, type ProgressState } from '../steps/stepRuns';

/** A project already resolved within the caller's installation (`projectOf`). */
export type ExecutionProject = StepProject;

/** The sandbox calls the execution stage makes (SandboxService narrowed). */
export type ExecutionSandbox = StepSandbox;

/** The planning calls it makes: the implementation plan and the User Secrets (PlanningService narrowed). */
export interface ExecutionPlanning extends StepSecrets {
  plan(projectId: number, kind: 'implementation'): Promise<{ plan: string }>;
}

export interface ExecutionDeps {
  db: Db;
  sandbox: ExecutionSandbox;
  planning: ExecutionPlanning;
  /** Carries the commands steps run to the terminal tab (`GET /api/terminal/commands`). */
  commands: EventBus<TerminalStreamEvent>;
  /** The app's event bus (progress snapshots across replicas). */
  events?: EventBus<unknown>;
  /** Records DEPLOYMENT_COMPLETED when a run reaches every step completed, DEPLOYMENT_FAILED when a step fails. */
  activity: Pick<ActivityService, 'record'>;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Upper bound of one step; the sandbox driver's default when absent. */
  stepTimeoutMs?: number;
  /** After a step's result is stored (releases: a finished deploy is recorded, a failed health gate reported). */
  afterStepStored?: StepRunsDeps['afterStepStored'];
}

export const NO_IMPLEMENTATION_PLAN = 'There is no implementation plan to execute yet: create and confirm the implementation plan first.';
export const NO_PLANNED_STEPS = 'The implementation plan has no "## Step N" sections to execute.';
export const NO_EXECUTION_PLAN = 'There is no execution plan yet: start execution first.';
export const STALE_PLAN = 'The execution plan has changed: reload the progress and try again.';

/** An activity names the step's command, cut to this many characters (the timeline shows 100). */
export const ACTIVITY_COMMAND_MAX = 500;

const progressOf = (state: ProgressState): ExecutionProgress => ({
  id: state.planId,
  currentStep: state.steps.find((s) => s.status === 'in_progress')?.step_number ?? 0,
  totalSteps: state.steps.length,
  steps: state.steps,
  ...(state.revision ? { revision: state.revision } : {}),
});

/** What the trigger answers after replacing a plan with a new version of it. */
export function revisionSummary(r: PlanReplacement): string {
  const n = (count: number, what: string): string => `${count} ${what}`;
  const parts = [n(r.added, 'added'), n(r.changedSteps, 'changed'), n(r.removed, 'removed')];
  const rerun = r.rerun ? `; ${r.rerun} later step${r.rerun === 1 ? '' : 's'} run${r.rerun === 1 ? 's' : ''} again after a changed one` : '';
  const kept = r.kept ? `; ${r.kept} unchanged step${r.kept === 1 ? ' keeps its' : 's keep their'} result` : '';
  const waiting = r.added + r.changedSteps + r.rerun;
  return `Execution plan ${r.id} revised from the changed implementation plan: ${parts.join(', ')}${rerun}${kept}. ${waiting} step${waiting === 1 ? '' : 's'} wait${waiting === 1 ? 's' : ''} for approval.`;
}

/** The activity types of a step stage: one for a failed step, one for the transition into all-completed. */
export interface StepActivityTypes {
  completed: string;
  failed: string;
}

/**
 * Records a step stage's activity for a step that has just ended, in the transaction that stored it:
 * `failed` for a failed step; `completed` when this step completed the last one still open, so once per
 * transition into all-completed (re-running a step and completing it again is a new one). The caller
 * holds the plan's lock, so of two steps ending together only the later sees them all done.
 */
export function createStepActivityRecorder(
  activity: Pick<ActivityService, 'record'>,
  stepsTable: StepTables['steps'],
  types: StepActivityTypes,
): (tx: Tx, project: StepProject, planId: number, step: EndedStep) => Promise<void> {
  return async (tx, project, planId, step) => {
    let totalSteps: number | undefined;
    if (step.status === 'completed') {
      const [steps] = await tx
        .select({ all: count(), open: sql<number>`count(*) filter (where ${stepsTable.status} <> 'completed')` })
        .from(stepsTable)
        .where(eq(stepsTable.planId, planId));
      if (!steps || Number(steps.open) > 0) return;
      totalSteps = Number(steps.all);
    }
    const [row] = await tx.select({ name: projects.name }).from(projects).where(eq(projects.id, project.projectId));
    await activity.record(
      {
        installationId: project.installationId,
        projectId: project.projectId,
        activityType: step.status === 'completed' ? types.completed : types.failed,
        data: {
          project_name: row?.name,
          step_number: step.stepNumber,
          command: step.command === null ? null : step.command.slice(0, ACTIVITY_COMMAND_MAX),
          ...(totalSteps !== undefined ? { total_steps: totalSteps } : {}),
          ...(step.errorMessage !== null ? { error_message: step.errorMessage } : {}),
        },
      },
      tx,
    );
  };
}

/**
 * The execution stage: turns the project's implementation plan into steps and runs approved ones in the
 * project's sandbox through the shared step runner (services/steps/stepRuns.ts), which answers the
 * progress poll — the product's hottest — from memory. DEPLOYMENT_FAILED / DEPLOYMENT_COMPLETED
 * activities are recorded as steps end.
 */
export function createExecutionService(deps: ExecutionDeps) {
  const { planning } = deps;
  const runs = createStepRuns({
    db: deps.db,
    tables: { plans: executionPlans, steps: executionSteps },
    sandbox: deps.sandbox,
    secrets: planning,
    commands: deps.commands,
    ...(deps.events ? { events: deps.events } : {}),
    log: deps.log,
    ...(deps.stepTimeoutMs ? { stepTimeoutMs: deps.stepTimeoutMs } : {}),
    serialize: (state) => JSON.stringify(progressOf(state)),
    onStepEnded: createStepActivityRecorder(deps.activity, executionSteps, {
      completed: RECORDED_ACTIVITY_TYPES.deploymentCompleted,
      failed: RECORDED_ACTIVITY_TYPES.deploymentFailed,
    }),
    stage: 'execution',
    ...(deps.afterStepStored ? { afterStepStored: deps.afterStepStored } : {}),
  });

  async function requirePlan(projectId: number, planId?: number): Promise<number> {
    const plan = await runs.planOf(projectId);
    if (!plan) throw conflict(NO_EXECUTION_PLAN);
    if (planId !== undefined && plan.id !== planId) throw conflict(STALE_PLAN);
    return plan.id;
  }

  return {
    /**
     * Turns the project's implementation plan into steps, each `waiting_approval`, with the plan's
     * commands byte for byte. While a plan exists, a changed implementation plan (a change after a deploy)
     * replaces it as a revision marking what differs from what ran; an unchanged one changes nothing.
     * A step still running answers 409.
     *
     * @throws 409 when there is no implementation plan, or it has no steps.
     */
    async trigger(project: ExecutionProject): Promise<StatusResponse> {
      const { plan } = await planning.plan(project.projectId, 'implementation');
      if (!plan.trim()) throw conflict(NO_IMPLEMENTATION_PLAN);
      const planned = parsePlanSteps(plan);
      if (!planned.length) throw conflict(NO_PLANNED_STEPS);
      if (!(await runs.planOf(project.projectId))) {
        const created = await runs.createPlan(project.projectId, planned);
        if (created) return { status: 'success', detail: `Execution plan ${created.id} created with ${planned.length} steps waiting for approval` };
      }
      // A plan exists: the implementation plan may have changed since (a change after a deploy).
      const revised = await runs.replacePlan(project.projectId, planned);
      if (!revised.changed) return { status: 'success', detail: `Execution plan ${revised.id} is already under way; the implementation plan has not changed since it was made` };
      return { status: 'success', detail: revisionSummary(revised) };
    },

    /**
     * Approves (runs, or runs again) or rejects a step. A stale `plan_id` answers 409. It answers
     * `in_progress` at once; the run continues in the background.
     */
    async approveStep(project: ExecutionProject, body: ExecutionApproveStepBody): Promise<ApproveStepResponse> {
      const planId = await requirePlan(project.projectId, body.plan_id);
      return runs.approveStep(project, planId, body.step_number, body.approved);
    },

    /** Cancels a running step (its process group is killed); answers the step as stored, failed. */
    async cancelStep(project: ExecutionProject, body: CancelStepBody): Promise<Step> {
      return runs.cancelStep(project, await requirePlan(project.projectId, body.plan_id), body.step_number);
    },

    /** The project's execution plan, if it has one. */
    planOf: runs.planOf,

    /** The progress poll's snapshots by project (`sendSnapshot` answers one): compare its ETag before building its body. */
    progress: runs.progress,

    /** The steps as the database has them, with live output of running steps (the execution agent's context). */
    steps: runs.steps,

    /** Changes a step's command, description or prompt (the execution agent's tool); it waits for approval again. */
    async updateStep(projectId: number, stepNumber: number, change: { command?: string | null; description?: string; prompt?: string }): Promise<Step> {
      return runs.updateStep(projectId, await requirePlan(projectId), stepNumber, change);
    },

    /** Keeps a change to a step for the person to review before it is saved (the execution agent's tool). */
    async proposeChange(projectId: number, stepNumber: number, change: StepChangeRequest): Promise<Step> {
      return runs.proposeChange(projectId, await requirePlan(projectId), stepNumber, change);
    },

    /** The person saves or discards a proposed change; a stale `plan_id` answers 409. */
    async resolveProposal(project: ExecutionProject, body: ResolveProposalBody): Promise<Step> {
      return runs.resolveProposal(project.projectId, await requirePlan(project.projectId, body.plan_id), body.step_number, body.save);
    },

    /** Appends a step, waiting for approval (the execution agent's tool). */
    async addStep(projectId: number, step: { command: string | null; description: string; prompt: string }): Promise<Step> {
      return runs.addStep(projectId, await requirePlan(projectId), step);
    },

    /** At start: steps left `in_progress` by a stopped server become `failed` (see stepRuns). */
    recoverInterrupted: runs.recoverInterrupted,
    startSweep: runs.startSweep,

    /** Stops running steps (server shutdown) and waits until their results are stored. */
    close: runs.close,
  };
}

export type ExecutionService = ReturnType<typeof createExecutionService>;
