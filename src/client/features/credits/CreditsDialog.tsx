import { useEffect, type ChangeEvent, type FormEvent, type ReactElement } from 'react';
import styled from 'styled-components';
import { CREDIT_LIMITS, CREDITS_TEXT, creditAmountError } from '../../../shared/constants';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { useInjectSaga } from '../../app/injectSaga';
import { Button } from '../../common/components/Button';
import { Dialog } from '../../common/components/Dialog';
import { ErrorText, FieldGroup, Label, TextInput } from '../../common/components/Field';
import { MutedText, SectionTitle } from '../../common/components/Layout';
import { logError } from '../../common/log';
import { useCredits } from './creditsApi';
import { creditsSaga } from './creditsSaga';
import {
  amountChanged,
  amountRejected,
  paymentRequested,
  selectBlockedCheckoutLink,
  selectCreditAmount,
  selectCreditsAlert,
  selectPaymentInProgress,
} from './creditsSlice';
import { formatCredits, isAmountInput } from './formatCredits';
import { TransactionList } from './components/TransactionList';

/**
 * The credits dialog (part 1 section 2): balance, add-credits form, transaction history and the
 * about-credits note. Pay runs `creditsSaga`; the amount and the alert live in the credits slice.
 */
export function CreditsDialog({ onClose }: { onClose: () => void }): ReactElement {
  useInjectSaga(creditsSaga);
  const dispatch = useAppDispatch();
  const amount = useAppSelector(selectCreditAmount);
  const inProgress = useAppSelector(selectPaymentInProgress);
  const alert = useAppSelector(selectCreditsAlert);
  const blockedLink = useAppSelector(selectBlockedCheckoutLink);
  const { data: credits, error: creditsError } = useCredits();

  useEffect(() => {
    // Part 1 section 8: a credits load failure is only logged.
    if (creditsError) logError('credits', creditsError);
  }, [creditsError]);

  const onAmountChange = (event: ChangeEvent<HTMLInputElement>): void => {
    if (isAmountInput(event.target.value)) dispatch(amountChanged(event.target.value));
  };

  const onSubmit = (event: FormEvent): void => {
    event.preventDefault();
    if (inProgress) return;
    const invalid = creditAmountError(amount);
    if (invalid) dispatch(amountRejected(invalid));
    else dispatch(paymentRequested(Number(amount)));
  };

  const payDisabled = amount === '' || Number(amount) === 0 || inProgress;

  return (
    <Dialog title={CREDITS_TEXT.title} onClose={onClose}>
      <Balance aria-label={CREDITS_TEXT.currentBalance}>
        <MutedText>{CREDITS_TEXT.currentBalance}</MutedText>
        <BalanceAmount data-testid="credits-balance">{formatCredits(credits?.credits_balance)}</BalanceAmount>
        {credits?.test_credits ? <MutedText data-testid="test-credits">{CREDITS_TEXT.testCredits(formatCredits(credits.test_credits))}</MutedText> : null}
      </Balance>

      <form onSubmit={onSubmit} aria-label={CREDITS_TEXT.addCredits}>
        <SectionTitle as="h3">{CREDITS_TEXT.addCredits}</SectionTitle>
        <QuickAmounts>
          {CREDIT_LIMITS.quickAmounts.map((quick) => (
            <Button key={quick} $size="sm" disabled={inProgress} aria-pressed={amount === String(quick)} onClick={() => dispatch(amountChanged(String(quick)))}>
              ${quick}
            </Button>
          ))}
        </QuickAmounts>
        <FieldGroup>
          <Label htmlFor="credit-amount">{CREDITS_TEXT.amountLabel}</Label>
          <TextInput
            id="credit-amount"
            inputMode="decimal"
            autoComplete="off"
            placeholder={CREDITS_TEXT.amountPlaceholder}
            value={amount}
            disabled={inProgress}
            aria-invalid={alert !== null}
            onChange={onAmountChange}
          />
          {alert && <ErrorText>{alert}</ErrorText>}
        </FieldGroup>
        <Button type="submit" $variant="primary" $block disabled={payDisabled}>
          {inProgress ? CREDITS_TEXT.creatingLink : CREDITS_TEXT.payButton}
        </Button>
        {blockedLink && (
          <MutedText role="status">
            Your browser did not open the checkout tab.{' '}
            <a href={blockedLink} target="_blank" rel="noopener noreferrer">
              Open the checkout
            </a>
          </MutedText>
        )}
      </form>

      <SectionTitle as="h3">{CREDITS_TEXT.history}</SectionTitle>
      <TransactionList />

      <About aria-label={CREDITS_TEXT.aboutCredits}>
        <strong>{CREDITS_TEXT.aboutCredits}</strong>
        <MutedText>
          {CREDITS_TEXT.aboutOneCredit}. {CREDITS_TEXT.neverExpire}
        </MutedText>
      </About>
    </Dialog>
  );
}

const Balance = styled.section`
  margin-bottom: ${({ theme }) => theme.space(4)};
  padding: ${({ theme }) => theme.space(4)};
  border-radius: ${({ theme }) => theme.radii.md};
  background: ${({ theme }) => theme.colors.background};
  border: 1px solid ${({ theme }) => theme.colors.border};
  p { margin: 0; }
`;

const BalanceAmount = styled.span`
  font-family: ${({ theme }) => theme.fonts.mono};
  font-size: ${({ theme }) => theme.fontSizes.xxl};
`;

const QuickAmounts = styled.div`
  display: flex;
  gap: ${({ theme }) => theme.space(2)};
  margin-bottom: ${({ theme }) => theme.space(3)};
`;

const About = styled.section`
  margin-top: ${({ theme }) => theme.space(4)};
  p { margin: ${({ theme }) => theme.space(1)} 0 0; }
`;
