import { http, HttpResponse } from 'msw';
import type { CreatePaymentBody, CreditsResponse, PaymentLinkResponse, Transaction, TransactionList } from '../../../../src/shared/api/credits';
import type { ErrorResponse } from '../../../../src/shared/api/common';
import { api, server } from '../../utils/server';

/** A fake of the credits endpoints with counters, installed per test with `server.use(...)`. */
export function useCreditsServer(options: { balance?: number; testCredits?: number; transactions?: Transaction[]; link?: string } = {}) {
  const state = {
    balance: options.balance ?? 12.5,
    transactions: options.transactions ?? [],
    link: options.link ?? '/api/payments/test-checkout/3f1c2b9e-1111-4222-8333-444455556666',
    creditsCalls: 0,
    transactionCalls: 0,
    payments: [] as CreatePaymentBody[],
  };
  server.use(
    http.get<never, never, CreditsResponse>(api('/user/credits'), () => {
      state.creditsCalls += 1;
      return HttpResponse.json({ credits_balance: state.balance, ...(options.testCredits ? { test_credits: options.testCredits } : {}) });
    }),
    http.get<never, never, TransactionList>(api('/user/transactions'), () => {
      state.transactionCalls += 1;
      return HttpResponse.json(state.transactions);
    }),
    http.post<never, CreatePaymentBody, PaymentLinkResponse | ErrorResponse>(api('/user/credits/create-dodo-payment'), async ({ request }) => {
      state.payments.push(await request.json());
      return HttpResponse.json({ payment_link: state.link });
    }),
  );
  return state;
}

export function makeTransaction(overrides: Partial<Transaction> = {}): Transaction {
  return {
    id: 1,
    transaction_type: 'add',
    amount: 5,
    payment_method: 'signup',
    status: 'completed',
    created_at: '2025-03-01T12:00:00.000Z',
    description: 'Sign-up credit',
    ...overrides,
  };
}
