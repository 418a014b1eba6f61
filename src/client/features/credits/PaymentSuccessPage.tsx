import { useEffect, useState, type ReactElement } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import styled from 'styled-components';
import type { PaymentRecord } from '../../../shared/api/payments';
import { PAYMENT_SUCCESS, PRODUCT_NAME } from '../../../shared/constants';
import { errorStatus } from '../../api/apiSlice';
import { Button } from '../../common/components/Button';
import { ButtonRow, Card, CenteredPage } from '../../common/components/Card';
import { Spinner } from '../../common/components/Spinner';
import { useDocumentTitle } from '../../common/hooks/useDocumentTitle';
import { logError } from '../../common/log';
import type { HomeNavigationState } from '../../common/navigationState';
import { useGetCreditsQuery, useLookupPaymentQuery } from './creditsApi';
import { formatCredits } from './formatCredits';

const HOME_AFTER_PAYMENT: HomeNavigationState = { paymentSuccess: true };
/** While the provider has not confirmed the payment, the record is asked again this often. */
const PENDING_POLL_MS = 3_000;
const PURCHASE_ID = /^[0-9a-f-]{36}$/;

/** Ours: what the page says when the server's record is not a completed payment (the documents name none). */
export const PAYMENT_RECORD_TEXT = {
  processingTitle: 'Payment Processing',
  processing: 'The payment provider has not confirmed this payment yet, so no credits have been added by it. This page checks again every few seconds.',
  notCompletedTitle: 'Payment Not Completed',
  notCompleted: (status: string): string => `This payment is ${status}: no credits were added by it. Your balance is below.`,
  unknownTitle: 'No Such Payment',
  unknown: 'We have no record of this payment for your account, so nothing was credited by it. Your balance is below.',
} as const;

/** The amount the server credited, as '+$25.00'. */
export const creditedText = (record: PaymentRecord): string => `+$${record.amount.toFixed(2)}`;

/**
 * /payment-success and /credits/success (part 2 sections 2 and 4): 'Processing Payment...', then the
 * server's record of the payment, looked up by the purchase (our id in the return address) or the
 * provider's payment id, for this account only. 'Payment Successful' with the amount credited only when
 * the server completed it; while the provider has not confirmed it, that it is still processing; the
 * address's own amount or status is never shown as credited. After a success, an 8-second countdown to /app.
 */
export function PaymentSuccessPage(): ReactElement {
  useDocumentTitle(`${PAYMENT_SUCCESS.title} - ${PRODUCT_NAME}`);
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const purchase = params.get('purchase');
  const paymentId = params.get('payment_id');
  const ids = purchase && PURCHASE_ID.test(purchase) ? { purchase } : paymentId ? { payment_id: paymentId.slice(0, 200) } : null;
  const [fetchBalance, setFetchBalance] = useState(false);
  const lookup = useLookupPaymentQuery(ids ?? {}, { skip: !ids || !fetchBalance });
  // A pending payment is asked about again until the provider confirms it (a second subscription that polls).
  useLookupPaymentQuery(ids ?? {}, { skip: !ids || lookup.data?.status !== 'pending', pollingInterval: PENDING_POLL_MS });
  const record = lookup.data;
  const credits = useGetCreditsQuery(undefined, { skip: !fetchBalance });
  const completed = record?.status === 'completed';
  const [secondsLeft, setSecondsLeft] = useState<number>(PAYMENT_SUCCESS.redirectCountdownSeconds);

  useEffect(() => {
    const timer = window.setTimeout(() => setFetchBalance(true), PAYMENT_SUCCESS.balanceFetchDelayMs);
    return () => window.clearTimeout(timer);
  }, []);

  const pending = record?.status === 'pending';
  // Once the provider confirmed it, the balance is read anew.
  const refetchCredits = credits.refetch;
  useEffect(() => {
    if (completed && fetchBalance) void refetchCredits();
  }, [completed, fetchBalance, refetchCredits]);

  useEffect(() => {
    if (credits.error) logError('credits', credits.error);
  }, [credits.error]);

  const processing = !fetchBalance || credits.isLoading || (ids !== null && lookup.isLoading);
  useEffect(() => {
    // Only a payment the server completed is hurried on to the 'payment successful' banner.
    if (processing || !completed) return undefined;
    if (secondsLeft <= 0) {
      navigate('/app', { state: HOME_AFTER_PAYMENT });
      return undefined;
    }
    const timer = window.setTimeout(() => setSecondsLeft((s) => s - 1), 1_000);
    return () => window.clearTimeout(timer);
  }, [processing, completed, secondsLeft, navigate]);

  if (processing) {
    return (
      <CenteredPage>
        <Card>
          <Spinner label={PAYMENT_SUCCESS.processing} />
        </Card>
      </CenteredPage>
    );
  }

  const unknown = !ids || errorStatus(lookup.error) === 404 || errorStatus(lookup.error) === 400;
  const title = completed ? PAYMENT_SUCCESS.title : pending ? PAYMENT_RECORD_TEXT.processingTitle : unknown || !record ? PAYMENT_RECORD_TEXT.unknownTitle : PAYMENT_RECORD_TEXT.notCompletedTitle;
  const note = completed ? null : pending ? PAYMENT_RECORD_TEXT.processing : unknown || !record ? PAYMENT_RECORD_TEXT.unknown : PAYMENT_RECORD_TEXT.notCompleted(record.status);

  return (
    <CenteredPage>
      <Card>
        <h1>{title}</h1>
        {note && <p role={pending ? 'status' : 'alert'}>{note}</p>}
        <Figures>
          {completed && record && (
            <div>
              <dt>{PAYMENT_SUCCESS.creditsAdded}</dt>
              <dd data-testid="credits-added">{creditedText(record)}</dd>
            </div>
          )}
          <div>
            <dt>{PAYMENT_SUCCESS.newBalance}</dt>
            <dd data-testid="new-balance">{credits.data ? formatCredits(credits.data.credits_balance) : '—'}</dd>
          </div>
        </Figures>
        {record && (
          <Details aria-label={PAYMENT_SUCCESS.paymentDetails}>
            <h2>{PAYMENT_SUCCESS.paymentDetails}</h2>
            <dl>
              <dt>{PAYMENT_SUCCESS.paymentId}</dt>
              <dd>{record.payment_id ?? record.purchase_id}</dd>
              <dt>{PAYMENT_SUCCESS.status}</dt>
              <dd data-testid="payment-status">{record.status}</dd>
            </dl>
          </Details>
        )}
        <ButtonRow>
          <Button $variant="primary" onClick={() => navigate('/app', completed ? { state: HOME_AFTER_PAYMENT } : undefined)}>
            {PAYMENT_SUCCESS.goToProjects}
          </Button>
          <Button onClick={() => void credits.refetch()} disabled={credits.isFetching}>
            {PAYMENT_SUCCESS.refreshBalance}
          </Button>
        </ButtonRow>
        {completed && <p role="status">{PAYMENT_SUCCESS.redirecting(secondsLeft)}</p>}
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
