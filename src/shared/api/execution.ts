import { Type, type Static } from 'typebox';
import { CHAT } from '../constants/chat';
import { STEP_STATUSES } from '../constants/execution';
import { DbInteger, MessageBody, StatusResponse } from './common';

/** The execution stage. The project is the one named by the Project-Id header. */

export const StepStatus = Type.Enum(STEP_STATUSES);
export type StepStatus = Static<typeof StepStatus>;

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
});
export type Step = Static<typeof Step>;

/**
 * GET /api/execution/progress, polled every 5 s. Before a plan exists: `{ id: null, currentStep: 0,
 * totalSteps: 0, steps: [] }`. `currentStep` is the in-progress step's number, 0 when none.
 */
export const ExecutionProgress = Type.Object({
  id: Type.Union([Type.Integer(), Type.Null()]),
  currentStep: Type.Integer({ minimum: 0 }),
  totalSteps: Type.Integer({ minimum: 0 }),
  steps: Type.Array(Step),
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
