import type { PayloadAction } from '@reduxjs/toolkit';
import { all, call, delay, put, takeLatest, takeLeading } from 'redux-saga/effects';
import type { PaymentLinkResponse } from '../../../shared/api/credits';
import { CREDIT_ERRORS, CREDITS_TIMING, paymentFailureText } from '../../../shared/constants';
import { errorMessage } from '../../api/apiSlice';
import { creditsApi } from './creditsApi';
import { checkoutBlocked, paymentFailed, paymentLinkOpened, paymentRequested } from './creditsSlice';
import { openCheckoutTab } from './paymentTab';

type CreatePaymentRequest = ReturnType<ReturnType<typeof creditsApi.endpoints.createPayment.initiate>>;
type CreatePaymentResult = { data: PaymentLinkResponse } | { error: unknown };

/** POST /api/user/credits/create-dodo-payment through RTK Query; settles with `{ data }` or `{ error }`. */
export function* requestPaymentLink(amount: number): Generator<unknown, CreatePaymentResult, unknown> {
  const request = (yield put(creditsApi.endpoints.createPayment.initiate({ amount }))) as CreatePaymentRequest;
  const result = (yield call(() => request)) as CreatePaymentResult;
  request.reset();
  return result;
}

/**
 * Pay (part 1 section 4): the link is created, a tab opens on it (or, when the browser blocks it, the
 * dialog shows the link), the amount clears. A failure opens nothing and shows '{message} Please try
 * again or contact support if the problem persists.'.
 */
export function* paymentWorker(action: PayloadAction<number>): Generator {
  const result = (yield call(requestPaymentLink, action.payload)) as CreatePaymentResult;
  const link = 'data' in result ? result.data?.payment_link : undefined;
  if (!link) {
    const message = 'error' in result ? errorMessage(result.error, CREDIT_ERRORS.paymentFallback) : CREDIT_ERRORS.noPaymentLink;
    yield put(paymentFailed(paymentFailureText(message)));
    return;
  }
  const opened = (yield call(openCheckoutTab, link)) as boolean;
  if (!opened) yield put(checkoutBlocked(new URL(link, window.location.href).toString()));
  yield put(paymentLinkOpened(link));
}

/** After a link opens, the transaction history refreshes every 5 s for 5 minutes (a new link restarts the window). */
export function* refreshTransactions(): Generator {
  const times = Math.floor(CREDITS_TIMING.transactionRefreshWindowMs / CREDITS_TIMING.transactionRefreshMs);
  for (let i = 0; i < times; i += 1) {
    yield delay(CREDITS_TIMING.transactionRefreshMs);
    yield put(creditsApi.util.invalidateTags(['Transactions']));
  }
}

/** A second Pay click while a link is being created is ignored (`takeLeading`). */
export function* creditsSaga(): Generator {
  yield all([takeLeading(paymentRequested.type, paymentWorker), takeLatest(paymentLinkOpened.type, refreshTransactions)]);
}
