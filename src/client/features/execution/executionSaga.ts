import { call, put, select, takeEvery, takeLeading } from 'redux-saga/effects';
import type { ExecutionProgress } from '../../../shared/api/execution';
import type { StageId } from '../../../shared/api/stages';
import { EXECUTION, EXECUTION_TEXT, STAGE_INDEX, VALIDATION_ERRORS } from '../../../shared/constants';
import { logError } from '../../common/log';
import { completeStageAndMove } from '../../common/stages/stageSagas';
import { executionApi } from './executionApi';
import { createValidationPlan, triggerValidation } from '../../common/stages/stageStarts';
import { autoRetryDecision, summarise, toViewSteps, type AutoRetryDecision } from '../../common/steps/stepModel';
import { autoApproveNext, stepActionWorker, watchProgress, type StepActionStage } from '../../common/steps/stepActionSagas';
import type { PendingStepActions } from '../../common/steps/stepActions';
import {
  autoApproveToggled,
  autoRetrySkipped,
  autoRetryToggled,
  proceedToValidationFailed,
  proceedToValidationRequested,
  proceedToValidationSucceeded,
  selectAutoApprove,
  selectAutoRetry,
  selectPendingActions,
  stepActionAnswered,
  stepActionFailed,
  stepActionRequested,
  type StepActionRequest,
} from './executionSlice';
import { incrementRetryCount, readRetryCounts } from '../../common/steps/retryCounts';

/** The execution stage's step actions (POST /api/execution/approve-step and cancel-step). */
export const executionStepActions: StepActionStage<StepActionRequest> = {
  stage: 'execution',
  selectPending: selectPendingActions,
  request: ({ projectId, planId, stepNumber, kind }) =>
    kind === 'cancel'
      ? executionApi.endpoints.cancelStep.initiate({ projectId, plan_id: planId, step_number: stepNumber })
      : executionApi.endpoints.approveStep.initiate({ projectId, plan_id: planId, step_number: stepNumber, approved: kind !== 'reject' }),
  answered: stepActionAnswered,
  failed: stepActionFailed,
};

/** Projects whose move to validation Auto-Approve has started in this page's life. */
const autoProceeded = new Set<number>();

/**
 * Auto-approve and auto-retry (part 2 section 4), run on every progress answer and when a toggle is
 * turned on. At most one automatic action per answer: the approval of the next waiting step, else the
 * re-execution of the first failed step (up to `EXECUTION.autoRetryMax` times per step, counted in
 * local storage). Steps with a pending action are left alone.
 */
export function* autoActions(projectId: number, progress: ExecutionProgress): Generator {
  if (progress.id === null || !Array.isArray(progress.steps)) return;
  const steps = toViewSteps(progress.steps);
  const request = (stepNumber: number, kind: StepActionRequest['kind'], source: StepActionRequest['source']) =>
    stepActionRequested({ projectId, planId: progress.id as number, stepNumber, kind, source });

  if ((yield select(selectAutoApprove)) as boolean) {
    // With Auto-Approve on, the move to validation starts by itself once every step completed (once).
    if (summarise(steps, progress.totalSteps).allCompleted && !autoProceeded.has(projectId)) {
      autoProceeded.add(projectId);
      yield put(proceedToValidationRequested({ projectId }));
      return;
    }
    if ((yield call(autoApproveNext, executionStepActions, steps, (stepNumber: number) => request(stepNumber, 'approve', 'autoApprove'))) as boolean) return;
  }
  if ((yield select(selectAutoRetry)) as boolean) {
    const pending = (yield select(selectPendingActions)) as PendingStepActions;
    const decision = autoRetryDecision(steps, (yield call(readRetryCounts)) as Record<string, number>, EXECUTION.autoRetryMax, projectId) as AutoRetryDecision;
    yield put(autoRetrySkipped(decision && 'skip' in decision ? EXECUTION_TEXT.autoRetrySkipped(decision.skip.number, decision.reason, EXECUTION.autoRetryMax) : null));
    if (decision && 'retry' in decision && !pending[String(decision.retry.number)]) {
      yield call(incrementRetryCount, projectId, decision.retry.number);
      yield put(request(decision.retry.number, 'reexecute', 'autoRetry'));
    }
  }
}

/** Watches progress answers (from the stage's polling) and the two toggles. */
export function* autoActionsWatcher(): Generator {
  yield call(watchProgress<ExecutionProgress>, executionApi.endpoints.getExecutionProgress.matchFulfilled, [autoApproveToggled.type, autoRetryToggled.type], autoActions);
}

const EXECUTION_STAGE = 'execution' satisfies StageId;

/**
 * 'Proceed to Validation Stage' (part 2 section 4, "Move to validation"): asks the validation agent for
 * the plan (`VALIDATION.planPrompt`) and waits for its model-end event, triggers validation with no
 * message, and on `success` completes the execution stage and makes validation (index 4) current.
 */
export function* proceedToValidationWorker(action: ReturnType<typeof proceedToValidationRequested>): Generator {
  const { projectId } = action.payload;
  let failure: string = VALIDATION_ERRORS.createPlan;
  try {
    yield call(createValidationPlan, projectId);
    failure = VALIDATION_ERRORS.start;
    if (!((yield call(triggerValidation, projectId)) as boolean)) throw new Error(VALIDATION_ERRORS.startShort);
    failure = VALIDATION_ERRORS.moveToValidation;
    yield call(completeStageAndMove, projectId, EXECUTION_STAGE, STAGE_INDEX.validation);
    yield put(proceedToValidationSucceeded());
  } catch (error) {
    yield call(logError, 'execution.proceedToValidation', error);
    yield put(proceedToValidationFailed(failure));
  }
}

/** The execution stage's workflows (STYLE.md habit 2): step actions, auto-approve/retry, the move to validation. */
export function* executionSaga(): Generator {
  yield takeEvery(stepActionRequested.type, stepActionWorker<StepActionRequest>, executionStepActions);
  yield takeLeading(proceedToValidationRequested.type, proceedToValidationWorker);
  yield call(autoActionsWatcher);
}
