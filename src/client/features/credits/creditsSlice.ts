import { createSlice, type PayloadAction, type WithSlice } from '@reduxjs/toolkit';
import { rootReducer } from '../../app/store';

export interface CreditsState {
  /** The amount typed in the credits dialog (digits and one point). */
  amount: string;
  /** 'creating' from the Pay click until the link opens or fails (part 1 section 4). */
  paymentStatus: 'idle' | 'creating';
  /** The alert of the dialog: an amount rule or a payment failure. */
  alert: string | null;
  /** The checkout link the browser would not open in a tab: the dialog offers it to open by hand. */
  blockedLink: string | null;
}

const initialState: CreditsState = { amount: '', paymentStatus: 'idle', alert: null, blockedLink: null };

export const creditsSlice = createSlice({
  name: 'credits',
  initialState,
  reducers: {
    amountChanged(state, action: PayloadAction<string>) {
      state.amount = action.payload;
      state.alert = null;
    },
    /** An amount rule refused the amount before any call. */
    amountRejected(state, action: PayloadAction<string>) {
      state.alert = action.payload;
    },
    /** Pay was clicked with a valid amount (dollars); `creditsSaga` runs the payment. A click while creating is ignored. */
    paymentRequested(state, _action: PayloadAction<number>) {
      if (state.paymentStatus === 'creating') return;
      state.paymentStatus = 'creating';
      state.alert = null;
      state.blockedLink = null;
    },
    checkoutBlocked(state, action: PayloadAction<string>) {
      state.blockedLink = action.payload;
    },
    /** The checkout opened in a new tab: the amount clears and the transactions refresh for a while. */
    paymentLinkOpened(state, _action: PayloadAction<string>) {
      state.paymentStatus = 'idle';
      state.amount = '';
    },
    paymentFailed(state, action: PayloadAction<string>) {
      state.paymentStatus = 'idle';
      state.alert = action.payload;
    },
    alertDismissed(state) {
      state.alert = null;
    },
  },
  selectors: {
    selectCreditAmount: (state) => state.amount,
    selectPaymentInProgress: (state) => state.paymentStatus === 'creating',
    selectCreditsAlert: (state) => state.alert,
    selectBlockedCheckoutLink: (state) => state.blockedLink,
  },
});

export const { amountChanged, amountRejected, paymentRequested, checkoutBlocked, paymentLinkOpened, paymentFailed, alertDismissed } = creditsSlice.actions;

declare module '../../app/store' {
  export interface LazyLoadedSlices extends WithSlice<typeof creditsSlice> {}
}

// In the store's reducer from when this module (a lazy chunk's) loads; the selectors read the initial state before that.
const injectedCreditsSlice = creditsSlice.injectInto(rootReducer);
export const { selectCreditAmount, selectPaymentInProgress, selectCreditsAlert, selectBlockedCheckoutLink } = injectedCreditsSlice.selectors;
