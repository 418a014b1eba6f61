import { useEffect, useRef, type ReactElement } from 'react';
import styled, { css } from 'styled-components';
import { DEVOPS_HELPER, DEVOPS_HELPER_APPROVAL } from '../../../../shared/constants';
import { useAppDispatch } from '../../../app/hooks';
import { Button } from '../../../common/components/Button';
import { TextBlock } from '../../../common/components/TextBlock';
import { logError } from '../../../common/log';
import { useDecideApprovalMutation } from '../devopsHelperApi';
import { approvalDecisionSent, approvalSettled, type ApprovalItem } from '../devopsHelperSlice';

/**
 * A message of role `approval`: the exact command, a caution when the server flagged it, and Approve /
 * Deny while it waits. A request the server no longer knows (404) shows as expired; other failures are
 * only logged (part 2 section 8) and the buttons come back.
 */
export function ApprovalCard({ chatKey, item }: { chatKey: string; item: ApprovalItem }): ReactElement {
  const dispatch = useAppDispatch();
  const [decide] = useDecideApprovalMutation();
  const waiting = item.status === 'pending';
  // A request that waits is brought into view (the message list and the page), with its Approve and Deny.
  const cardRef = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (waiting && typeof cardRef.current?.scrollIntoView === 'function') cardRef.current.scrollIntoView({ block: 'nearest' });
  }, [waiting]);

  const onDecide = async (approved: boolean): Promise<void> => {
    dispatch(approvalDecisionSent({ key: chatKey, id: item.id }));
    try {
      const answer = await decide({ approval_id: item.id, approved }).unwrap();
      dispatch(approvalSettled({ key: chatKey, id: item.id, status: answer.status }));
    } catch (error) {
      logError('DevOps Helper approval failed', error);
      const gone = typeof error === 'object' && error !== null && 'status' in error && (error.status === 404 || error.status === 409);
      dispatch(approvalSettled({ key: chatKey, id: item.id, status: gone ? 'expired' : 'pending' }));
    }
  };

  return (
    <Card ref={cardRef} data-role="approval" aria-label={DEVOPS_HELPER_APPROVAL.title} $dangerous={Boolean(item.dangerousReason)}>
      <Title>{DEVOPS_HELPER_APPROVAL.title}</Title>
      {item.runsOn && (
        <Where data-testid="approval-runs-on">
          {item.runsOn.kind === 'server' ? DEVOPS_HELPER_APPROVAL.runsOnServer(item.runsOn.name, item.runsOn.address) : DEVOPS_HELPER_APPROVAL.runsInSandbox}
        </Where>
      )}
      {/* Shown whole, never cut to a scroll: what is approved is exactly these bytes. */}
      <TextBlock $maxHeight="none">{item.command}</TextBlock>
      {item.dangerousReason && <Caution role="alert">{DEVOPS_HELPER_APPROVAL.dangerous(item.dangerousReason)}</Caution>}
      {waiting ? (
        <Actions>
          <Button $variant="primary" onClick={() => void onDecide(true)}>
            {DEVOPS_HELPER.approve}
          </Button>
          <Button $variant="danger" onClick={() => void onDecide(false)}>
            {DEVOPS_HELPER.deny}
          </Button>
        </Actions>
      ) : (
        <Status role="status">{DEVOPS_HELPER_APPROVAL.status[item.status]}</Status>
      )}
    </Card>
  );
}

const Card = styled.li<{ $dangerous: boolean }>`
  align-self: flex-start;
  max-width: 88%;
  padding: ${({ theme }) => `${theme.space(3)} ${theme.space(3.5)}`};
  border-radius: ${({ theme }) => theme.radii.lg};
  border: 1px solid ${({ theme }) => theme.colors.warning};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  ${({ $dangerous, theme }) =>
    $dangerous &&
    css`
      border-color: ${theme.colors.danger};
      background: ${theme.colors.dangerSurface};
    `}
`;

const Title = styled.div`
  font-size: ${({ theme }) => theme.fontSizes.xs};
  font-weight: 600;
  color: ${({ theme }) => theme.colors.textMuted};
  margin-bottom: ${({ theme }) => theme.space(1.5)};
`;

const Where = styled.p`
  margin: 0 0 ${({ theme }) => theme.space(1.5)};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  font-weight: 600;
`;

const Caution = styled.p`
  margin: ${({ theme }) => theme.space(2)} 0 0;
  color: ${({ theme }) => theme.colors.danger};
  font-weight: 600;
`;

const Actions = styled.div`
  display: flex;
  gap: ${({ theme }) => theme.space(2)};
  margin-top: ${({ theme }) => theme.space(2.5)};
`;

const Status = styled.p`
  margin: ${({ theme }) => theme.space(2)} 0 0;
  color: ${({ theme }) => theme.colors.textMuted};
`;
