import { and, asc, count, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import { executionPlans, executionSteps, projects } from '../../db/schema';
import { conflict, HttpError, notFound } from '../../errors';
import { createRedactor } from '../../sandbox/redactor';
import type { ExecOptions, ExecResult } from '../../sandbox/driver';
import type { ApproveStepResponse, ExecutionApproveStepBody, ExecutionProgress, Step, StepStatus } from '../../../shared/api/execution';
import type { StatusResponse } from '../../../shared/api/common';
import type { TerminalCommandEvent } from '../../../shared/api/terminal';
import type { ContainerStatusResponse } from '../../../shared/api/sandbox';
import { RECORDED_ACTIVITY_TYPES } from '../../../shared/constants/activity';
import type { ActivityService } from '../activity/activityService';
import { dangerousReason } from './dangerous';
import type { EventBus } from './eventBus';
import { parsePlanSteps } from './planSteps';
import { createVersionedSnapshots, type Snapshot } from '../shared/versionedSnapshots';

/** A project already resolved within the caller's installation (`projectOf`). */
export interface ExecutionProject {
  projectId: number;
  installationId: number;
}

/** The sandbox calls the execution stage makes (SandboxService narrowed). */
export interface ExecutionSandbox {
  containerStatus(project: { id: number; installationId: number }): Promise<ContainerStatusResponse>;
  exec(project: { id: number; installationId: number }, command: string, options?: ExecOptions): Promise<ExecResult>;
  commitStep(project: { id: number; installationId: number }, stepNumber: number, command: string): Promise<string>;
}

/** The planning calls it makes: the implementation plan and the User Secrets (PlanningService narrowed). */
export interface ExecutionPlanning {
  plan(projectId: number, kind: 'implementation'): Promise<{ plan: string }>;
  secretValues(projectId: number): Promise<Record<string, string>>;
  listSecrets(projectId: number): Promise<Array<{ name: string }>>;
}

export interface ExecutionDeps {
  db: Db;
  sandbox: ExecutionSandbox;
  planning: ExecutionPlanning;
  /** Carries the commands steps run to the terminal tab (`GET /api/terminal/commands`). */
  commands: EventBus<TerminalCommandEvent>;
  /** Records DEPLOYMENT_COMPLETED when a run reaches every step completed, DEPLOYMENT_FAILED when a step fails. */
  activity: Pick<ActivityService, 'record'>;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Upper bound of one step; the sandbox driver's default when absent. */
  stepTimeoutMs?: number;
}

/** The topic of a project's terminal commands on the event bus. */
export const terminalCommandsTopic = (projectId: number): string => `terminal-commands:${projectId}`;

export const INTERRUPTED_MESSAGE = 'Interrupted by a server restart; approve the step to run it again.';
export const NO_IMPLEMENTATION_PLAN = 'There is no implementation plan to execute yet: create and confirm the implementation plan first.';
export const NO_PLANNED_STEPS = 'The implementation plan has no "## Step N" sections to execute.';
export const SANDBOX_NOT_READY = 'The sandbox is not running: wait for it to be ready (or start it) before running a step.';
export const NO_EXECUTION_PLAN = 'There is no execution plan yet: start execution first.';
export const STALE_PLAN = 'The execution plan has changed: reload the progress and try again.';

/** The end of a step's output is what matters (the error, the last lines); this much is kept. */
const MAX_OUTPUT = 200_000;
/** A deployment activity names the step's command, cut to this many characters (the timeline shows 100). */
const ACTIVITY_COMMAND_MAX = 500;
const TYPING_SPEED = 50;

/** Statuses from which an approval runs the step: waiting, and re-execution of a finished one. */
const RUNNABLE: StepStatus[] = ['pending', 'waiting_approval', 'completed', 'failed', 'rejected'];
/** Statuses a rejection applies to. */
const REJECTABLE: StepStatus[] = ['pending', 'waiting_approval'];

type StepRow = typeof executionSteps.$inferSelect;

/** What a progress poll answers from memory: the plan and its steps, with live output of running ones. */
export interface ProgressState {
  planId: number | null;
  steps: Step[];
}

const progressOf = (state: ProgressState): ExecutionProgress => ({
  id: state.planId,
  currentStep: state.steps.find((s) => s.status === 'in_progress')?.step_number ?? 0,
  totalSteps: state.steps.length,
  steps: state.steps,
});

/**
 * The execution stage: turns the project's implementation plan into steps, runs an approved step in
 * the project's sandbox (with the User Secrets as environment variables, output redacted of their values
 * and base64 forms), commits the workspace after each step, and answers progress from memory.
 *
 * Progress is the product's hottest poll: each project has an in-memory snapshot (versionedSnapshots),
 * loaded from the database on first use (so after a restart too) and reloaded after every change, so a
 * poll with a current `If-None-Match` costs no query and no serialisation.
 *
 * Statuses: a trigger leaves every step `waiting_approval`; approving runs it (`in_progress`, then
 * `completed` or `failed`). A rejected step becomes `rejected` — not `failed` (nothing ran and nothing
 * went wrong, so auto-retry must leave it alone) and not `pending`/`waiting_approval` (auto-approve would
 * approve it straight back). Approving a rejected, completed or failed step later runs it (again).
 */
export function createExecutionService(deps: ExecutionDeps) {
  const { db, sandbox, planning, commands, activity, log } = deps;
  /** Output of running steps as it arrives, by `${projectId}:${stepNumber}`; stored at the end. */
  const liveOutput = new Map<string, string>();
  const runs = new Map<string, { controller: AbortController; done: Promise<void> }>();

  const sandboxOf = (p: ExecutionProject) => ({ id: p.projectId, installationId: p.installationId });
  const liveKey = (projectId: number, stepNumber: number): string => `${projectId}:${stepNumber}`;

  const toStep = (projectId: number, row: StepRow): Step => {
    const live = row.status === 'in_progress' ? liveOutput.get(liveKey(projectId, row.stepNumber)) : undefined;
    return {
      step_number: row.stepNumber,
      status: row.status as StepStatus,
      command: row.command,
      prompt: row.prompt,
      description: row.description,
      output: live ?? row.output,
      error_message: row.errorMessage,
      ...(row.dangerousReason ? { dangerous_reason: row.dangerousReason } : {}),
    };
  };

  async function planOf(projectId: number): Promise<{ id: number } | undefined> {
    const [plan] = await db.select({ id: executionPlans.id }).from(executionPlans).where(eq(executionPlans.projectId, projectId));
    return plan;
  }

  async function stepRows(planId: number): Promise<StepRow[]> {
    return db.select().from(executionSteps).where(eq(executionSteps.planId, planId)).orderBy(asc(executionSteps.stepNumber));
  }

  async function loadProgress(projectId: number): Promise<ProgressState> {
    const plan = await planOf(projectId);
    const rows = plan ? await stepRows(plan.id) : [];
    return { planId: plan?.id ?? null, steps: rows.map((r) => toStep(projectId, r)) };
  }

  const snapshots = createVersionedSnapshots<number, ProgressState>({
    load: loadProgress,
    serialize: (state) => JSON.stringify(progressOf(state)),
  });
  /** Called after every committed change of a project's steps: its next poll sees the change. */
  const refresh = (projectId: number): Promise<Snapshot<ProgressState>> => snapshots.refresh(projectId);

  /** A running step's output changed: a new version without touching the database. */
  function bumpLive(projectId: number, stepNumber: number, output: string): void {
    snapshots.update(projectId, (state) => ({
      ...state,
      steps: state.steps.map((s) => (s.step_number === stepNumber && s.status === 'in_progress' ? { ...s, output } : s)),
    }));
  }

  async function secretNames(projectId: number): Promise<string[]> {
    return (await planning.listSecrets(projectId)).map((s) => s.name);
  }

  async function requireStep(planId: number, stepNumber: number): Promise<StepRow> {
    const [row] = await db
      .select()
      .from(executionSteps)
      .where(and(eq(executionSteps.planId, planId), eq(executionSteps.stepNumber, stepNumber)));
    if (!row) throw notFound(`The execution plan has no step ${stepNumber}`);
    return row;
  }

  async function requirePlan(projectId: number, planId?: number): Promise<number> {
    const plan = await planOf(projectId);
    if (!plan) throw conflict(NO_EXECUTION_PLAN);
    if (planId !== undefined && plan.id !== planId) throw conflict(STALE_PLAN);
    return plan.id;
  }

  function errorOf(result: ExecResult, timeoutMs: number | undefined): string | null {
    if (result.timedOut) return `The command timed out${timeoutMs ? ` after ${Math.round(timeoutMs / 1000)} s` : ''} and was stopped.`;
    if (result.cancelled) return 'The command was cancelled.';
    if (result.exitCode === null) return 'The command was killed by a signal.';
    if (result.exitCode !== 0) return `The command exited with code ${result.exitCode}.`;
    return null;
  }

  /**
   * Records the deployment activity of a step that has just ended, in the transaction that stored it:
   * DEPLOYMENT_FAILED for a failed step; DEPLOYMENT_COMPLETED when this step completed the last one still
   * open, so once per transition into all-completed (re-running a step and completing it again is a new
   * one). The caller holds the plan's lock, so of two steps ending together only the later sees them all done.
   */
  async function recordDeployment(
    tx: Tx,
    project: ExecutionProject,
    planId: number,
    step: { stepNumber: number; status: 'completed' | 'failed'; command: string | null; errorMessage: string | null },
  ): Promise<void> {
    let totalSteps: number | undefined;
    if (step.status === 'completed') {
      const [steps] = await tx
        .select({ all: count(), open: sql<number>`count(*) filter (where ${executionSteps.status} <> 'completed')` })
        .from(executionSteps)
        .where(eq(executionSteps.planId, planId));
      if (!steps || Number(steps.open) > 0) return;
      totalSteps = Number(steps.all);
    }
    const [row] = await tx.select({ name: projects.name }).from(projects).where(eq(projects.id, project.projectId));
    await activity.record(
      {
        installationId: project.installationId,
        projectId: project.projectId,
        activityType: step.status === 'completed' ? RECORDED_ACTIVITY_TYPES.deploymentCompleted : RECORDED_ACTIVITY_TYPES.deploymentFailed,
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
  }

  /** Runs one claimed step to its end and stores the outcome; never throws. */
  async function run(project: ExecutionProject, planId: number, stepNumber: number, command: string | null, controller: AbortController): Promise<void> {
    const key = liveKey(project.projectId, stepNumber);
    let status: 'completed' | 'failed' = 'failed';
    let output = '';
    let errorMessage: string | null = null;
    let secrets: Record<string, string> = {};
    try {
      if (command === null) {
        status = 'completed';
        output = 'This step has no command to run.';
      } else {
        secrets = await planning.secretValues(project.projectId);
        commands.publish(terminalCommandsTopic(project.projectId), { command, simulate_typing: true, typing_speed: TYPING_SPEED });
        let live = '';
        const result = await sandbox.exec(sandboxOf(project), command, {
          env: secrets,
          secrets: Object.values(secrets),
          signal: controller.signal,
          ...(deps.stepTimeoutMs ? { timeoutMs: deps.stepTimeoutMs } : {}),
          onOutput: (chunk) => {
            live = (live + chunk).slice(-MAX_OUTPUT);
            liveOutput.set(key, live);
            bumpLive(project.projectId, stepNumber, live);
          },
        });
        output = result.output;
        errorMessage = errorOf(result, deps.stepTimeoutMs);
        status = errorMessage ? 'failed' : 'completed';
        try {
          await sandbox.commitStep(sandboxOf(project), stepNumber, command);
        } catch (err) {
          log.warn({ projectId: project.projectId, stepNumber, err: (err as Error).message }, 'could not commit the workspace after a step');
        }
      }
    } catch (err) {
      status = 'failed';
      errorMessage = err instanceof HttpError ? err.message : `The step could not run: ${(err as Error).message}`;
    }
    // The driver already redacts; this pass also covers the error text and anything a driver missed.
    const redact = (text: string): string => {
      const r = createRedactor(Object.values(secrets));
      return r.push(text) + r.flush();
    };
    const storedError = errorMessage === null ? null : redact(errorMessage);
    try {
      await db.transaction(async (tx) => {
        // One ending step of a plan at a time: the all-completed check below must see the others' outcomes.
        await tx.select({ id: executionPlans.id }).from(executionPlans).where(eq(executionPlans.id, planId)).for('update');
        const [stored] = await tx
          .update(executionSteps)
          .set({ status, output: redact(output).slice(-MAX_OUTPUT), errorMessage: storedError, finishedAt: new Date(), updatedAt: new Date() })
          .where(and(eq(executionSteps.planId, planId), eq(executionSteps.stepNumber, stepNumber), eq(executionSteps.status, 'in_progress')))
          .returning({ stepNumber: executionSteps.stepNumber });
        // The command is the plan's, byte for byte: a secret typed into it literally is blanked here too.
        if (stored) await recordDeployment(tx, project, planId, { stepNumber, status, command: command === null ? null : redact(command), errorMessage: storedError });
      });
    } catch (err) {
      log.error({ projectId: project.projectId, stepNumber, err: (err as Error).message }, 'could not store a step result');
    } finally {
      liveOutput.delete(key);
      await refresh(project.projectId).catch(() => undefined);
    }
  }

  return {
    /**
     * Turns the project's implementation plan into steps, each `waiting_approval`, with the plan's
     * commands byte for byte. While a plan exists this answers it and changes nothing.
     *
     * @throws 409 when there is no implementation plan, or it has no steps.
     */
    async trigger(project: ExecutionProject): Promise<StatusResponse> {
      const existing = await planOf(project.projectId);
      if (existing) return { status: 'success', detail: `Execution plan ${existing.id} is already under way` };
      const { plan } = await planning.plan(project.projectId, 'implementation');
      if (!plan.trim()) throw conflict(NO_IMPLEMENTATION_PLAN);
      const planned = parsePlanSteps(plan);
      if (!planned.length) throw conflict(NO_PLANNED_STEPS);
      const names = await secretNames(project.projectId);
      const created = await db.transaction(async (tx) => {
        const [row] = await tx
          .insert(executionPlans)
          .values({ projectId: project.projectId })
          .onConflictDoNothing({ target: executionPlans.projectId })
          .returning({ id: executionPlans.id });
        if (!row) return undefined;
        await tx.insert(executionSteps).values(
          planned.map((s) => ({
            planId: row.id,
            stepNumber: s.stepNumber,
            description: s.description,
            prompt: s.prompt,
            command: s.command,
            status: 'waiting_approval',
            dangerousReason: dangerousReason(s.command, names) ?? null,
          })),
        );
        return row;
      });
      await refresh(project.projectId);
      if (!created) return { status: 'success', detail: 'Execution is already under way' };
      return { status: 'success', detail: `Execution plan ${created.id} created with ${planned.length} steps waiting for approval` };
    },

    /**
     * Approves (runs, or runs again) or rejects a step. An approval claims the step in one conditional
     * update, so of two concurrent approvals exactly one runs it (the other answers 409), and it runs the
     * command stored in the claimed row. It answers `in_progress` at once; the run continues in the background.
     */
    async approveStep(project: ExecutionProject, body: ExecutionApproveStepBody): Promise<ApproveStepResponse> {
      const planId = await requirePlan(project.projectId, body.plan_id);
      const stepNumber = body.step_number;
      if (!body.approved) {
        const [rejected] = await db
          .update(executionSteps)
          .set({ status: 'rejected', updatedAt: new Date() })
          .where(and(eq(executionSteps.planId, planId), eq(executionSteps.stepNumber, stepNumber), inArray(executionSteps.status, REJECTABLE)))
          .returning({ stepNumber: executionSteps.stepNumber });
        if (!rejected) {
          const row = await requireStep(planId, stepNumber);
          if (row.status !== 'rejected') throw conflict(`Step ${stepNumber} is ${row.status.replace(/_/g, ' ')}: only a waiting step can be rejected`);
        }
        await refresh(project.projectId);
        return { step_number: stepNumber, status: 'rejected' };
      }
      const { container_status } = await sandbox.containerStatus(sandboxOf(project));
      if (container_status !== 'Running') throw conflict(SANDBOX_NOT_READY);
      const [claimed] = await db
        .update(executionSteps)
        .set({ status: 'in_progress', output: null, errorMessage: null, startedAt: new Date(), finishedAt: null, updatedAt: new Date() })
        .where(and(eq(executionSteps.planId, planId), eq(executionSteps.stepNumber, stepNumber), inArray(executionSteps.status, RUNNABLE)))
        .returning({ command: executionSteps.command });
      if (!claimed) {
        const row = await requireStep(planId, stepNumber);
        throw conflict(`Step ${stepNumber} is ${row.status === 'in_progress' ? 'already running' : row.status}`);
      }
      await refresh(project.projectId);
      const key = liveKey(project.projectId, stepNumber);
      const controller = new AbortController();
      const done = run(project, planId, stepNumber, claimed.command, controller).finally(() => {
        if (runs.get(key)?.controller === controller) runs.delete(key);
      });
      runs.set(key, { controller, done });
      return { step_number: stepNumber, status: 'in_progress' };
    },

    /** The progress poll's snapshot (`sendSnapshot` answers it): compare its ETag before building its body. */
    progress(projectId: number): Promise<Snapshot<ProgressState>> {
      return snapshots.get(projectId);
    },

    /** The steps as the database has them, with live output of running steps (the execution agent's context). */
    steps: loadProgress,

    /**
     * Changes a step's command, description or prompt (the execution agent's tool). A changed step waits
     * for approval again, with its dangerous reason recomputed; a running step cannot change.
     */
    async updateStep(projectId: number, stepNumber: number, change: { command?: string | null; description?: string; prompt?: string }): Promise<Step> {
      const planId = await requirePlan(projectId);
      const row = await requireStep(planId, stepNumber);
      if (row.status === 'in_progress') throw conflict(`Step ${stepNumber} is running and cannot change now`);
      const command = change.command !== undefined ? change.command : row.command;
      const [updated] = await db
        .update(executionSteps)
        .set({
          command,
          description: change.description ?? row.description,
          prompt: change.prompt ?? row.prompt,
          status: 'waiting_approval',
          output: null,
          errorMessage: null,
          dangerousReason: dangerousReason(command, await secretNames(projectId)) ?? null,
          updatedAt: new Date(),
        })
        .where(and(eq(executionSteps.planId, planId), eq(executionSteps.stepNumber, stepNumber), ne(executionSteps.status, 'in_progress')))
        .returning();
      if (!updated) throw conflict(`Step ${stepNumber} is running and cannot change now`);
      await refresh(projectId);
      return toStep(projectId, updated);
    },

    /** Appends a step, waiting for approval (the execution agent's tool). */
    async addStep(projectId: number, step: { command: string | null; description: string; prompt: string }): Promise<Step> {
      const planId = await requirePlan(projectId);
      const [row] = await db
        .insert(executionSteps)
        .values({
          planId,
          stepNumber: sql`(select coalesce(max(${executionSteps.stepNumber}), 0) + 1 from ${executionSteps} where ${executionSteps.planId} = ${planId})`,
          description: step.description,
          prompt: step.prompt,
          command: step.command,
          status: 'waiting_approval',
          dangerousReason: dangerousReason(step.command, await secretNames(projectId)) ?? null,
        })
        .returning();
      await refresh(projectId);
      return toStep(projectId, row!);
    },

    /**
     * At start: a step left `in_progress` by a server that stopped cannot be running any more, so it
     * becomes `failed` with a message saying so; its command, output so far and every other step are kept.
     * (With several API replicas this belongs to a leader, as a replica's start must not fail another's runs.)
     */
    async recoverInterrupted(): Promise<number> {
      const rows = await db
        .update(executionSteps)
        .set({ status: 'failed', errorMessage: INTERRUPTED_MESSAGE, finishedAt: new Date(), updatedAt: new Date() })
        .where(eq(executionSteps.status, 'in_progress'))
        .returning({ planId: executionSteps.planId });
      snapshots.clear();
      return rows.length;
    },

    /** Stops running steps (server shutdown) and waits until their results are stored. */
    async close(): Promise<void> {
      const pending = [...runs.values()];
      for (const r of pending) r.controller.abort();
      await Promise.allSettled(pending.map((r) => r.done));
    },
  };
}

export type ExecutionService = ReturnType<typeof createExecutionService>;
