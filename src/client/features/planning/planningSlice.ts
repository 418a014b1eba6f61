import { createAction, createSlice, isAnyOf, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import type { AnalyzerBody } from '../../../shared/api/planning';
import { rootReducer } from '../../app/store';

/** The stages with a confirm button. */
export type ConfirmStage = 'requirements' | 'architecture' | 'implementation';

export interface ConfirmPayload {
  projectId: number;
}

/** Requirements confirm: generate the architecture plan, complete 'requirements', move to 'architecture'. */
export const requirementsConfirmRequested = createAction<ConfirmPayload>('requirements/confirmRequested');
/** Architecture confirm: generate the implementation plan, complete 'architecture', move to index 2. */
export const architectureConfirmRequested = createAction<ConfirmPayload>('architecture/confirmRequested');
/**
 * Implementation confirm: complete 'implementation' and move to index 3. The sandbox initialisation of
 * part 1 section 4 comes before that and belongs to the sandbox feature, which extends this flow.
 */
export const implementationConfirmRequested = createAction<ConfirmPayload>('implementation/confirmRequested');

/** A repository was chosen with its branch and environment blocks: analyse it, then gather requirements. */
export const analysisRequested = createAction<AnalyzerBody & { projectId: number }>('analysis/requested');

/** `${projectId}:${stage}` */
export const confirmKey = (projectId: number, stage: ConfirmStage): string => `${projectId}:${stage}`;

export interface PlanningState {
  /** Confirm flows running, by `confirmKey`. */
  confirming: Record<string, true>;
  /** The last confirm failure, by `confirmKey`. */
  confirmErrors: Record<string, string>;
}

const initialState: PlanningState = { confirming: {}, confirmErrors: {} };

const confirmStages = {
  [requirementsConfirmRequested.type]: 'requirements',
  [architectureConfirmRequested.type]: 'architecture',
  [implementationConfirmRequested.type]: 'implementation',
} as const satisfies Record<string, ConfirmStage>;

/** The confirm flows' progress, so that the buttons show it and a second click does nothing. */
export const planningSlice = createSlice({
  name: 'planning',
  initialState,
  reducers: {
    confirmSucceeded(state, action: PayloadAction<{ projectId: number; stage: ConfirmStage }>) {
      delete state.confirming[confirmKey(action.payload.projectId, action.payload.stage)];
    },
    confirmFailed(state, action: PayloadAction<{ projectId: number; stage: ConfirmStage; message: string }>) {
      const key = confirmKey(action.payload.projectId, action.payload.stage);
      delete state.confirming[key];
      state.confirmErrors[key] = action.payload.message;
    },
  },
  extraReducers: (builder) => {
    builder.addMatcher(
      isAnyOf(requirementsConfirmRequested, architectureConfirmRequested, implementationConfirmRequested),
      (state, action) => {
        const key = confirmKey(action.payload.projectId, confirmStages[action.type]);
        state.confirming[key] = true;
        delete state.confirmErrors[key];
      },
    );
  },
  selectors: {
    selectConfirming: (state, projectId: number, stage: ConfirmStage): boolean => Boolean(state.confirming[confirmKey(projectId, stage)]),
    selectConfirmError: (state, projectId: number, stage: ConfirmStage): string | null =>
      state.confirmErrors[confirmKey(projectId, stage)] ?? null,
  },
});

export const { confirmSucceeded, confirmFailed } = planningSlice.actions;

declare module '../../app/store' {
  export interface LazyLoadedSlices extends WithSlice<typeof planningSlice> {}
}

// In the store's reducer from when this module (a lazy chunk's) loads; the selectors read the initial state before that.
const injectedPlanningSlice = planningSlice.injectInto(rootReducer);
export const { selectConfirming, selectConfirmError } = injectedPlanningSlice.selectors;
