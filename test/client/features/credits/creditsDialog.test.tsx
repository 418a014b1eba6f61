import { act, screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { CREDIT_ERRORS, CREDITS_TEXT, HOME, INSTALLATION_ID_KEY, paymentFailureText } from '../../../../src/shared/constants';
import type { CreatePaymentBody } from '../../../../src/shared/api/credits';
import { paymentRequested } from '../../../../src/client/features/credits/creditsSlice';
import { NETWORK_ERROR } from '../../../../src/client/api/apiSlice';
import { renderApp } from '../../utils/renderWithProviders';
import { api, server } from '../../utils/server';
import { makeTransaction, useCreditsServer } from './creditsHandlers';

/** A stand-in for the tab the saga opens at the click. */
function fakeTab() {
  const tab = { opener: {} as unknown, closed: false, location: { href: '' }, close: jest.fn() };
  const open = jest.spyOn(window, 'open').mockImplementation(() => tab as unknown as Window);
  return { tab, open };
}

async function openDialog(options: { fakeTimers?: boolean } = {}) {
  const rendered = renderApp('/app', options);
  await rendered.user.click(await screen.findByRole('button', { name: HOME.creditsButton }));
  const dialog = screen.getByRole('dialog', { name: CREDITS_TEXT.title });
  return { ...rendered, dialog };
}

const amountInput = (): HTMLInputElement => screen.getByLabelText(CREDITS_TEXT.amountLabel);
const payButton = (): HTMLElement => screen.getByRole('button', { name: CREDITS_TEXT.payButton });

describe('credits dialog', () => {
  beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

  it('shows the balance with 2 decimals, the quick amounts, the history and the about-credits note', async () => {
    useCreditsServer({
      balance: 12.5,
      transactions: [
        makeTransaction({ id: 3, amount: 25, payment_method: 'local', status: 'pending', description: 'Test checkout (no money moves)' }),
        makeTransaction({ id: 2, transaction_type: 'use', amount: 0.0125, payment_method: 'usage', description: 'requirementsAgent' }),
        makeTransaction({ id: 1 }),
      ],
    });
    const { dialog } = await openDialog();
    expect(await within(dialog).findByText('$12.50')).toBeInTheDocument();
    for (const quick of [10, 25, 50, 100]) expect(within(dialog).getByRole('button', { name: `$${quick}` })).toBeInTheDocument();
    const rows = within(await within(dialog).findByRole('list', { name: CREDITS_TEXT.history })).getAllByRole('listitem');
    expect(rows).toHaveLength(3);
    expect(rows[0]).toHaveClass('transaction-pending');
    expect(rows[1]).toHaveClass('transaction-completed');
    expect(within(rows[0]!).getByText('pending')).toHaveClass('status-pending');
    expect(within(rows[0]!).getByText('+$25.00')).toBeInTheDocument();
    expect(within(rows[1]!).getByText('−$0.01')).toBeInTheDocument();
    expect(within(dialog).getByText(new RegExp(CREDITS_TEXT.aboutOneCredit.replace('$', '\\$')))).toHaveTextContent(CREDITS_TEXT.neverExpire);
  });

  it('says how much of the balance is test credit from the local test checkout, and nothing when none is', async () => {
    useCreditsServer({ balance: 30, testCredits: 25 });
    const { dialog } = await openDialog();
    expect(await within(dialog).findByTestId('test-credits')).toHaveTextContent(CREDITS_TEXT.testCredits('$25.00'));
  });

  it('shows no test-credit line for a balance of real credit', async () => {
    useCreditsServer({ balance: 30 });
    const { dialog } = await openDialog();
    expect(await within(dialog).findByText('$30.00')).toBeInTheDocument();
    expect(within(dialog).queryByTestId('test-credits')).toBeNull();
  });

  it('polls the balance every 10 seconds while open', async () => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    try {
      const fake = useCreditsServer({ balance: 3 });
      await openDialog({ fakeTimers: true });
      await screen.findByText('$3.00');
      const calls = fake.creditsCalls;
      fake.balance = 28;
      await act(async () => jest.advanceTimersByTime(10_000));
      expect(await screen.findByText('$28.00')).toBeInTheDocument();
      expect(fake.creditsCalls).toBe(calls + 1);
    } finally {
      jest.useRealTimers();
    }
  });

  it('accepts only digits and one decimal point in the amount', async () => {
    useCreditsServer();
    const { user } = await openDialog();
    await user.type(amountInput(), '1a2.3.4-e5');
    expect(amountInput()).toHaveValue('12.345');
  });

  it('fills the amount from a quick amount', async () => {
    useCreditsServer();
    const { user } = await openDialog();
    await user.click(screen.getByRole('button', { name: '$50' }));
    expect(amountInput()).toHaveValue('50');
    expect(payButton()).toBeEnabled();
  });

  it('disables Pay when the amount is empty or 0', async () => {
    useCreditsServer();
    const { user } = await openDialog();
    expect(payButton()).toBeDisabled();
    await user.type(amountInput(), '0');
    expect(payButton()).toBeDisabled();
    await user.type(amountInput(), '.00');
    expect(payButton()).toBeDisabled();
  });

  it.each([
    ['0.5', CREDIT_ERRORS.belowMinimum],
    ['10000.01', CREDIT_ERRORS.aboveMaximum],
    ['.', CREDIT_ERRORS.invalidAmount],
  ])('shows the alert for %s and asks nothing of the server', async (typed, message) => {
    const fake = useCreditsServer();
    const open = jest.spyOn(window, 'open');
    const { user } = await openDialog();
    await user.type(amountInput(), typed);
    await user.click(payButton());
    expect(screen.getByRole('alert')).toHaveTextContent(message);
    expect(fake.payments).toEqual([]);
    expect(open).not.toHaveBeenCalled();
  });

  it("pays: 'Creating Link...' with inputs disabled, the link opens in the tab, the amount clears", async () => {
    const fake = useCreditsServer();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    server.use(
      http.post(api('/user/credits/create-dodo-payment'), async ({ request }) => {
        fake.payments.push((await request.json()) as CreatePaymentBody);
        await gate;
        return HttpResponse.json({ payment_link: fake.link });
      }),
    );
    const { tab, open } = fakeTab();
    const { user, store } = await openDialog();
    await user.type(amountInput(), '25');
    await user.click(payButton());

    const creating = await screen.findByRole('button', { name: CREDITS_TEXT.creatingLink });
    expect(creating).toBeDisabled();
    expect(amountInput()).toBeDisabled();
    expect(screen.getByRole('button', { name: '$10' })).toBeDisabled();
    // No tab before the link exists (an empty tab used to open at the click).
    expect(open).not.toHaveBeenCalled();

    // A second Pay while the link is being created is ignored.
    act(() => {
      store.dispatch(paymentRequested(25));
    });
    release();

    await waitFor(() => expect(open).toHaveBeenCalledWith(`http://localhost${fake.link}`, '_blank'));
    expect(tab.opener).toBeNull();
    expect(fake.payments).toEqual([{ amount: 25 }]);
    expect(amountInput()).toHaveValue('');
    expect(payButton()).toBeDisabled();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows the server message with the support text, opens no tab and keeps the amount', async () => {
    useCreditsServer();
    server.use(http.post(api('/user/credits/create-dodo-payment'), () => HttpResponse.json({ detail: 'The payment provider could not be reached' }, { status: 502 })));
    const { open } = fakeTab();
    const { user } = await openDialog();
    await user.type(amountInput(), '40');
    await user.click(payButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(paymentFailureText('The payment provider could not be reached'));
    expect(open).not.toHaveBeenCalled();
    expect(amountInput()).toHaveValue('40');
    expect(payButton()).toHaveTextContent(CREDITS_TEXT.payButton);
  });

  it("says 'Payment link not received from backend' when the answer has no link", async () => {
    useCreditsServer();
    server.use(http.post(api('/user/credits/create-dodo-payment'), () => HttpResponse.json({})));
    fakeTab();
    const { user } = await openDialog();
    await user.type(amountInput(), '10');
    await user.click(payButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(paymentFailureText(CREDIT_ERRORS.noPaymentLink));
  });

  it('a network failure says so plainly (not "TypeError: Failed to fetch") and opens no tab', async () => {
    useCreditsServer();
    server.use(http.post(api('/user/credits/create-dodo-payment'), () => HttpResponse.error()));
    const { open } = fakeTab();
    const { user } = await openDialog();
    await user.type(amountInput(), '10');
    await user.click(payButton());
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(paymentFailureText(NETWORK_ERROR));
    expect(alert).not.toHaveTextContent(/TypeError|Failed to fetch/);
    expect(open).not.toHaveBeenCalled();
  });

  it('offers the link when the browser blocks the checkout tab', async () => {
    const fake = useCreditsServer();
    jest.spyOn(window, 'open').mockImplementation(() => null);
    const { user } = await openDialog();
    await user.type(amountInput(), '10');
    await user.click(payButton());
    const link = await screen.findByRole('link', { name: 'Open the checkout' });
    expect(link).toHaveAttribute('href', `http://localhost${fake.link}`);
  });

  it("shows 'Failed to load transaction history' when the history fails", async () => {
    useCreditsServer();
    server.use(http.get(api('/user/transactions'), async () => {
      await delay(1);
      return HttpResponse.json({ detail: 'boom' }, { status: 500 });
    }));
    const { dialog } = await openDialog();
    expect(await within(dialog).findByText(CREDIT_ERRORS.transactionsLoad)).toBeInTheDocument();
  });

  it('only logs a balance failure', async () => {
    useCreditsServer();
    server.use(http.get(api('/user/credits'), () => HttpResponse.json({ detail: 'down' }, { status: 500 })));
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const { dialog } = await openDialog();
    await waitFor(() => expect(logged).toHaveBeenCalledWith('[credits]', expect.anything()));
    expect(within(dialog).getByTestId('credits-balance')).toHaveTextContent('$0.00');
  });
});
