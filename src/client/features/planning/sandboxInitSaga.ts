import { call, delay, put, takeLeading } from 'redux-saga/effects';
import type { ExecutionTriggerResponse } from '../../../shared/api/execution';
import type { SandboxInitializeResponse, SandboxStatusResponse } from '../../../shared/api/sandbox';
import type { StageId } from '../../../shared/api/stages';
import { CALL_ERRORS, SANDBOX_INIT, SANDBOX_INIT_ERRORS, STAGE_INDEX } from '../../../shared/constants';
import { errorMessage } from '../../api/apiSlice';
import { stageStartsApi } from '../../common/stages/stageStartsApi';
import { runEndpoint } from '../../api/runEndpoint';
import { completeStageAndMove } from '../../common/stages/stageSagas';
import { confirmFailed, confirmSucceeded, implementationConfirmRequested } from './planningSlice';
import { sandboxApi } from '../../common/sandbox/sandboxApi';
import {
  implementationConfirmed,
  initialisationAttempted,
  initialisationStarted,
  initialisationFailed,
  sandboxReady,
} from '../../common/sandbox/sandboxSlice';

/** A failure of the confirm flow decided here (not a failed call), shown as it is. */
class ConfirmFlowError extends Error {}

/**
 * The sandbox initialisation loop (part 1 section 4): up to `SANDBOX_INIT.maxAttempts` attempts,
 * `SANDBOX_INIT.retryIntervalMs` apart while the container is still being created. Each attempt
 * checks the provisioning status (FAILED ends the flow with the spec's message), then asks for
 * initialisation: `success` ends the loop, `failed` ends the flow with the server's detail,
 * `creating` waits and tries again. Out of attempts: 'Timeout waiting for sandbox initialization'.
 */
export function* initialiseSandbox(projectId: number): Generator {
  for (let attempt = 1; attempt <= SANDBOX_INIT.maxAttempts; attempt += 1) {
    yield put(initialisationAttempted(attempt));
    const status = (yield call(
      runEndpoint<SandboxStatusResponse>,
      sandboxApi.endpoints.getSandboxStatus.initiate(projectId, { subscribe: false, forceRefetch: true }),
    )) as SandboxStatusResponse;
    if (status.status === 'FAILED') throw new ConfirmFlowError(SANDBOX_INIT_ERRORS.containerFailed);

    const result = (yield call(
      runEndpoint<SandboxInitializeResponse>,
      sandboxApi.endpoints.initializeSandbox.initiate(projectId),
    )) as SandboxInitializeResponse;
    if (result.status === SANDBOX_INIT.successStatus) return;
    if (result.status === 'failed') throw new ConfirmFlowError(result.detail || SANDBOX_INIT_ERRORS.failed);
    if (attempt < SANDBOX_INIT.maxAttempts) yield delay(SANDBOX_INIT.retryIntervalMs);
  }
  throw new ConfirmFlowError(SANDBOX_INIT_ERRORS.timeout);
}

/** POST /api/execution/trigger with 'Start execution'; anything but `success` ends the flow with its detail. */
export function* triggerExecution(projectId: number): Generator {
  const answer = (yield call(
    runEndpoint<ExecutionTriggerResponse>,
    stageStartsApi.endpoints.triggerExecution.initiate({ projectId }),
  )) as ExecutionTriggerResponse;
  if (answer.status !== 'success') throw new ConfirmFlowError(answer.detail || SANDBOX_INIT_ERRORS.failed);
}

const IMPLEMENTATION = 'implementation' satisfies StageId;

/** Completes 'implementation' and makes the execution stage (index 3) current (planning's stage move). */
export function* moveToExecution(projectId: number): Generator {
  yield call(completeStageAndMove, projectId, IMPLEMENTATION, STAGE_INDEX.execution);
}

/**
 * Implementation confirm (part 1 section 4): sandbox status and initialisation, then the execution
 * trigger, then 'implementation' completed and stage index 3. Any failure is shown; one that mentions
 * an API key or credentials (`SANDBOX_INIT_ERRORS.credentialsPattern`) also offers 'Return to
 * Requirements', since those credentials are collected there.
 */
export function* implementationConfirmWorker(action: ReturnType<typeof implementationConfirmRequested>): Generator {
  const { projectId } = action.payload;
  yield put(initialisationStarted({ projectId }));
  try {
    if (!Number.isSafeInteger(projectId) || projectId <= 0) throw new ConfirmFlowError(CALL_ERRORS.invalidProjectId);
    yield call(initialiseSandbox, projectId);
    yield put(sandboxReady());
    yield call(triggerExecution, projectId);
    yield call(moveToExecution, projectId);
    yield put(implementationConfirmed());
    yield put(confirmSucceeded({ projectId, stage: IMPLEMENTATION }));
  } catch (error) {
    // A failed call rejects with its ApiError, whose message is the server's detail (part 1 section 8).
    const message = error instanceof ConfirmFlowError ? error.message : errorMessage(error, SANDBOX_INIT_ERRORS.failed);
    yield put(initialisationFailed({ message, credentials: SANDBOX_INIT_ERRORS.credentialsPattern.test(message) }));
    // The Implementation stage's confirm button shows planning's confirm state.
    yield put(confirmFailed({ projectId, stage: IMPLEMENTATION, message }));
  }
}

/** Listens for the Implementation stage's confirm (`implementation/confirmRequested`); a second click while it runs is ignored. */
export function* sandboxInitSaga(): Generator {
  yield takeLeading(implementationConfirmRequested.type, implementationConfirmWorker);
}
