import type { ReactElement } from 'react';
import styled, { css } from 'styled-components';
import type { Transaction } from '../../../../shared/api/credits';
import { CREDIT_ERRORS, CREDITS_TEXT } from '../../../../shared/constants';
import { formatDate } from '../../../common/format';
import { MutedText } from '../../../common/components/Layout';
import { ErrorText } from '../../../common/components/Field';
import { useGetTransactionsQuery } from '../creditsApi';
import { formatCredits } from '../formatCredits';

const TYPE_LABEL: Record<Transaction['transaction_type'], string> = { add: 'Credits added', use: 'Usage', refund: 'Refund' };

/** The transaction history, newest first; each row is styled by its status, shown as received. */
export function TransactionList(): ReactElement {
  const { data, isError, isLoading } = useGetTransactionsQuery();
  if (isError) return <ErrorText>{CREDIT_ERRORS.transactionsLoad}</ErrorText>;
  if (isLoading) return <MutedText>Loading…</MutedText>;
  if (!data?.length) return <MutedText>{CREDITS_TEXT.noTransactions}</MutedText>;
  return (
    <List aria-label={CREDITS_TEXT.history}>
      {data.map((t) => (
        <Row key={t.id} className={`transaction transaction-${t.status}`} $status={t.status}>
          <div>
            <strong>{TYPE_LABEL[t.transaction_type] ?? t.transaction_type}</strong>
            <Small>
              {t.description ?? t.payment_method} · {formatDate(t.created_at)}
            </Small>
          </div>
          <Right>
            <Amount $credit={t.transaction_type === 'add'}>
              {t.transaction_type === 'add' ? '+' : '−'}
              {formatCredits(t.amount)}
            </Amount>
            <Status className={`status status-${t.status}`}>{t.status}</Status>
          </Right>
        </Row>
      ))}
    </List>
  );
}

const List = styled.ul`
  list-style: none;
  margin: 0;
  padding: 0;
  max-height: 240px;
  overflow: auto;
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md};
`;

const Row = styled.li<{ $status: string }>`
  display: flex;
  justify-content: space-between;
  gap: ${({ theme }) => theme.space(3)};
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
  border-bottom: 1px solid ${({ theme }) => theme.colors.border};
  &:last-child { border-bottom: none; }
  ${({ $status }) =>
    $status === 'failed' &&
    css`
      opacity: 0.7;
    `}
`;

const Small = styled.span`
  display: block;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;

const Right = styled.div`
  text-align: right;
  white-space: nowrap;
`;

const Amount = styled.span<{ $credit: boolean }>`
  display: block;
  font-family: ${({ theme }) => theme.fonts.mono};
  color: ${({ theme, $credit }) => ($credit ? theme.colors.success : theme.colors.text)};
`;

const Status = styled.span`
  font-size: ${({ theme }) => theme.fontSizes.xs};
  text-transform: capitalize;
  &.status-completed { color: ${({ theme }) => theme.colors.success}; }
  &.status-pending { color: ${({ theme }) => theme.colors.warning}; }
  &.status-failed { color: ${({ theme }) => theme.colors.danger}; }
`;
