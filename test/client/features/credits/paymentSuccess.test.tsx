import { act, screen } from '@testing-library/react';
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

describe('payment success page', () => {
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    jest.useFakeTimers();
  });
  afterEach(() => jest.useRealTimers());

  it.each(['/payment-success', '/credits/success'])(
    '%s: processing, the balance fetched after 1 s, then success with the amount, balance and details',
    async (path) => {
      const fake = useCreditsServer({ balance: 30 });
      renderApp(`${path}?amount=25&payment_id=pay_123&status=succeeded`, { fakeTimers: true });
      expect(await screen.findByText(PAYMENT_SUCCESS.processing)).toBeInTheDocument();
      await advance(PAYMENT_SUCCESS.balanceFetchDelayMs - 1);
      expect(fake.creditsCalls).toBe(0);
      expect(screen.getByText(PAYMENT_SUCCESS.processing)).toBeInTheDocument();

      await advance(1);
      expect(fake.creditsCalls).toBe(1);
      await answered();
      expect(screen.getByRole('heading', { name: PAYMENT_SUCCESS.title })).toBeInTheDocument();
      expect(screen.getByText(PAYMENT_SUCCESS.creditsAdded)).toBeInTheDocument();
      expect(screen.getByTestId('credits-added')).toHaveTextContent('+$25.00');
      expect(screen.getByText(PAYMENT_SUCCESS.newBalance)).toBeInTheDocument();
      expect(screen.getByTestId('new-balance')).toHaveTextContent('$30.00');
      const details = screen.getByRole('region', { name: PAYMENT_SUCCESS.paymentDetails });
      expect(details).toHaveTextContent('pay_123');
      expect(details).toHaveTextContent('succeeded');
    },
  );

  it('counts down 8 seconds, then goes to /app with the payment banner', async () => {
    useCreditsServer({ balance: 30 });
    const { router } = renderApp('/payment-success?amount=10&payment_id=pay_9&status=succeeded', { fakeTimers: true });
    await advance(PAYMENT_SUCCESS.balanceFetchDelayMs);
    await answered();
    expect(screen.getByRole('status')).toHaveTextContent(PAYMENT_SUCCESS.redirecting(8));
    for (let i = 0; i < 3; i += 1) await advance(1_000);
    expect(screen.getByRole('status')).toHaveTextContent(PAYMENT_SUCCESS.redirecting(5));
    for (let i = 0; i < 4; i += 1) await advance(1_000);
    expect(screen.getByRole('status')).toHaveTextContent(PAYMENT_SUCCESS.redirecting(1));
    await advance(999);
    expect(router.state.location.pathname).toBe('/payment-success');
    await advance(1);
    expect(router.state.location.pathname).toBe('/app');
    expect(await screen.findByText(HOME.paymentBanner)).toBeInTheDocument();
  });

  it('Refresh Balance fetches the balance again; Go to Projects leaves at once', async () => {
    const fake = useCreditsServer({ balance: 30 });
    const { user, router } = renderApp('/credits/success?amount=50', { fakeTimers: true });
    await advance(PAYMENT_SUCCESS.balanceFetchDelayMs);
    await answered();
    fake.balance = 80;
    await user.click(screen.getByRole('button', { name: PAYMENT_SUCCESS.refreshBalance }));
    for (let i = 0; i < 50 && screen.getByTestId('new-balance').textContent !== '$80.00'; i += 1) await advance(10);
    expect(fake.creditsCalls).toBe(2);
    expect(screen.getByTestId('new-balance')).toHaveTextContent('$80.00');
    await user.click(screen.getByRole('button', { name: PAYMENT_SUCCESS.goToProjects }));
    expect(router.state.location.pathname).toBe('/app');
  });

  it('a failed status is not shown as a success: no credits added, no countdown to the payment banner', async () => {
    useCreditsServer({ balance: 30 });
    const { router } = renderApp('/payment-success?amount=25&payment_id=pay_x&status=failed', { fakeTimers: true });
    await advance(PAYMENT_SUCCESS.balanceFetchDelayMs);
    await answered();
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Payment Not Completed');
    expect(screen.queryByText(PAYMENT_SUCCESS.title)).not.toBeInTheDocument();
    expect(screen.queryByTestId('credits-added')).not.toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('no credits were added');
    expect(screen.getByRole('region', { name: PAYMENT_SUCCESS.paymentDetails })).toHaveTextContent('failed');
    for (let i = 0; i < 10; i += 1) await advance(1_000);
    expect(router.state.location.pathname).toBe('/payment-success');
  });

  it('a bad amount in the query is not shown as credits ("+$abc")', async () => {
    useCreditsServer({ balance: 30 });
    renderApp('/payment-success?amount=abc&status=succeeded', { fakeTimers: true });
    await advance(PAYMENT_SUCCESS.balanceFetchDelayMs);
    await answered();
    expect(screen.getByTestId('credits-added')).toHaveTextContent('—');
    expect(screen.getByTestId('credits-added')).not.toHaveTextContent('abc');
  });
});
