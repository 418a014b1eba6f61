import { act, screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { PaymentRecord } from '../../../../src/shared/api/payments';
import { PAYMENT_RECORD_TEXT } from '../../../../src/client/features/credits/PaymentSuccessPage';
import { api, server } from '../../utils/server';
import { HOME, INSTALLATION_ID_KEY, PAYMENT_SUCCESS } from '../../../../src/shared/constants';
import { renderApp } from '../../utils/renderWithProviders';
import { useCreditsServer } from './creditsHandlers';

/** Lets msw answer and React render, without moving the fake clock further than `ms`. */
async function advance(ms: number): Promise<void> {
  await act(() => jest.advanceTimersByTimeAsync(ms));
  for (let i = 0; i < 40; i += 1) await act(() => jest.advanceTimersByTimeAsync(0));
}

/** Steps the clock 10 ms at a time until the balance has arrived (msw answers on a timer). */
async function answered(): Promise<void> {
  for (let waited = 0; waited < 1_000; waited += 10) {
    if (screen.queryByRole('heading', { level: 1 })) return;
    await advance(10);
  }
  throw new Error('the balance never arrived');
}

const PURCHASE = '3f1c2b9e-1111-4222-8333-444455556666';

/** The server's records of this account's payments, by purchase id; anything else answers 404. */
function usePaymentRecords(records: PaymentRecord[]): { lookups: URLSearchParams[] } {
  const state = { lookups: [] as URLSearchParams[] };
  server.use(
    http.get(api('/payments/lookup'), ({ request }) => {
      const query = new URL(request.url).searchParams;
      state.lookups.push(query);
      const found = records.find((r) => r.purchase_id === query.get('purchase') || (r.payment_id !== null && r.payment_id === query.get('payment_id')));
      return found ? HttpResponse.json(found) : HttpResponse.json({ detail: 'No payment of yours has this id' }, { status: 404 });
    }),
  );
  return state;
}

const record = (changes: Partial<PaymentRecord> = {}): PaymentRecord => ({
  purchase_id: PURCHASE,
  payment_id: 'pay_123',
  status: 'completed',
  amount: 25,
  currency: 'USD',
  created_at: '2026-11-28T03:00:00.000Z',
  completed_at: '2026-11-28T03:00:05.000Z',
  ...changes,
});

describe('payment success page', () => {
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    jest.useFakeTimers();
  });
  afterEach(() => jest.useRealTimers());

  it.each(['/payment-success', '/credits/success'])(
    "%s: processing, then the server's record of the payment: the amount it credited, the balance and the details",
    async (path) => {
      const fake = useCreditsServer({ balance: 30 });
      const records = usePaymentRecords([record()]);
      renderApp(`${path}?purchase=${PURCHASE}&payment_id=pay_123&status=succeeded&amount=999`, { fakeTimers: true });
      expect(await screen.findByText(PAYMENT_SUCCESS.processing)).toBeInTheDocument();
      await advance(PAYMENT_SUCCESS.balanceFetchDelayMs - 1);
      expect(fake.creditsCalls).toBe(0);
      await advance(1);
      await answered();
      expect(records.lookups[0]!.get('purchase')).toBe(PURCHASE);
      expect(screen.getByRole('heading', { name: PAYMENT_SUCCESS.title })).toBeInTheDocument();
      // The server's amount, never the address's.
      expect(screen.getByTestId('credits-added')).toHaveTextContent('+$25.00');
      expect(screen.getByTestId('new-balance')).toHaveTextContent('$30.00');
      const details = screen.getByRole('region', { name: PAYMENT_SUCCESS.paymentDetails });
      expect(details).toHaveTextContent('pay_123');
      expect(details).toHaveTextContent('completed');
    },
  );

  it('counts down 8 seconds after a completed payment, then goes to /app with the payment banner', async () => {
    useCreditsServer({ balance: 30 });
    usePaymentRecords([record()]);
    const { router } = renderApp(`/payment-success?purchase=${PURCHASE}`, { fakeTimers: true });
    await advance(PAYMENT_SUCCESS.balanceFetchDelayMs);
    await answered();
    expect(screen.getByRole('status')).toHaveTextContent(PAYMENT_SUCCESS.redirecting(8));
    for (let i = 0; i < 7; i += 1) await advance(1_000);
    expect(screen.getByRole('status')).toHaveTextContent(PAYMENT_SUCCESS.redirecting(1));
    await advance(1_000);
    expect(router.state.location.pathname).toBe('/app');
    expect(await screen.findByText(HOME.paymentBanner)).toBeInTheDocument();
  });

  it('a payment the provider has not confirmed says it is still processing, then shows it credited once it is', async () => {
    useCreditsServer({ balance: 30 });
    const pending = record({ status: 'pending', payment_id: null, completed_at: null });
    const records = [pending];
    usePaymentRecords(records);
    renderApp(`/payment-success?purchase=${PURCHASE}&payment_id=pay_123&status=succeeded`, { fakeTimers: true });
    await advance(PAYMENT_SUCCESS.balanceFetchDelayMs);
    await answered();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(PAYMENT_RECORD_TEXT.processingTitle);
    expect(screen.queryByTestId('credits-added')).not.toBeInTheDocument();
    records[0] = record();
    await advance(3_000);
    for (let i = 0; i < 400 && !screen.queryByTestId('credits-added'); i += 1) await advance(10);
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(PAYMENT_SUCCESS.title);
    expect(screen.getByTestId('credits-added')).toHaveTextContent('+$25.00');
  });

  it.each([
    ['any address with a made-up payment', '/payment-success?amount=10&payment_id=pay_123'],
    ['no query at all', '/payment-success'],
  ])('%s: no success, nothing shown as credited, no countdown', async (_what, url) => {
    useCreditsServer({ balance: 30 });
    usePaymentRecords([]);
    const { router } = renderApp(url, { fakeTimers: true });
    await advance(PAYMENT_SUCCESS.balanceFetchDelayMs);
    await answered();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(PAYMENT_RECORD_TEXT.unknownTitle);
    expect(screen.queryByText(PAYMENT_SUCCESS.title)).not.toBeInTheDocument();
    expect(screen.queryByTestId('credits-added')).not.toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('nothing was credited');
    for (let i = 0; i < 10; i += 1) await advance(1_000);
    expect(router.state.location.pathname).toBe('/payment-success');
  });

  it('a failed payment is not shown as a success', async () => {
    useCreditsServer({ balance: 30 });
    usePaymentRecords([record({ status: 'failed', completed_at: null })]);
    renderApp(`/payment-success?purchase=${PURCHASE}&status=succeeded`, { fakeTimers: true });
    await advance(PAYMENT_SUCCESS.balanceFetchDelayMs);
    await answered();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent(PAYMENT_RECORD_TEXT.notCompletedTitle);
    expect(screen.queryByTestId('credits-added')).not.toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent(PAYMENT_RECORD_TEXT.notCompleted('failed'));
  });
});
