import { createSlice, type WithSlice } from '@reduxjs/toolkit';
import { rootReducer } from '../../app/store';

export interface AuthState {
  /** 'pending' from the Sign Out click until the browser leaves for /. */
  signOutStatus: 'idle' | 'pending';
}

const initialState: AuthState = { signOutStatus: 'idle' };

export const authSlice = createSlice({
  name: 'auth',
  initialState,
  reducers: {
    /** The user chose Sign Out; `signOutSaga` runs the flow. */
    signOutRequested(state) {
      state.signOutStatus = 'pending';
    },
  },
  selectors: {
    selectSignOutPending: (state) => state.signOutStatus === 'pending',
  },
});

export const { signOutRequested } = authSlice.actions;

declare module '../../app/store' {
  export interface LazyLoadedSlices extends WithSlice<typeof authSlice> {}
}

// In the store's reducer from when this module (a lazy chunk's) loads; the selectors read the initial state before that.
const injectedAuthSlice = authSlice.injectInto(rootReducer);
export const { selectSignOutPending } = injectedAuthSlice.selectors;
