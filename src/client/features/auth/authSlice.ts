import { createSlice } from '@reduxjs/toolkit';

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
export const { selectSignOutPending } = authSlice.selectors;
