import { Type, type Static } from 'typebox';
import { DbInteger, MessageBody, StatusResponse } from './common';
import { ApproveStepResponse, ExecutionAgentQuery, Step } from './execution';

/**
 * The validation stage. The project is the one named by the Project-Id header. The validation plan is
 * created by streaming the fixed prompt `VALIDATION.planPrompt` to GET /api/validation/agent.
 */

/**
 * POST /api/validation/trigger: the validation stage sends `{ message }`, the execution stage sends `{}`
 * (an empty JSON body is a 400 in Fastify, so never send none).
 */
export const ValidationTriggerBody = Type.Object(
  { message: Type.Optional(MessageBody.properties.message) },
  { additionalProperties: false },
);
export type ValidationTriggerBody = Static<typeof ValidationTriggerBody>;

/** Answer of POST /api/validation/trigger: `success` counts as success; otherwise `detail` says why. */
export const ValidationTriggerResponse = StatusResponse;
export type ValidationTriggerResponse = StatusResponse;

/**
 * GET /api/validation/plan, polled every 3 s. `none` before the agent was asked, `planning` while it
 * writes, `ready` with `plan` (markdown), `failed` with `plan: null`.
 */
export const ValidationPlanResponse = Type.Object({
  status: Type.Enum(['none', 'planning', 'ready', 'failed']),
  plan: Type.Union([Type.String(), Type.Null()]),
});
export type ValidationPlanResponse = Static<typeof ValidationPlanResponse>;

/** A validation step: the same shape as an execution step. */
export const ValidationStep = Step;
export type ValidationStep = Step;

/** GET /api/validation/progress, polled every 3 s; `steps` is [] before a plan exists. */
export const ValidationProgress = Type.Object({ steps: Type.Array(ValidationStep) });
export type ValidationProgress = Static<typeof ValidationProgress>;

/** POST /api/validation/approve-step: approve (true), reject (false) or re-execute (true) a step. */
export const ValidationApproveStepBody = Type.Object(
  {
    step_number: DbInteger({ minimum: 1 }),
    approved: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type ValidationApproveStepBody = Static<typeof ValidationApproveStepBody>;

/** Answer of POST /api/validation/approve-step. */
export const ValidationApproveStepResponse = ApproveStepResponse;
export type ValidationApproveStepResponse = ApproveStepResponse;

/**
 * Query of GET /api/validation/agent?message=...&thread_id=... (SSE, `StreamEvent` frames), framed like
 * the execution agent's stream.
 */
export const ValidationAgentQuery = ExecutionAgentQuery;
export type ValidationAgentQuery = Static<typeof ValidationAgentQuery>;
