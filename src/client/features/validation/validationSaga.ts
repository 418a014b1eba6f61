import type { EventChannel } from 'redux-saga';
import { call, put, select, take, takeEvery, takeLatest } from 'redux-saga/effects';
import type { DocumentationResponse } from '../../../shared/api/documentation';
import type { ValidationPlanResponse, ValidationProgress } from '../../../shared/api/validation';
import type { ProjectState, StageId } from '../../../shared/api/stages';
import { DOCUMENTATION, DOCUMENTATION_ERRORS, isDocumentationMissing, isQuickstartMissing, VALIDATION, VALIDATION_ERRORS } from '../../../shared/constants';
import { logError } from '../../common/log';
import { createAgentStreamChannel, type AgentStreamEvent } from '../../common/chat/streamChannel';
import { documentationApi } from '../../common/documentation/documentationApi';

import { summarise, toViewSteps } from '../../common/steps/stepModel';
import { autoApproveNext, stepActionWorker, watchProgress, type StepActionStage } from '../../common/steps/stepActionSagas';
import { runEndpoint } from '../../api/runEndpoint';
import { errorMessage, errorStatus } from '../../api/apiSlice';
import { stagesApi } from '../../common/stages/stagesApi';
import { createValidationPlan, triggerValidation } from '../../common/stages/stageStarts';
import { validationApi } from './validationApi';
import {
  autoApproveToggled,
  documentationDone,
  documentationFailed,
  documentationGenerating,
  documentationRequested,
  selectValidationAutoApprove,
  selectValidationPending,
  stepActionAnswered,
  stepActionFailed,
  stepActionRequested,
  validationStageOpened,
  validationStartEnded,
  validationStartFailed,
  validationStartProgressed,
  type ValidationStepActionRequest,
} from './validationSlice';

const VALIDATION_STAGE = 'validation' satisfies StageId;

/** The validation stage's step actions (POST /api/validation/approve-step and cancel-step). */
export const validationStepActions: StepActionStage<ValidationStepActionRequest> = {
  stage: 'validation',
  selectPending: selectValidationPending,
  request: ({ projectId, stepNumber, kind }) =>
    kind === 'cancel'
      ? validationApi.endpoints.cancelValidationStep.initiate({ projectId, step_number: stepNumber })
      : validationApi.endpoints.approveValidationStep.initiate({ projectId, step_number: stepNumber, approved: kind !== 'reject' }),
  answered: stepActionAnswered,
  failed: stepActionFailed,
};

/**
 * The stage opened: when the project has no validation steps yet, the plan is created (unless the
 * agent already wrote one) and validation triggered with `{ message }`.
 */
export function* startValidationWorker(action: ReturnType<typeof validationStageOpened>): Generator {
  const { projectId } = action.payload;
  try {
    const progress = (yield call(runEndpoint<ValidationProgress>, validationApi.endpoints.getValidationProgress.initiate(projectId, { forceRefetch: true }))) as ValidationProgress;
    if (Array.isArray(progress.steps) && progress.steps.length) return;
    const plan = (yield call(runEndpoint<ValidationPlanResponse>, validationApi.endpoints.getValidationPlan.initiate(projectId, { forceRefetch: true }))) as ValidationPlanResponse;
    if (plan.status !== 'ready' && plan.status !== 'planning') {
      yield put(validationStartProgressed('planning'));
      try {
        yield call(createValidationPlan, projectId);
      } catch (error) {
        yield call(logError, 'validation.createPlan', error);
        yield put(validationStartFailed(VALIDATION_ERRORS.createPlan));
        return;
      }
    }
    yield put(validationStartProgressed('triggering'));
    if (!((yield call(triggerValidation, projectId, VALIDATION.triggerMessage)) as boolean)) throw new Error('trigger refused');
    yield put(validationStartEnded());
  } catch (error) {
    yield call(logError, 'validation.start', error);
    yield put(validationStartFailed(VALIDATION_ERRORS.startProcess));
  }
}

/** Streams the documentation generation (POST /api/documentation/generate) until its end event. */
function* generateDocumentation(): Generator {
  const channel = (yield call(createAgentStreamChannel, {
    path: '/documentation/generate',
    body: { message: DOCUMENTATION.generatePrompt },
  })) as EventChannel<AgentStreamEvent>;
  try {
    for (;;) {
      const event = (yield take(channel)) as AgentStreamEvent;
      if (event.type === 'stream/ended') return;
      // Its status travels with it: a 409 says why the server will not document yet.
      if (event.type === 'stream/failed') throw Object.assign(new Error(event.message), { status: event.status });
    }
  } finally {
    channel.close();
  }
}

