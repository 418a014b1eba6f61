import { and, asc, eq, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Db, Tx } from '../../db/client';
import type { StepTables } from '../../db/schema/stepTables';
import { conflict, HttpError, notFound } from '../../errors';
import { textRedactor } from '../../sandbox/redactor';
import { openSecrets, sealNullable } from '../../sandbox/sealedSecrets';
import type { ExecOptions, ExecResult } from '../../sandbox/driver';
import { execOutcome } from '../../sandbox/execTracker';
import type { PlanRevision, Step, StepStatus } from '../../../shared/api/execution';
import type { TerminalStreamEvent } from '../../../shared/api/terminal';
import type { ContainerStatusResponse } from '../../../shared/api/sandbox';
import { dangerousReason } from '../execution/dangerous';
import type { EventBus } from '../events/eventBus';
import type { PlannedStep } from '../../../shared/planSteps';
import { PROJECT_TOUCHED_TOPIC, touchProject } from '../projects/touchProject';
import { createVersionedSnapshots, sharedOn, type Snapshot, type SnapshotSource } from '../snapshots/versionedSnapshots';
import { revisePlan } from './planRevision';
import { applyEdits, type CommandEdit } from './commandEdits';
import { stepEnvironment } from '../userSecrets/reservedNames';

/** A project already resolved within the caller's installation (`projectOf`). */
export interface StepProject {
  projectId: number;
  installationId: number;
}

/** The sandbox calls a step stage makes (SandboxService narrowed). */
export interface StepSandbox {
  containerStatus(project: { id: number; installationId: number }): Promise<ContainerStatusResponse>;
  exec(project: { id: number; installationId: number }, command: string, options?: ExecOptions): Promise<ExecResult>;
  commitStep(project: { id: number; installationId: number }, stepNumber: number, command: string): Promise<string>;
}

/** The User Secrets a step runs with (PlanningService narrowed). */
export interface StepSecrets {
  /** Every value, as the sandbox gets them (environment, sealed references opened). */
  secretValues(projectId: number): Promise<Record<string, string>>;
  /** The values that are secrets: redacted from what is shown and stored (a host or a port is not). */
  hiddenValues(projectId: number): Promise<Record<string, string>>;
  /** The values sealed in stored commands (passwords and keys; see sealedSecrets.ts). */
  sealableValues(projectId: number): Promise<Record<string, string>>;
  listSecrets(projectId: number): Promise<Array<{ name: string }>>;
}

/** A step that has just ended, as the stage's `onStepEnded` hook sees it (command and error redacted). */
export interface EndedStep {
  stepNumber: number;
  status: 'completed' | 'failed';
  command: string | null;
  errorMessage: string | null;
}

export interface StepRunsDeps {
  db: Db;
  tables: StepTables;
  sandbox: StepSandbox;
  secrets: StepSecrets;
  /** Carries the commands steps run to the terminal tab (`GET /api/terminal/commands`). */
  commands: EventBus<TerminalStreamEvent>;
  /** The app's event bus: progress snapshots changed here are dropped on the other replicas. */
  events?: EventBus<unknown>;
  log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  /** Upper bound of one step; the sandbox driver's default when absent. */
  stepTimeoutMs?: number;
  /** The progress body of a version (built once per version, only when a poll needs it). */
  serialize(state: ProgressState): string;
  /** In the transaction that stored a step's result, under the plan's lock (activities). */
  onStepEnded(tx: Tx, project: StepProject, planId: number, step: EndedStep): Promise<void>;
  /** Once a step's result is committed, with its stored (redacted) output: work that reads the server again. */
  afterStepStored?(project: StepProject, planId: number, step: EndedStep & { output: string }): void;
  /** Texts naming the stage in errors ('execution', 'validation'). */
  stage: string;
}

/** What a progress poll answers from memory: the plan and its steps, with live output of running ones. */
export interface ProgressState {
  planId: number | null;
  steps: Step[];
  /** Present once the plan was revised after steps had run. */
  revision?: PlanRevision;
}

/** A change to a step: a whole new command, or edits of parts of it (commandEdits.ts), and/or new texts. */
export interface StepChangeRequest {
  command?: string | null;
  edits?: CommandEdit[];
  description?: string;
  prompt?: string;
  /** What the person asked, in their words. */
  request: string;
}

