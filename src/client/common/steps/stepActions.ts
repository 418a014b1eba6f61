import { nanoid, type PayloadAction } from '@reduxjs/toolkit';
import type { ViewStep } from './stepModel';

export type StepActionKind = 'approve' | 'reject' | 'reexecute' | 'cancel';

/** An approval, rejection, re-execution or cancel sent for a step and not yet reflected in its status. */
export interface PendingStepAction {
  id: string;
  kind: StepActionKind;
  /** True once the approve-step call answered; from then on a progress answer may clear it. */
  settled: boolean;
}

/** Pending actions keyed by step number (state of the execution and validation slices). */
export type PendingStepActions = Record<string, PendingStepAction>;

/** Statuses that end a step action's loading state (part 2 section 4), plus the server's `rejected`. */
const SETTLING_STATUSES = new Set(['in_progress', 'failed', 'rejected']);

/**
 * The step-action bookkeeping both step stages share, as mutations of their Immer drafts: one action per
 * step at a time (another on the same step is ignored while it is pending), ended by the call's failure,
 * by an answer that shows its result, or by a progress answer after the call answered.
 */
export const stepActions = {
  requested(pending: PendingStepActions, stepNumber: number, id: string, kind: StepActionKind): void {
    const key = String(stepNumber);
    if (!pending[key]) pending[key] = { id, kind, settled: false };
  },
  failed(pending: PendingStepActions, stepNumber: number, id: string): void {
    const key = String(stepNumber);
    if (pending[key]?.id === id) delete pending[key];
  },
  answered(pending: PendingStepActions, stepNumber: number, id: string, status: string): void {
    const key = String(stepNumber);
    const action = pending[key];
    if (action?.id !== id) return;
    if (SETTLING_STATUSES.has(status)) delete pending[key];
    else action.settled = true;
  },
  progressed(pending: PendingStepActions, steps: readonly ViewStep[]): void {
    for (const step of steps) {
      const key = String(step.number);
      if (!pending[key]?.settled) continue;
      if (SETTLING_STATUSES.has(step.status) || step.status === 'completed') delete pending[key];
    }
  },
};

/** What every stage's requested step action names (the slices' `stepActionRequested` payload). */
export interface StepActionPayload {
  stepNumber: number;
  kind: StepActionKind;
}

/** A step slice's state, as far as its step actions go. */
interface StepActionState {
  pendingActions: PendingStepActions;
}

/**
 * The step-action case reducers both step slices spread into their `reducers`, so each slice has its
 * own `stepActionRequested` (an id per request, from `prepare`), `stepActionFailed` and `stepActionAnswered`.
 */
export function stepActionReducers<R extends StepActionPayload>() {
  return {
    /** A step action was asked for; ignored while another action on that step is pending. */
    stepActionRequested: {
      reducer(state: StepActionState, action: PayloadAction<R, string, { id: string }>) {
        stepActions.requested(state.pendingActions, action.payload.stepNumber, action.meta.id, action.payload.kind);
      },
      prepare(request: R) {
        return { payload: request, meta: { id: nanoid() } };
      },
    },
    /** The approve-step call failed (only logged, part 2 section 8): the card is usable again. */
    stepActionFailed(state: StepActionState, action: PayloadAction<{ stepNumber: number; id: string }>) {
      stepActions.failed(state.pendingActions, action.payload.stepNumber, action.payload.id);
    },
    /** The approve-step call answered with the step's new status. */
    stepActionAnswered(state: StepActionState, action: PayloadAction<{ stepNumber: number; id: string; status: string }>) {
      stepActions.answered(state.pendingActions, action.payload.stepNumber, action.payload.id, action.payload.status);
    },
  };
}
