import type { PayloadAction, UnknownAction } from '@reduxjs/toolkit';
import { call, put, select, take } from 'redux-saga/effects';
import type { RootState } from '../../app/store';
import { logError } from '../log';
import { runEndpoint } from '../../api/runEndpoint';
import { nextAutoApproval, type ViewStep } from './stepModel';
import type { PendingStepActions, StepActionPayload } from './stepActions';

/**
 * The step-action sagas both step stages share (execution and validation), as stepActions.ts is their
 * reducers' share: what differs is named by a `StepActionStage`.
 */
export interface StepActionStage<R extends StepActionPayload = StepActionPayload> {
  /** Names the stage in logged failures ('execution', 'validation'). */
  stage: string;
  selectPending: (state: RootState) => PendingStepActions;
  /** The stage's approve-step (approved true or false) or cancel-step call for `action`, as an RTK Query thunk. */
  request(action: R): unknown;
  answered(outcome: { stepNumber: number; id: string; status: string }): UnknownAction;
  failed(outcome: { stepNumber: number; id: string }): UnknownAction;
}

/**
 * Sends one step action: approve and re-execute send `approved: true`, reject `false`, cancel the cancel
 * call. The request's id (set by the reducer) makes a second click or an automatic action on a step that
 * is already pending a no-op. Failures are only logged (part 2 section 8): the card is usable again.
 */
export function* stepActionWorker<R extends StepActionPayload>(stage: StepActionStage<R>, action: PayloadAction<R, string, { id: string }>): Generator {
  const { stepNumber } = action.payload;
  const pending = (yield select(stage.selectPending)) as PendingStepActions;
  if (pending[String(stepNumber)]?.id !== action.meta.id) return;
  try {
    const answer = (yield call(runEndpoint<{ status: string }>, stage.request(action.payload))) as { status: string };
    yield put(stage.answered({ stepNumber, id: action.meta.id, status: answer.status }));
  } catch (error) {
    yield call(logError, `${stage.stage}.approveStep`, error);
    yield put(stage.failed({ stepNumber, id: action.meta.id }));
  }
}

/**
 * Auto-Approve (part 2 section 4): asks for the approval of the next waiting step (never a dangerous
 * one) unless an action on it is pending. True when it asked.
 */
export function* autoApproveNext(stage: Pick<StepActionStage, 'selectPending'>, steps: readonly ViewStep[], approve: (stepNumber: number) => UnknownAction): Generator<unknown, boolean> {
  const pending = (yield select(stage.selectPending)) as PendingStepActions;
  const next = nextAutoApproval(steps);
  if (!next || pending[String(next.number)]) return false;
  yield put(approve(next.number));
  return true;
}

/** A progress poll's answer for a project (RTK Query's `matchFulfilled` of a query taking the project id). */
interface ProgressMatcher<P> {
  (action: unknown): action is { payload: P; meta: { arg: { originalArgs: number } } };
}

/**
 * Calls `onProgress` with the latest progress answer on every answer of the stage's poll and whenever
 * one of `toggles` (boolean actions: Auto-Approve, Auto-Retry) is turned on; turning one off needs nothing.
 */
export function* watchProgress<P>(
  fulfilled: ProgressMatcher<P>,
  toggles: readonly string[],
  onProgress: (projectId: number, progress: P) => Generator,
): Generator {
  let last: { projectId: number; progress: P } | null = null;
  for (;;) {
    const action = (yield take([fulfilled, ...toggles])) as UnknownAction;
    if (fulfilled(action)) last = { projectId: action.meta.arg.originalArgs, progress: action.payload };
    else if (!(action as PayloadAction<boolean>).payload) continue;
    if (last) yield call(onProgress, last.projectId, last.progress);
  }
}
