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

/** The amount from the query as '25.00'; anything that is not a number shows as given. */
function amountText(raw: string | null): string {
  const value = Number(raw);
  return raw !== null && raw.trim() !== '' && Number.isFinite(value) ? value.toFixed(2) : (raw ?? '0.00');
}

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
  const [secondsLeft, setSecondsLeft] = useState<number>(PAYMENT_SUCCESS.redirectCountdownSeconds);

  useEffect(() => {
    const timer = window.setTimeout(() => setFetchBalance(true), PAYMENT_SUCCESS.balanceFetchDelayMs);
    return () => window.clearTimeout(timer);
  }, []);

  useEffect(() => {
    if (credits.error) logError('credits', credits.error);
  }, [credits.error]);

  useEffect(() => {
    if (processing) return undefined;
    if (secondsLeft <= 0) {
      navigate('/app', { state: HOME_AFTER_PAYMENT });
      return undefined;
    }
    const timer = window.setTimeout(() => setSecondsLeft((s) => s - 1), 1_000);
    return () => window.clearTimeout(timer);
  }, [processing, secondsLeft, navigate]);

  if (processing) {
    return (
      <CenteredPage>
        <Card>
          <Spinner label={PAYMENT_SUCCESS.processing} />
        </Card>
      </CenteredPage>
    );
  }

  const paymentId = params.get('payment_id');
  const status = params.get('status');
  return (
    <CenteredPage>
      <Card>
        <h1>{PAYMENT_SUCCESS.title}</h1>
        <Figures>
          <div>
            <dt>{PAYMENT_SUCCESS.creditsAdded}</dt>
            <dd data-testid="credits-added">+${amountText(params.get('amount'))}</dd>
          </div>
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
          <Button $variant="primary" onClick={() => navigate('/app', { state: HOME_AFTER_PAYMENT })}>
            {PAYMENT_SUCCESS.goToProjects}
          </Button>
          <Button onClick={() => void credits.refetch()} disabled={credits.isFetching}>
            {PAYMENT_SUCCESS.refreshBalance}
          </Button>
        </ButtonRow>
        <p role="status">{PAYMENT_SUCCESS.redirecting(secondsLeft)}</p>
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
