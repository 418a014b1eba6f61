import type { EventChannel } from 'redux-saga';
import { call, take } from 'redux-saga/effects';
import type { ValidationTriggerResponse } from '../../../shared/api/validation';
import { VALIDATION } from '../../../shared/constants';
import { runEndpoint } from '../../api/runEndpoint';
import { createAgentStreamChannel, type AgentStreamEvent } from '../chat/streamChannel';
import { stageStartsApi } from './stageStartsApi';

/** Starting validation, from 'Proceed to Validation Stage' (execution) or the validation stage itself. */

/**
 * Streams `VALIDATION.planPrompt` to the validation agent (GET /api/validation/agent) until its
 * model-end event; the agent saves the plan on the way. Throws on a failed stream.
 */
export function* createValidationPlan(projectId: number): Generator {
  const request = { path: '/validation/agent', method: 'GET' as const, query: { message: VALIDATION.planPrompt }, projectId };
  const channel = (yield call(createAgentStreamChannel, request)) as EventChannel<AgentStreamEvent>;
  try {
    for (;;) {
      const event = (yield take(channel)) as AgentStreamEvent;
      if (event.type === 'stream/ended') return;
      if (event.type === 'stream/failed') throw new Error(event.message);
    }
  } finally {
    channel.close();
  }
}

/** POST /api/validation/trigger; true when it answered `success`. `message` undefined sends `{}` (the execution stage). */
export function* triggerValidation(projectId: number, message?: string): Generator<unknown, boolean> {
  const answer = (yield call(
    runEndpoint<ValidationTriggerResponse>,
    stageStartsApi.endpoints.triggerValidation.initiate(message === undefined ? { projectId } : { projectId, message }),
  )) as ValidationTriggerResponse;
  return answer.status === VALIDATION.successStatus;
}
