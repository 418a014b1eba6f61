import { createSlice, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import { rootReducer } from '../../app/store';
import { toViewSteps } from '../../common/steps/stepModel';
import { stepActionReducers, stepActions, type PendingStepActions, type StepActionKind } from '../../common/steps/stepActions';
import { validationApi } from './validationApi';

export interface ValidationState {
  /** The project the flows below belong to; opening another project's stage starts them afresh. */
  projectId: number | null;
  autoApprove: boolean;
  pendingActions: PendingStepActions;
  /** Creating the plan (the agent's stream) and triggering validation when the stage opens without steps. */
  start: { status: 'idle' | 'planning' | 'triggering' | 'failed'; error: string | null };
  /**
   * After every step completed: the documentation check, its generation, then the redirect home —
   * only when this visit completed the validation (`moveHome`): a person who comes back to a validated
   * project stays on the stage and can run the checks again.
   */
  documentation: { status: 'idle' | 'checking' | 'generating' | 'done' | 'failed'; error: string | null; moveHome?: boolean };
}

const initialState: ValidationState = {
  projectId: null,
  autoApprove: false,
  pendingActions: {},
  start: { status: 'idle', error: null },
  documentation: { status: 'idle', error: null },
};

export interface ValidationStepActionRequest {
  projectId: number;
  stepNumber: number;
  kind: StepActionKind;
  source: 'user' | 'autoApprove';
}

export const validationSlice = createSlice({
  name: 'validation',
  initialState,
  reducers: {
    /** The validation stage opened for a project: its saga creates the plan and triggers if needed. */
    validationStageOpened(state, action: PayloadAction<{ projectId: number }>) {
      if (state.projectId === action.payload.projectId) return;
      Object.assign(state, initialState, { projectId: action.payload.projectId, autoApprove: state.autoApprove });
    },
    autoApproveToggled(state, action: PayloadAction<boolean>) {
      state.autoApprove = action.payload;
    },
    ...stepActionReducers<ValidationStepActionRequest>(),
    validationStartProgressed(state, action: PayloadAction<'planning' | 'triggering'>) {
      state.start = { status: action.payload, error: null };
    },
    validationStartEnded(state) {
      state.start = { status: 'idle', error: null };
    },
    validationStartFailed(state, action: PayloadAction<string>) {
      state.start = { status: 'failed', error: action.payload };
    },
    documentationRequested(state, _action: PayloadAction<{ projectId: number }>) {
      state.documentation = { status: 'checking', error: null };
    },
    documentationGenerating(state) {
      state.documentation = { status: 'generating', error: null };
    },
    documentationDone(state, action: PayloadAction<{ moveHome: boolean }>) {
      state.documentation = { status: 'done', error: null, moveHome: action.payload.moveHome };
    },
    documentationFailed(state, action: PayloadAction<string>) {
      state.documentation = { status: 'failed', error: action.payload };
    },
  },
  extraReducers: (builder) => {
    builder.addMatcher(validationApi.endpoints.getValidationProgress.matchFulfilled, (state, action) => {
      if (Array.isArray(action.payload.steps)) stepActions.progressed(state.pendingActions, toViewSteps(action.payload.steps));
    });
  },
  selectors: {
    selectValidationAutoApprove: (state) => state.autoApprove,
    selectValidationPending: (state) => state.pendingActions,
    selectValidationStart: (state) => state.start,
    selectValidationDocumentation: (state) => state.documentation,
  },
});

export const {
  validationStageOpened,
  autoApproveToggled,
  stepActionRequested,
  stepActionFailed,
  stepActionAnswered,
  validationStartProgressed,
  validationStartEnded,
  validationStartFailed,
  documentationRequested,
  documentationGenerating,
  documentationDone,
  documentationFailed,
} = validationSlice.actions;

declare module '../../app/store' {
  export interface LazyLoadedSlices extends WithSlice<typeof validationSlice> {}
}

const injected = validationSlice.injectInto(rootReducer);
export const { selectValidationAutoApprove, selectValidationPending, selectValidationStart, selectValidationDocumentation } = injected.selectors;
