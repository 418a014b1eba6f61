import type { CreatePaymentBody, CreditsResponse, PaymentLinkResponse, TransactionList } from '../../../shared/api/credits';
import type { PaymentLookupQuery, PaymentRecord } from '../../../shared/api/payments';
import { CREDITS_TIMING } from '../../../shared/constants';
import { apiSlice } from '../../api/apiSlice';

export const creditsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getCredits: build.query<CreditsResponse, void>({
      query: () => '/user/credits',
      providesTags: ['Credits'],
    }),
    getTransactions: build.query<TransactionList, void>({
      query: () => '/user/transactions',
      providesTags: ['Transactions'],
    }),
    /** The server's record of one of the caller's payments (the payment success page). */
    lookupPayment: build.query<PaymentRecord, PaymentLookupQuery>({
      query: (ids) => ({ url: '/payments/lookup', params: ids }),
    }),
    /** Records a pending purchase and answers the checkout page (part 1 section 7). */
    createPayment: build.mutation<PaymentLinkResponse, CreatePaymentBody>({
      query: (body) => ({ url: '/user/credits/create-dodo-payment', method: 'POST', body }),
      invalidatesTags: ['Transactions'],
    }),
  }),
});

/** The balance, polled every 10 s while shown (part 1 section 9), paused while the window is unfocused. */
export function useCredits(): ReturnType<typeof creditsApi.useGetCreditsQuery> {
  return creditsApi.useGetCreditsQuery(undefined, { pollingInterval: CREDITS_TIMING.balancePollMs, skipPollingIfUnfocused: true });
}

export const { useGetCreditsQuery, useGetTransactionsQuery, useLookupPaymentQuery } = creditsApi;
