import { createSlice, nanoid, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import { rootReducer } from '../../app/store';
import { executionApi } from './executionApi';
import { toViewSteps } from '../../common/steps/stepModel';
import { stepActionReducers, stepActions, type PendingStepAction, type StepActionKind } from '../../common/steps/stepActions';

export type { PendingStepAction, StepActionKind } from '../../common/steps/stepActions';

export interface ExecutionState {
  autoApprove: boolean;
  autoRetry: boolean;
  /** Why Auto-Retry last left a failed step alone (null when it did not). */
  autoRetryNote: string | null;
  /** Keyed by step number. */
  pendingActions: Record<string, PendingStepAction>;
  proceed: { status: 'idle' | 'pending' | 'failed'; error: string | null };
  /** Text a step card offers the chat's message box ('Change step N: '), new id each time. */
  offeredDraft?: { id: string; text: string };
}

const initialState: ExecutionState = {
  autoApprove: false,
  autoRetry: false,
  autoRetryNote: null,
  pendingActions: {},
  proceed: { status: 'idle', error: null },
};

export interface StepActionRequest {
  projectId: number;
  planId: number;
  stepNumber: number;
  kind: StepActionKind;
  /** Who asked: a person on a card, or the auto-approve / auto-retry sagas. */
  source: 'user' | 'autoApprove' | 'autoRetry';
}

export const executionSlice = createSlice({
  name: 'execution',
  initialState,
  reducers: {
    autoApproveToggled(state, action: PayloadAction<boolean>) {
      state.autoApprove = action.payload;
    },
    autoRetryToggled(state, action: PayloadAction<boolean>) {
      state.autoRetry = action.payload;
      if (!action.payload) state.autoRetryNote = null;
    },
    autoRetrySkipped(state, action: PayloadAction<string | null>) {
      state.autoRetryNote = action.payload;
    },
    /** A step card's 'Change with the agent': the chat shows its Chat tab with this text to finish. */
    chatDraftOffered: {
      reducer(state, action: PayloadAction<string, string, { id: string }>) {
        state.offeredDraft = { id: action.meta.id, text: action.payload };
      },
      prepare(text: string) {
        return { payload: text, meta: { id: nanoid() } };
      },
    },
    ...stepActionReducers<StepActionRequest>(),

    proceedToValidationRequested(state, _action: PayloadAction<{ projectId: number }>) {
      state.proceed = { status: 'pending', error: null };
    },
    proceedToValidationSucceeded(state) {
      state.proceed = { status: 'idle', error: null };
    },
    proceedToValidationFailed(state, action: PayloadAction<string>) {
      state.proceed = { status: 'failed', error: action.payload };
    },
  },
  extraReducers: (builder) => {
    // A pending action ends when the step shows the result of the call: in progress or failed.
    builder.addMatcher(executionApi.endpoints.getExecutionProgress.matchFulfilled, (state, action) => {
      if (Array.isArray(action.payload.steps)) stepActions.progressed(state.pendingActions, toViewSteps(action.payload.steps));
    });
  },
  selectors: {
    selectAutoApprove: (state) => state.autoApprove,
    selectAutoRetry: (state) => state.autoRetry,
    selectAutoRetryNote: (state) => state.autoRetryNote,
    selectPendingActions: (state) => state.pendingActions,
    selectOfferedDraft: (state) => state.offeredDraft,
    selectProceed: (state) => state.proceed,
  },
});

export const {
  autoApproveToggled,
  autoRetryToggled,
  autoRetrySkipped,
  chatDraftOffered,
  stepActionRequested,
  stepActionFailed,
  stepActionAnswered,
  proceedToValidationRequested,
  proceedToValidationSucceeded,
  proceedToValidationFailed,
} = executionSlice.actions;

declare module '../../app/store' {
  export interface LazyLoadedSlices extends WithSlice<typeof executionSlice> {}
}

// In the store's reducer from when this module (a lazy chunk's) loads; the selectors read the initial state before that.
const injectedExecutionSlice = executionSlice.injectInto(rootReducer);
export const { selectAutoApprove, selectAutoRetry, selectAutoRetryNote, selectPendingActions, selectProceed, selectOfferedDraft } = injectedExecutionSlice.selectors;