/**
 * Every validation step completed (part 2 section 4): the documentation is read; if it or the quick
 * start is missing (or out of date) it is generated; the validation stage is marked completed; then the page goes home.
 */
export function* documentationWorker(action: ReturnType<typeof documentationRequested>): Generator {
  const { projectId } = action.payload;
  const alreadyValidated = (yield call(isValidationCompleted, projectId)) as boolean;
  try {
    const current = (yield call(
      runEndpoint<DocumentationResponse>,
      documentationApi.endpoints.getCurrentDocumentation.initiate(projectId, { forceRefetch: true }),
    )) as DocumentationResponse;
    // Missing, or written before results that differ from today's (the server says so): written anew.
    if (isDocumentationMissing(current.documentation) || isQuickstartMissing(current.quickstart) || current.out_of_date) {
      yield put(documentationGenerating());
      yield call(generateDocumentation);
      yield call(runEndpoint, documentationApi.endpoints.getCurrentDocumentation.initiate(projectId, { forceRefetch: true }));
    }
  } catch (error) {
    yield call(logError, 'validation.documentation', error);
    // A refusal of the server's says why (a check without a result); anything else, the spec's text.
    yield put(documentationFailed(errorStatus(error) === 409 ? errorMessage(error) : DOCUMENTATION_ERRORS.loadOrGenerate));
    return;
  }
  if (alreadyValidated) {
    yield put(documentationDone({ moveHome: false }));
    return;
  }
  try {
    yield call(runEndpoint, stagesApi.endpoints.updateStage.initiate({ projectId, stageId: VALIDATION_STAGE, changes: { is_completed: true } }));
  } catch (error) {
    // The server decides from its own record of the checks (409 with why): the page stays on the checks.
    yield call(logError, 'validation.completeStage', error);
    yield put(documentationFailed(errorMessage(error, DOCUMENTATION_ERRORS.loadOrGenerate)));
    return;
  }
  yield put(documentationDone({ moveHome: true }));
}

/** Whether the validation stage was already marked completed (an earlier visit validated the project). */
function* isValidationCompleted(projectId: number): Generator {
  try {
    const state = (yield call(
      runEndpoint<ProjectState>,
      stagesApi.endpoints.getProjectState.initiate(projectId, { forceRefetch: true }),
    )) as ProjectState;
    return state.stages.some((stage) => stage.stage_id === VALIDATION_STAGE && stage.is_completed);
  } catch {
    // Unknown (the stage shows its own load error): behave as on a first validation, the documents' flow.
    return false;
  }
}

/**
 * On every progress answer and when Auto-Approve is turned on: approves the next waiting step (never a
 * dangerous one); makes the trigger call when a step failed (once per set of failed steps); and starts
 * the documentation once every step completed.
 */
export function* progressWatcher(): Generator {
  const triggeredFor = new Set<string>();
  const documented = new Set<number>();
  function* onProgress(projectId: number, progress: ValidationProgress): Generator {
    if (!Array.isArray(progress.steps)) return;
    const steps = toViewSteps(progress.steps);
    if ((yield select(selectValidationAutoApprove)) as boolean) {
      yield call(autoApproveNext, validationStepActions, steps, (stepNumber: number) => stepActionRequested({ projectId, stepNumber, kind: 'approve', source: 'autoApprove' }));
    }
    const failed = steps.filter((s) => s.status === 'failed').map((s) => s.number);
    const failedKey = `${projectId}:${failed.join(',')}`;
    if (failed.length && !triggeredFor.has(failedKey)) {
      triggeredFor.add(failedKey);
      try {
        yield call(triggerValidation, projectId, VALIDATION.triggerMessage);
      } catch (error) {
        yield call(logError, 'validation.trigger', error);
      }
    }
    if (summarise(steps).allCompleted && !documented.has(projectId)) {
      documented.add(projectId);
      yield put(documentationRequested({ projectId }));
    }
  }
  yield call(watchProgress<ValidationProgress>, validationApi.endpoints.getValidationProgress.matchFulfilled, [autoApproveToggled.type], onProgress);
}

/** The validation stage's workflows (STYLE.md habit 2). */
export function* validationSaga(): Generator {
  yield takeEvery(stepActionRequested.type, stepActionWorker<ValidationStepActionRequest>, validationStepActions);
  yield takeLatest(validationStageOpened.type, startValidationWorker);
  yield takeLatest(documentationRequested.type, documentationWorker);
  yield call(progressWatcher);
}
