import { act, waitFor } from '@testing-library/react';
import { creditsApi } from '../../../../src/client/features/credits/creditsApi';
import { paymentLinkOpened, paymentRequested, selectCreditAmount, selectPaymentInProgress } from '../../../../src/client/features/credits/creditsSlice';
import { CREDITS_TIMING, INSTALLATION_ID_KEY } from '../../../../src/shared/constants';
import { makeAppStore } from '../../utils/store';
import { useCreditsServer } from './creditsHandlers';

/** Lets msw answer and RTK Query settle: runs what is due now and the promises in between. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i += 1) await act(() => jest.advanceTimersByTimeAsync(0));
}

describe('payment saga', () => {
  beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));
  afterEach(() => jest.useRealTimers());

  it('refreshes the transactions every 5 seconds for 5 minutes after the link opens, then stops', async () => {
    jest.useFakeTimers();
    const fake = useCreditsServer();
    const store = makeAppStore();
    const subscription = store.dispatch(creditsApi.endpoints.getTransactions.initiate());
    await settle();
    expect(fake.transactionCalls).toBe(1);

    store.dispatch(paymentLinkOpened('/api/payments/test-checkout/x'));
    jest.advanceTimersByTime(CREDITS_TIMING.transactionRefreshMs - 1);
    await settle();
    expect(fake.transactionCalls).toBe(1);

    jest.advanceTimersByTime(1);
    await settle();
    expect(fake.transactionCalls).toBe(2);

    for (let t = CREDITS_TIMING.transactionRefreshMs; t < CREDITS_TIMING.transactionRefreshWindowMs; t += CREDITS_TIMING.transactionRefreshMs) {
      jest.advanceTimersByTime(CREDITS_TIMING.transactionRefreshMs);
      await settle();
    }
    expect(fake.transactionCalls).toBe(1 + CREDITS_TIMING.transactionRefreshWindowMs / CREDITS_TIMING.transactionRefreshMs);

    jest.advanceTimersByTime(60_000);
    await settle();
    expect(fake.transactionCalls).toBe(1 + 60);
    subscription.unsubscribe();
  });

  it('restarts the 5-minute window when another link opens', async () => {
    jest.useFakeTimers();
    const fake = useCreditsServer();
    const store = makeAppStore();
    const subscription = store.dispatch(creditsApi.endpoints.getTransactions.initiate());
    await settle();
    store.dispatch(paymentLinkOpened('/a'));
    jest.advanceTimersByTime(4 * 60_000);
    await settle();
    store.dispatch(paymentLinkOpened('/b'));
    jest.advanceTimersByTime(4 * 60_000);
    await settle();
    const calls = fake.transactionCalls;
    jest.advanceTimersByTime(CREDITS_TIMING.transactionRefreshMs);
    await settle();
    expect(fake.transactionCalls).toBe(calls + 1);
    subscription.unsubscribe();
  });

  it('runs the payment from the root saga and ignores a second click while the link is created', async () => {
    const fake = useCreditsServer({ link: 'https://checkout.example/s/1' });
    const tab = { opener: {} as unknown, closed: false, location: { href: '' }, close: jest.fn() };
    const open = jest.spyOn(window, 'open').mockImplementation(() => tab as unknown as Window);
    const store = makeAppStore();
    store.dispatch(paymentRequested(25));
    store.dispatch(paymentRequested(25));
    expect(selectPaymentInProgress(store.getState())).toBe(true);
    await waitFor(() => expect(open).toHaveBeenCalledWith('https://checkout.example/s/1', '_blank'));
    expect(open).toHaveBeenCalledTimes(1);
    expect(tab.opener).toBeNull();
    expect(fake.payments).toEqual([{ amount: 25 }]);
    expect(selectPaymentInProgress(store.getState())).toBe(false);
    expect(selectCreditAmount(store.getState())).toBe('');
  });
});
