import { useEffect, useState, type ReactElement } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import styled from 'styled-components';
import { PAYMENT_SUCCESS, PRODUCT_NAME } from '../../../shared/constants';
import { Button } from '../../common/components/Button';
import { ButtonRow, Card, CenteredPage } from '../../common/components/Card';
import { Spinner } from '../../common/components/Spinner';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';
import { logError } from '../../common/log';
import type { HomeNavigationState } from '../projects/navigationState';
import { useGetCreditsQuery } from './creditsApi';
import { formatCredits } from './formatCredits';

const HOME_AFTER_PAYMENT: HomeNavigationState = { paymentSuccess: true };

/** The amount from the query as '+$25.00'; anything that is not a positive amount shows as unknown, never '+$abc'. */
export function amountText(raw: string | null): string {
  const value = Number(raw);
  return raw !== null && /^\s*\d+(\.\d+)?\s*$/.test(raw) && Number.isFinite(value) && value > 0 ? `+$${value.toFixed(2)}` : '—';
}

/**
 * Provider statuses of a payment that went through (Dodo's 'succeeded', the test checkout's, Stripe's
 * 'paid'/'complete'); no status at all is the checkout's plain return. Anything else ('failed',
 * 'cancelled', 'processing') is not a success and is not shown as one.
 */
const SUCCESS_STATUSES = new Set(['succeeded', 'success', 'successful', 'paid', 'complete', 'completed', 'active']);

export function isSuccessfulStatus(status: string | null): boolean {
  return status === null || SUCCESS_STATUSES.has(status.trim().toLowerCase());
}

/** Ours: the page's title and text when the query says the payment did not go through. */
const NOT_COMPLETED = {
  title: 'Payment Not Completed',
  text: 'The payment provider reports this payment as not completed, so no credits were added by it. Your balance is below.',
} as const;

/**
 * /payment-success and /credits/success (part 2 sections 2 and 4): 'Processing Payment...' while the
 * new balance is fetched 1 s after arrival, then the success card with the amount, balance and payment
 * details, and an 8-second countdown to /app (which shows the payment banner).
 */
export function PaymentSuccessPage(): ReactElement {
  useDocumentTitle(`${PAYMENT_SUCCESS.title} - ${PRODUCT_NAME}`);
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const [fetchBalance, setFetchBalance] = useState(false);
  const credits = useGetCreditsQuery(undefined, { skip: !fetchBalance });
  const processing = !fetchBalance || credits.isLoading;
  const paymentId = params.get('payment_id');
  const status = params.get('status');
  const succeeded = isSuccessfulStatus(status);
  const [secondsLeft, setSecondsLeft] = useState<number>(PAYMENT_SUCCESS.redirectCountdownSeconds);

  useEffect(() => {
    const timer = window.setTimeout(() => setFetchBalance(true), PAYMENT_SUCCESS.balanceFetchDelayMs);
    return () => window.clearTimeout(timer);
  }, []);

  useEffect(() => {
    if (credits.error) logError('credits', credits.error);
  }, [credits.error]);

  useEffect(() => {
    // A payment that did not go through is read, not hurried away to the 'payment successful' banner.
    if (processing || !succeeded) return undefined;
    if (secondsLeft <= 0) {
      navigate('/app', { state: HOME_AFTER_PAYMENT });
      return undefined;
    }
    const timer = window.setTimeout(() => setSecondsLeft((s) => s - 1), 1_000);
    return () => window.clearTimeout(timer);
  }, [processing, succeeded, secondsLeft, navigate]);

  if (processing) {
    return (
      <CenteredPage>
        <Card>
          <Spinner label={PAYMENT_SUCCESS.processing} />
        </Card>
      </CenteredPage>
    );
  }

  return (
    <CenteredPage>
      <Card>
        <h1>{succeeded ? PAYMENT_SUCCESS.title : NOT_COMPLETED.title}</h1>
        {!succeeded && <p role="alert">{NOT_COMPLETED.text}</p>}
        <Figures>
          {succeeded && (
            <div>
              <dt>{PAYMENT_SUCCESS.creditsAdded}</dt>
              <dd data-testid="credits-added">{amountText(params.get('amount'))}</dd>
            </div>
          )}
          <div>
            <dt>{PAYMENT_SUCCESS.newBalance}</dt>
            <dd data-testid="new-balance">{credits.data ? formatCredits(credits.data.credits_balance) : '—'}</dd>
          </div>
        </Figures>
        <Details aria-label={PAYMENT_SUCCESS.paymentDetails}>
          <h2>{PAYMENT_SUCCESS.paymentDetails}</h2>
          <dl>
            <dt>{PAYMENT_SUCCESS.paymentId}</dt>
            <dd>{paymentId ?? '—'}</dd>
            <dt>{PAYMENT_SUCCESS.status}</dt>
            <dd>{status ?? '—'}</dd>
          </dl>
        </Details>
        <ButtonRow>
          <Button $variant="primary" onClick={() => navigate('/app', succeeded ? { state: HOME_AFTER_PAYMENT } : undefined)}>
            {PAYMENT_SUCCESS.goToProjects}
          </Button>
          <Button onClick={() => void credits.refetch()} disabled={credits.isFetching}>
            {PAYMENT_SUCCESS.refreshBalance}
          </Button>
        </ButtonRow>
        {succeeded && <p role="status">{PAYMENT_SUCCESS.redirecting(secondsLeft)}</p>}
      </Card>
    </CenteredPage>
  );
}

const Figures = styled.dl`
  display: grid;
  grid-template-columns: 1fr 1fr;
  gap: ${({ theme }) => theme.space(4)};
  margin: ${({ theme }) => theme.space(4)} 0;
  dt { color: ${({ theme }) => theme.colors.textMuted}; font-size: ${({ theme }) => theme.fontSizes.sm}; }
  dd { margin: 0; font-family: ${({ theme }) => theme.fonts.mono}; font-size: ${({ theme }) => theme.fontSizes.xl}; }
`;

const Details = styled.section`
  text-align: left;
  padding: ${({ theme }) => theme.space(4)};
  border-radius: ${({ theme }) => theme.radii.md};
  background: ${({ theme }) => theme.colors.background};
  h2 { font-size: ${({ theme }) => theme.fontSizes.md}; margin-bottom: ${({ theme }) => theme.space(2)}; }
  dl { display: grid; grid-template-columns: auto 1fr; gap: ${({ theme }) => theme.space(1)} ${({ theme }) => theme.space(4)}; margin: 0; }
  dt { color: ${({ theme }) => theme.colors.textMuted}; }
  dd { margin: 0; font-family: ${({ theme }) => theme.fonts.mono}; word-break: break-all; }
`;
