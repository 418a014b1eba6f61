import { Type, type Static } from 'typebox';
import { CHAT } from '../constants/chat';
import { STEP_STATUSES } from '../constants/execution';
import { DbInteger, MessageBody, StatusResponse } from './common';

/** The execution stage. The project is the one named by the Project-Id header. */

export const StepStatus = Type.Enum(STEP_STATUSES);
export type StepStatus = Static<typeof StepStatus>;

/**
 * Ours: what a revised plan changed in a step compared with what ran. `added`: new in the revision;
 * `changed`: its command differs (`previous_command` holds the one that ran); `rerun`: unchanged, but it
 * comes after a changed or added step and works on what that step produces, so it runs again.
 */
export const STEP_CHANGES = ['added', 'changed', 'rerun'] as const;
export const StepChange = Type.Enum(STEP_CHANGES);
export type StepChange = Static<typeof StepChange>;

/** Ours: a step that ran in an earlier version of the plan and is not in the revised one. */
export const RemovedStep = Type.Object({
  step_number: Type.Integer({ minimum: 1 }),
  description: Type.String(),
  /** Its status when it was removed ('completed': what it did stays on the server). */
  status: StepStatus,
});
export type RemovedStep = Static<typeof RemovedStep>;

/**
 * Ours: a change to a step the execution agent proposed and the person has not saved yet. The card shows
 * the difference from the step as it is; saving applies exactly this, discarding drops it.
 */
export const StepProposal = Type.Object({
  command: Type.Union([Type.String(), Type.Null()]),
  description: Type.String(),
  prompt: Type.String(),
  /** What the person asked, in their words (shown beside the difference). */
  request: Type.String(),
});
export type StepProposal = Static<typeof StepProposal>;

/** An execution or validation step. Steps arrive sorted by `step_number` (1-based). */
export const Step = Type.Object({
  step_number: Type.Integer({ minimum: 1 }),
  status: StepStatus,
  /** The shell command the agent will run; null when the step is a prompt only. */
  command: Type.Union([Type.String(), Type.Null()]),
  prompt: Type.String(),
  /** '' shows the default 'Execution Step N' / 'Validation Step N'. */
  description: Type.String(),
  /** Output so far, with user secrets redacted; null before the step ran. */
  output: Type.Union([Type.String(), Type.Null()]),
  error_message: Type.Union([Type.String(), Type.Null()]),
  /** Why the server holds this step for a human even under auto-approve. */
  dangerous_reason: Type.Optional(Type.String()),
  /** When the step last started running (ISO 8601); null before it ran. The card counts its running time from it. */
  started_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  /** When that run ended; null while it runs or before it ran. */
  finished_at: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  /** Ours: set on a revised plan's steps that differ from what ran. */
  change: Type.Optional(StepChange),
  /** Ours: for a `changed` step, the command that ran before the revision. */
  previous_command: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  /** Ours: a change the agent proposed, waiting for the person to save or discard it. */
  proposal: Type.Optional(StepProposal),
});
export type Step = Static<typeof Step>;

/** Ours: the latest revision of a plan that had run: its number and the steps it removed. */
export const PlanRevision = Type.Object({
  number: Type.Integer({ minimum: 1 }),
  removed: Type.Array(RemovedStep),
});
export type PlanRevision = Static<typeof PlanRevision>;

/**
 * GET /api/execution/progress, polled every 5 s. Before a plan exists: `{ id: null, currentStep: 0,
 * totalSteps: 0, steps: [] }`. `currentStep` is the in-progress step's number, 0 when none.
 */
export const ExecutionProgress = Type.Object({
  id: Type.Union([Type.Integer(), Type.Null()]),
  currentStep: Type.Integer({ minimum: 0 }),
  totalSteps: Type.Integer({ minimum: 0 }),
  steps: Type.Array(Step),
  /** Ours: present once the plan was revised after steps had run. */
  revision: Type.Optional(PlanRevision),
});
export type ExecutionProgress = Static<typeof ExecutionProgress>;

/**
 * POST /api/execution/approve-step: `approved: true` approves a waiting step or re-executes a failed or
 * completed one; `false` rejects a waiting step. A stale `plan_id` answers 409.
 */
export const ExecutionApproveStepBody = Type.Object(
  {
    plan_id: DbInteger({ minimum: 1 }),
    step_number: DbInteger({ minimum: 1 }),
    approved: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type ExecutionApproveStepBody = Static<typeof ExecutionApproveStepBody>;

/**
 * POST /api/execution/cancel-step and POST /api/validation/cancel-step: stops a running step (its process
 * group is killed; it ends `failed`, its error saying it was cancelled) and answers the step as stored.
 * A stale `plan_id` answers 409, as does a step that is not running.
 */
export const CancelStepBody = Type.Object(
  {
    plan_id: Type.Optional(DbInteger({ minimum: 1 })),
    step_number: DbInteger({ minimum: 1 }),
  },
  { additionalProperties: false },
);
export type CancelStepBody = Static<typeof CancelStepBody>;

/**
 * Ours: POST /api/execution/resolve-change: `save: true` applies the change the agent proposed for a step
 * (it then waits for approval), `false` discards it. Answers the step; a stale `plan_id` answers 409, as
 * does a step with no proposed change.
 */
export const ResolveProposalBody = Type.Object(
  {
    plan_id: DbInteger({ minimum: 1 }),
    step_number: DbInteger({ minimum: 1 }),
    save: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type ResolveProposalBody = Static<typeof ResolveProposalBody>;

/** Answer of POST /api/execution/approve-step and POST /api/validation/approve-step: the step's new status. */
export const ApproveStepResponse = Type.Object({
  step_number: Type.Integer({ minimum: 1 }),
  status: StepStatus,
});
export type ApproveStepResponse = Static<typeof ApproveStepResponse>;

/** POST /api/execution/trigger: the implementation confirm sends `{ message: 'Start execution' }`. */
export const ExecutionTriggerBody = Type.Object(
  { message: MessageBody.properties.message },
  { additionalProperties: false },
);
export type ExecutionTriggerBody = Static<typeof ExecutionTriggerBody>;

/** Answer of POST /api/execution/trigger: `success` when execution started (or is running); else `detail` says why. */
export const ExecutionTriggerResponse = StatusResponse;
export type ExecutionTriggerResponse = StatusResponse;

/**
 * Query of GET /api/execution/agent?message=...&thread_id=... (SSE, `StreamEvent` frames). A GET because
 * the documents make it one; the message travels in the query, so it is shorter than a body message.
 */
export const ExecutionAgentQuery = Type.Object(
  {
    message: Type.String({ maxLength: CHAT.maxQueryMessageLength }),
    thread_id: MessageBody.properties.thread_id,
  },
  { additionalProperties: false },
);
export type ExecutionAgentQuery = Static<typeof ExecutionAgentQuery>;