/** What a new version of the plan did to the stored one (`replacePlan`). */
export interface PlanReplacement {
  id: number;
  /** False when the new version is the plan as stored: nothing was changed. */
  changed: boolean;
  added: number;
  changedSteps: number;
  rerun: number;
  removed: number;
  /** Steps kept with what they did (unchanged, before the first difference). */
  kept: number;
}

/** The topic of a project's terminal commands on the event bus. */
export const terminalCommandsTopic = (projectId: number): string => `terminal-commands:${projectId}`;

export const INTERRUPTED_MESSAGE = 'Interrupted by a server restart; approve the step to run it again.';
export const CANCELLED_MESSAGE = 'Cancelled by you: the command and everything it started were stopped.';
export const SHUTDOWN_MESSAGE = 'Stopped because the server shut down; approve the step to run it again.';

/**
 * What a step's shell runs: its command as one script under `set -euo pipefail`, so a failing command,
 * a failing stage of a pipeline or an unset variable ends the step failed with that exit status instead
 * of the next line carrying on. An `exit` ends the script, like any script's (`exit 0`: completed).
 */
export const strictScript = (command: string): string => `set -euo pipefail\n${command}`;
export const SANDBOX_NOT_READY = 'The sandbox is not running: wait for it to be ready (or start it) before running a step.';

/** The end of a step's output is what matters (the error, the last lines); this much is kept. */
const MAX_OUTPUT = 200_000;
const TYPING_SPEED = 50;
/** Commands longer than this appear in the terminal at once: typing a long script would delay its output. */
const TYPED_COMMAND_MAX = 160;
/** A running step's output so far is written to the database at most this often (kept through a crash). */
const OUTPUT_FLUSH_MS = 1_000;
/** How often the process running a step says so (`heartbeat_at`). */
const HEARTBEAT_MS = 5_000;
/** A running step whose heartbeat is older than this was left by a process that is gone. */
const STALE_HEARTBEAT_SECONDS = 30;
/** How often every process looks for such steps (another replica's crash is found this way too). */
const SWEEP_MS = 10_000;

/** Statuses from which an approval runs the step: waiting, and re-execution of a finished one. */
const RUNNABLE: StepStatus[] = ['pending', 'waiting_approval', 'completed', 'failed', 'rejected'];
/** Statuses a rejection applies to. */
const REJECTABLE: StepStatus[] = ['pending', 'waiting_approval'];

/**
 * The step runner shared by the execution and validation stages: a plan of steps per project, each run
 * in the project's sandbox only after approval (with the User Secrets as environment variables, output
 * redacted of their values and base64 forms), the workspace committed after each step, and progress
 * answered from memory (versionedSnapshots), so a poll with a current `If-None-Match` costs no query.
 *
 * Statuses: a new plan leaves every step `waiting_approval`; approving runs it (`in_progress`, then
 * `completed` or `failed`). A rejected step becomes `rejected` — not `failed` (nothing ran, so
 * auto-retry must leave it alone) and not waiting (auto-approve would approve it straight back).
 * Approving a rejected, completed or failed step later runs it (again). A claim is one conditional
 * update, so of two concurrent approvals exactly one runs the stored command.
 */
