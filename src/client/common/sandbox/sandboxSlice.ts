import { createSlice, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import { rootReducer } from '../../app/store';

/**
 * The sandbox's preparation as the Implementation stage's confirm runs it (planning/sandboxInitSaga.ts):
 * the flow tells this slice each phase, from `initialisationStarted` to done or failed.
 */

export type SandboxInitPhase = 'idle' | 'checking' | 'initialising' | 'starting' | 'done' | 'failed';

export interface SandboxInitState {
  phase: SandboxInitPhase;
  projectId: number | null;
  /** The initialisation attempt under way (1..30). */
  attempt: number;
  error: string | null;
  /** The error is about missing API keys or credentials: offer 'Return to Requirements'. */
  credentials: boolean;
}

const initialState: SandboxInitState = { phase: 'idle', projectId: null, attempt: 0, error: null, credentials: false };

export const sandboxSlice = createSlice({
  name: 'sandbox',
  initialState,
  reducers: {
    /** The confirm flow began for a project (a second one while it runs is ignored: the flow takes the leading click). */
    initialisationStarted(state, action: PayloadAction<{ projectId: number }>) {
      if (state.phase === 'checking' || state.phase === 'initialising' || state.phase === 'starting') return;
      return { ...initialState, phase: 'checking', projectId: action.payload.projectId };
    },
    initialisationAttempted(state, action: PayloadAction<number>) {
      state.phase = 'initialising';
      state.attempt = action.payload;
    },
    /** The sandbox answered `success`; execution is being triggered and the stage moved on. */
    sandboxReady(state) {
      state.phase = 'starting';
    },
    implementationConfirmed(state) {
      state.phase = 'done';
    },
    initialisationFailed(state, action: PayloadAction<{ message: string; credentials: boolean }>) {
      state.phase = 'failed';
      state.error = action.payload.message;
      state.credentials = action.payload.credentials;
    },
    initialisationDismissed() {
      return initialState;
    },
  },
  selectors: {
    selectSandboxInit: (state) => state,
    selectSandboxInitBusy: (state) => state.phase === 'checking' || state.phase === 'initialising' || state.phase === 'starting',
  },
});

export const { initialisationStarted, initialisationAttempted, sandboxReady, implementationConfirmed, initialisationFailed, initialisationDismissed } =
  sandboxSlice.actions;

declare module '../../app/store' {
  export interface LazyLoadedSlices extends WithSlice<typeof sandboxSlice> {}
}

// In the store's reducer from when this module (a lazy chunk's) loads; the selectors read the initial state before that.
const injectedSandboxSlice = sandboxSlice.injectInto(rootReducer);
export const { selectSandboxInit, selectSandboxInitBusy } = injectedSandboxSlice.selectors;