export function createStepRuns(deps: StepRunsDeps) {
  const { db, sandbox, secrets, commands, log, tables, stage } = deps;
  const { plans, steps: stepsTable } = tables;
  type StepRow = typeof stepsTable.$inferSelect;
  /** Output of running steps as it arrives, by `${projectId}:${stepNumber}`; stored at the end. */
  const liveOutput = new Map<string, string>();
  const runs = new Map<string, { controller: AbortController; done: Promise<void> }>();

  const sandboxOf = (p: StepProject) => ({ id: p.projectId, installationId: p.installationId });
  const liveKey = (projectId: number, stepNumber: number): string => `${projectId}:${stepNumber}`;

  /** A project's whole-text redaction, with its secret values as they are now. */
  const redactorOf = async (projectId: number): Promise<(text: string) => string> => textRedactor(Object.values(await secrets.hiddenValues(projectId)));

  const toStep = (projectId: number, row: StepRow, redact: (text: string) => string): Step => {
    const live = row.status === 'in_progress' ? liveOutput.get(liveKey(projectId, row.stepNumber)) : undefined;
    return {
      step_number: row.stepNumber,
      status: row.status as StepStatus,
      // The stored command is what an approval runs (its sealed secrets opened); a secret in it is shown blanked.
      command: row.command === null ? null : redact(row.command),
      prompt: row.prompt,
      description: row.description,
      output: live ?? row.output,
      error_message: row.errorMessage,
      ...(row.dangerousReason ? { dangerous_reason: row.dangerousReason } : {}),
      started_at: row.startedAt?.toISOString() ?? null,
      finished_at: row.finishedAt?.toISOString() ?? null,
      ...(row.change ? { change: row.change } : {}),
      ...(row.change === 'changed' ? { previous_command: row.previousCommand === null ? null : redact(row.previousCommand) } : {}),
      ...(row.proposal ? { proposal: { ...row.proposal, command: row.proposal.command === null ? null : redact(row.proposal.command) } } : {}),
    };
  };

  async function planOf(projectId: number): Promise<{ id: number } | undefined> {
    const [plan] = await db.select({ id: plans.id }).from(plans).where(eq(plans.projectId, projectId));
    return plan;
  }

  async function loadProgress(projectId: number): Promise<ProgressState> {
    const [plan] = await db.select({ id: plans.id, revision: plans.revision, removed: plans.removedSteps }).from(plans).where(eq(plans.projectId, projectId));
    const rows = plan ? await db.select().from(stepsTable).where(eq(stepsTable.planId, plan.id)).orderBy(asc(stepsTable.stepNumber)) : [];
    const redact = rows.length ? await redactorOf(projectId) : (text: string) => text;
    return {
      planId: plan?.id ?? null,
      steps: rows.map((r) => toStep(projectId, r, redact)),
      ...(plan && plan.revision > 0 ? { revision: { number: plan.revision, removed: plan.removed } } : {}),
    };
  }

  const snapshots = createVersionedSnapshots<number, ProgressState>({
    load: loadProgress,
    serialize: deps.serialize,
    ...sharedOn(deps.events, `snapshots.progress.${stage}`),
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

  const secretNames = async (projectId: number): Promise<string[]> => (await secrets.listSecrets(projectId)).map((s) => s.name);

  async function requireStep(planId: number, stepNumber: number): Promise<StepRow> {
    const [row] = await db.select().from(stepsTable).where(and(eq(stepsTable.planId, planId), eq(stepsTable.stepNumber, stepNumber)));
    if (!row) throw notFound(`The ${stage} plan has no step ${stepNumber}`);
    return row;
  }

  /** A step's error: null for exit 0; a cancel says who stopped it (the person, or a shutdown). */
  function errorOf(result: ExecResult, timeoutMs: number | undefined, signal: AbortSignal): string | null {
    if (result.cancelled && !result.timedOut) return signal.reason === 'shutdown' ? SHUTDOWN_MESSAGE : CANCELLED_MESSAGE;
    return result.timedOut || result.exitCode !== 0 ? `The command ${execOutcome(result, timeoutMs)}.` : null;
  }

  /**
   * Writes a running step's output so far at most every OUTPUT_FLUSH_MS, so a server killed mid-step
   * keeps it (recoverInterrupted then fails the step with it). `stop` waits for a write under way, so
   * none lands after the final result.
   */
  function outputKeeper(planId: number, stepNumber: number, redact: (text: string) => string) {
    let latest: string | null = null;
    let timer: NodeJS.Timeout | null = null;
    let writing: Promise<void> = Promise.resolve();
    const write = (): void => {
      timer = null;
      if (latest === null) return;
      const output = redact(latest).slice(-MAX_OUTPUT);
      latest = null;
      writing = writing
        .then(() => db.update(stepsTable).set({ output }).where(and(eq(stepsTable.planId, planId), eq(stepsTable.stepNumber, stepNumber), eq(stepsTable.status, 'in_progress'))))
        .then(
          () => undefined,
          (err: Error) => log.warn({ planId, stepNumber, err: err.message }, 'could not keep the output of a running step'),
        );
    };
    return {
      push(output: string): void {
        latest = output;
        timer ??= setTimeout(write, OUTPUT_FLUSH_MS);
      },
      async stop(): Promise<void> {
        if (timer) clearTimeout(timer);
        timer = null;
        latest = null;
        await writing;
      },
    };
  }

  /** Runs one claimed step to its end and stores the outcome; never throws. */
  async function run(project: StepProject, planId: number, stepNumber: number, command: string | null, controller: AbortController): Promise<void> {
    const key = liveKey(project.projectId, stepNumber);
    const topic = terminalCommandsTopic(project.projectId);
    let status: 'completed' | 'failed' = 'failed';
    let output = '';
    let errorMessage: string | null = null;
    let values: Record<string, string> = {};
    // The driver already redacts; this pass also covers the command, the error text and anything a driver missed.
    let redactWith = textRedactor([]);
    const redact = (text: string): string => redactWith(text);
    const keeper = outputKeeper(planId, stepNumber, redact);
    const heartbeat = setInterval(() => {
      db.update(stepsTable)
        .set({ heartbeatAt: sql`now()` })
        .where(and(eq(stepsTable.planId, planId), eq(stepsTable.stepNumber, stepNumber), eq(stepsTable.status, 'in_progress')))
        .catch((err: Error) => log.warn({ planId, stepNumber, err: err.message }, 'could not write the heartbeat of a running step'));
    }, HEARTBEAT_MS);
    heartbeat.unref();
    try {
      if (command === null) {
        status = 'completed';
        output = 'This step has no command to run.';
      } else {
        values = await secrets.secretValues(project.projectId);
        const hidden = Object.values(await secrets.hiddenValues(project.projectId));
        redactWith = textRedactor(hidden);
        // A secret typed into the command is stored sealed: the sandbox gets its current value.
        const script = openSecrets(command, values);
        // The terminal shows what runs here; it never runs it again (display only, see TerminalStreamEvent).
        const shown = redact(command);
        commands.publish(topic, { command: shown, simulate_typing: shown.length <= TYPED_COMMAND_MAX, typing_speed: TYPING_SPEED, step_number: stepNumber });
        let live = '';
        const result = await sandbox.exec(sandboxOf(project), strictScript(script), {
          env: stepEnvironment(values),
          secrets: hidden,
          signal: controller.signal,
          ...(deps.stepTimeoutMs ? { timeoutMs: deps.stepTimeoutMs } : {}),
          onOutput: (chunk) => {
            live = (live + chunk).slice(-MAX_OUTPUT);
            liveOutput.set(key, live);
            bumpLive(project.projectId, stepNumber, live);
            keeper.push(live);
            commands.publish(topic, { step_number: stepNumber, output: chunk });
          },
        });
        output = result.output;
        errorMessage = errorOf(result, deps.stepTimeoutMs, controller.signal);
        status = errorMessage ? 'failed' : 'completed';
        try {
          // The commit message is the history the person reads: the command as shown, never a secret typed into it.
          await sandbox.commitStep(sandboxOf(project), stepNumber, redact(command));
        } catch (err) {
          log.warn({ projectId: project.projectId, stepNumber, err: redact((err as Error).message) }, 'could not commit the workspace after a step');
        }
      }
    } catch (err) {
      status = 'failed';
      errorMessage = err instanceof HttpError ? err.message : `The step could not run: ${(err as Error).message}`;
    }
    clearInterval(heartbeat);
    await keeper.stop();
    const storedError = errorMessage === null ? null : redact(errorMessage);
    if (command !== null) commands.publish(topic, { step_number: stepNumber, status, error_message: storedError });
    try {
      const touched = await db.transaction(async (tx) => {
        // One ending step of a plan at a time: the hook's all-completed check must see the others' outcomes.
        await tx.select({ id: plans.id }).from(plans).where(eq(plans.id, planId)).for('update');
        const [stored] = await tx
          .update(stepsTable)
          .set({ status, output: redact(output).slice(-MAX_OUTPUT), errorMessage: storedError, finishedAt: new Date(), updatedAt: new Date() })
          .where(and(eq(stepsTable.planId, planId), eq(stepsTable.stepNumber, stepNumber), eq(stepsTable.status, 'in_progress')))
          .returning({ stepNumber: stepsTable.stepNumber });
        if (!stored) return false;
        // A step's outcome changes the project: its card's 'Last Updated' says so.
        await touchProject(tx, project.projectId);
        // The command is the plan's, its sealed secrets shown blanked like a secret typed into it literally.
        await deps.onStepEnded(tx, project, planId, { stepNumber, status, command: command === null ? null : redact(command), errorMessage: storedError });
        return true;
      });
      if (touched) {
        deps.events?.publish(PROJECT_TOUCHED_TOPIC, project.installationId);
        deps.afterStepStored?.(project, planId, { stepNumber, status, command: command === null ? null : redact(command), errorMessage: storedError, output: redact(output).slice(-MAX_OUTPUT) });
      }
    } catch (err) {
      log.error({ projectId: project.projectId, stepNumber, err: redact((err as Error).message) }, 'could not store a step result');
    } finally {
      liveOutput.delete(key);
      await refresh(project.projectId).catch(() => undefined);
    }
  }

  /** Changes a step that is not running; it waits for approval again, its dangerous reason recomputed. */
  async function updateStep(projectId: number, planId: number, stepNumber: number, change: { command?: string | null; description?: string; prompt?: string }): Promise<Step> {
    const row = await requireStep(planId, stepNumber);
    if (row.status === 'in_progress') throw conflict(`Step ${stepNumber} is running and cannot change now`);
    const command = change.command !== undefined ? sealNullable(change.command, await secrets.sealableValues(projectId)) : row.command;
    const [updated] = await db
      .update(stepsTable)
      .set({
        command,
        description: change.description ?? row.description,
        prompt: change.prompt ?? row.prompt,
        status: 'waiting_approval',
        output: null,
        errorMessage: null,
        dangerousReason: dangerousReason(command, await secretNames(projectId)) ?? null,
        proposal: null,
        updatedAt: new Date(),
      })
      .where(and(eq(stepsTable.planId, planId), eq(stepsTable.stepNumber, stepNumber), ne(stepsTable.status, 'in_progress')))
      .returning();
    if (!updated) throw conflict(`Step ${stepNumber} is running and cannot change now`);
    await refresh(projectId);
    return toStep(projectId, updated, await redactorOf(projectId));
  }

  let sweep: NodeJS.Timeout | null = null;

  async function recoverInterrupted(): Promise<number> {
    const rows = await db
      .update(stepsTable)
      .set({ status: 'failed', errorMessage: INTERRUPTED_MESSAGE, finishedAt: new Date(), updatedAt: new Date() })
      .where(
        and(
          eq(stepsTable.status, 'in_progress'),
          or(isNull(stepsTable.heartbeatAt), lt(stepsTable.heartbeatAt, sql`now() - make_interval(secs => ${STALE_HEARTBEAT_SECONDS})`)),
        ),
      )
      .returning({ planId: stepsTable.planId });
    if (!rows.length) return 0;
    const planIds = [...new Set(rows.map((r) => r.planId))];
    const affected = await db.select({ projectId: plans.projectId }).from(plans).where(inArray(plans.id, planIds));
    await Promise.all(affected.map((p) => refresh(p.projectId)));
    return rows.length;
  }

  return {
    planOf,

    /**
     * Creates the project's plan from planned steps, each `waiting_approval`, with their commands byte for
     * byte (a secret's value in one sealed, see sealedSecrets.ts). Answers undefined when the project
     * already has a plan (which is left as it is).
     */
    async createPlan(projectId: number, planned: PlannedStep[]): Promise<{ id: number } | undefined> {
      const [names, values] = await Promise.all([secretNames(projectId), secrets.sealableValues(projectId)]);
      const created = await db.transaction(async (tx) => {
        const [row] = await tx.insert(plans).values({ projectId }).onConflictDoNothing({ target: plans.projectId }).returning({ id: plans.id });
        if (!row) return undefined;
        await tx.insert(stepsTable).values(
          planned.map((s) => ({
            planId: row.id,
            stepNumber: s.stepNumber,
            description: s.description,
            prompt: s.prompt,
            command: sealNullable(s.command, values),
            status: 'waiting_approval',
            dangerousReason: dangerousReason(s.command, names) ?? null,
          })),
        );
        return row;
      });
      await refresh(projectId);
      return created;
    },

    /**
     * Replaces the project's plan with a new version of it (the implementation plan changed after the
     * plan was made), as a new plan id so an approval of the old version answers 409. What differs from
     * what ran is marked (planRevision.ts): added and changed steps, and later steps that must run again,
     * wait for approval; unchanged steps before the first difference keep their status and output; the
     * removed ones are listed on the plan. Refused (409) while a step runs.
     */
    async replacePlan(projectId: number, planned: PlannedStep[]): Promise<PlanReplacement> {
      const [names, values] = await Promise.all([secretNames(projectId), secrets.sealableValues(projectId)]);
      const next = planned.map((s) => ({ description: s.description, prompt: s.prompt, command: sealNullable(s.command, values) }));
      const result = await db.transaction(async (tx) => {
        const [plan] = await tx.select().from(plans).where(eq(plans.projectId, projectId)).for('update');
        if (!plan) throw conflict(`There is no ${stage} plan to revise`);
        const rows = await tx.select().from(stepsTable).where(eq(stepsTable.planId, plan.id)).orderBy(asc(stepsTable.stepNumber));
        const running = rows.find((r) => r.status === 'in_progress');
        if (running) throw conflict(`Step ${running.stepNumber} is running: the revised plan can replace this one once it has ended`);
        const revision = revisePlan(
          rows.map((r) => ({ stepNumber: r.stepNumber, description: r.description, prompt: r.prompt, command: r.command, status: r.status as StepStatus })),
          next,
        );
        const counts = { added: 0, changedSteps: 0, rerun: 0, removed: revision.removed.length, kept: 0 };
        if (!revision.differs) return { id: plan.id, changed: false, ...counts };
        await tx.delete(plans).where(eq(plans.id, plan.id));
        const [created] = await tx
          .insert(plans)
          .values({ projectId, revision: revision.ran ? plan.revision + 1 : plan.revision, removedSteps: revision.removed })
          .returning({ id: plans.id });
        const id = created!.id;
        await tx.insert(stepsTable).values(
          revision.steps.map((s, i) => {
            const base = {
              planId: id,
              stepNumber: i + 1,
              description: s.step.description,
              prompt: s.step.prompt,
              command: s.step.command,
              dangerousReason: dangerousReason(s.step.command, names) ?? null,
            };
            if (s.kind === 'kept') {
              counts.kept += 1;
              const f = rows.find((r) => r.stepNumber === s.from.stepNumber)!;
              return { ...base, status: f.status, output: f.output, errorMessage: f.errorMessage, startedAt: f.startedAt, finishedAt: f.finishedAt };
            }
            if (s.change === 'added') counts.added += 1;
            if (s.change === 'changed') counts.changedSteps += 1;
            if (s.change === 'rerun') counts.rerun += 1;
            return { ...base, status: 'waiting_approval', change: s.change, previousCommand: s.previousCommand };
          }),
        );
        return { id, changed: true, ...counts };
      });
      await refresh(projectId);
      return result;
    },

    /**
     * Approves (runs, or runs again) or rejects a step of the plan. It answers `in_progress` at once; the
     * run continues in the background.
     */
    async approveStep(project: StepProject, planId: number, stepNumber: number, approved: boolean): Promise<{ step_number: number; status: StepStatus }> {
      if (!approved) {
        const [rejected] = await db
          .update(stepsTable)
          .set({ status: 'rejected', updatedAt: new Date() })
          .where(and(eq(stepsTable.planId, planId), eq(stepsTable.stepNumber, stepNumber), inArray(stepsTable.status, REJECTABLE)))
          .returning({ stepNumber: stepsTable.stepNumber });
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
        .update(stepsTable)
        .set({ status: 'in_progress', output: null, errorMessage: null, startedAt: new Date(), finishedAt: null, heartbeatAt: sql`now()`, updatedAt: new Date() })
        .where(and(eq(stepsTable.planId, planId), eq(stepsTable.stepNumber, stepNumber), inArray(stepsTable.status, RUNNABLE)))
        .returning({ command: stepsTable.command });
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

    /** The progress poll's snapshots by project (`sendSnapshot` answers one): compare its ETag before building its body. */
    progress: { get: snapshots.get, peek: snapshots.peek } satisfies SnapshotSource<number, ProgressState>,

    /** The steps as the database has them, with live output of running steps (an agent's context). */
    steps: loadProgress,

    updateStep,

    /**
     * Keeps a change to a step for the person to review (the card shows the difference); nothing about
     * the step changes until they save it (`resolveProposal`). A new proposal replaces an unsaved one.
     */
    async proposeChange(projectId: number, planId: number, stepNumber: number, change: StepChangeRequest): Promise<Step> {
      const row = await requireStep(planId, stepNumber);
      if (row.status === 'in_progress') throw conflict(`Step ${stepNumber} is running and cannot change now`);
      const values = await secrets.sealableValues(projectId);
      // Edits apply to the stored command, so the lines nobody asked about stay byte for byte (sealed secrets too).
      const command = change.edits?.length ? applyEdits(row.command ?? '', change.edits) : change.command;
      const proposal = {
        command: command !== undefined ? sealNullable(command, values) : row.command,
        description: change.description ?? row.description,
        prompt: change.prompt ?? row.prompt,
        request: change.request.slice(0, 2_000),
      };
      const [updated] = await db
        .update(stepsTable)
        .set({ proposal, updatedAt: new Date() })
        .where(and(eq(stepsTable.planId, planId), eq(stepsTable.stepNumber, stepNumber), ne(stepsTable.status, 'in_progress')))
        .returning();
      if (!updated) throw conflict(`Step ${stepNumber} is running and cannot change now`);
      await refresh(projectId);
      return toStep(projectId, updated, await redactorOf(projectId));
    },

    /** Saves (the step takes the proposed command and texts and waits for approval) or discards a proposed change. */
    async resolveProposal(projectId: number, planId: number, stepNumber: number, save: boolean): Promise<Step> {
      const row = await requireStep(planId, stepNumber);
      if (!row.proposal) throw conflict(`Step ${stepNumber} has no proposed change to ${save ? 'save' : 'discard'}`);
      if (save) return updateStep(projectId, planId, stepNumber, { command: row.proposal.command, description: row.proposal.description, prompt: row.proposal.prompt });
      const [updated] = await db
        .update(stepsTable)
        .set({ proposal: null, updatedAt: new Date() })
        .where(and(eq(stepsTable.planId, planId), eq(stepsTable.stepNumber, stepNumber)))
        .returning();
      await refresh(projectId);
      return toStep(projectId, updated!, await redactorOf(projectId));
    },

    /** Appends a step, waiting for approval. */
    async addStep(projectId: number, planId: number, step: { command: string | null; description: string; prompt: string }): Promise<Step> {
      const [row] = await db
        .insert(stepsTable)
        .values({
          planId,
          stepNumber: sql`(select coalesce(max(${stepsTable.stepNumber}), 0) + 1 from ${stepsTable} where ${stepsTable.planId} = ${planId})`,
          description: step.description,
          prompt: step.prompt,
          command: sealNullable(step.command, await secrets.sealableValues(projectId)),
          status: 'waiting_approval',
          dangerousReason: dangerousReason(step.command, await secretNames(projectId)) ?? null,
        })
        .returning();
      await refresh(projectId);
      return toStep(projectId, row!, await redactorOf(projectId));
    },

    /**
     * A step left `in_progress` by a server process that stopped cannot be running any more: it becomes
     * `failed` with a message saying so; its command, output so far and every other step are kept. A
     * step is left when its heartbeat stopped (STALE_HEARTBEAT_SECONDS, by the database's clock), so a
     * replica starting beside another never fails the steps the other is running. Runs at start and
     * then every SWEEP_MS (`startSweep`). Answers how many steps it failed.
     */
    recoverInterrupted,

    /** Looks for steps left by a stopped process every SWEEP_MS, until `close`. */
    startSweep(): void {
      sweep ??= setInterval(() => {
        recoverInterrupted().catch((err: Error) => log.warn({ err: err.message, stage }, 'could not look for interrupted steps'));
      }, SWEEP_MS);
      sweep.unref();
    },

    /**
     * Cancels a running step: its process group is killed and it ends failed with CANCELLED_MESSAGE.
     * Answers once the result is stored. A step running on another server instance cannot be reached
     * from here (409).
     */
    async cancelStep(project: StepProject, planId: number, stepNumber: number): Promise<Step> {
      const row = await requireStep(planId, stepNumber);
      const running = runs.get(liveKey(project.projectId, stepNumber));
      if (row.status !== 'in_progress') throw conflict(`Step ${stepNumber} is ${row.status.replace(/_/g, ' ')}: only a running step can be cancelled`);
      if (!running) throw conflict(`Step ${stepNumber} is running on another server instance; cancel it there or wait for it to end`);
      running.controller.abort('cancel');
      await running.done;
      return toStep(project.projectId, await requireStep(planId, stepNumber), await redactorOf(project.projectId));
    },

    /** Stops running steps (server shutdown) and waits until their results are stored. */
    async close(): Promise<void> {
      if (sweep) clearInterval(sweep);
      sweep = null;
      const pending = [...runs.values()];
      for (const r of pending) r.controller.abort('shutdown');
      await Promise.allSettled(pending.map((r) => r.done));
    },
  };
}

export type StepRuns = ReturnType<typeof createStepRuns>;
