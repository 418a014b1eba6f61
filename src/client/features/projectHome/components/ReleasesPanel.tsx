import { useState, type ReactElement } from 'react';
import styled from 'styled-components';
import type { ReleaseSummary, RollbackResponse } from '../../../../shared/api/releases';
import { EXECUTION } from '../../../../shared/constants';
import { relativeTime } from '../../../../shared/constants/activity';
import { RELEASES_TEXT } from '../../../../shared/constants/releases';
import { errorMessage } from '../../../api/apiSlice';
import { Button } from '../../../common/components/Button';
import { ButtonRow, Card } from '../../../common/components/Card';
import { ErrorText, FieldHint } from '../../../common/components/Field';
import { TextBlock } from '../../../common/components/TextBlock';
import { useDecideRollbackStepMutation, useGetReleasesQuery, useGetRollbackProgressQuery, useRequestRollbackMutation } from '../releasesApi';
import { useReleasesRefresh } from '../useReleasesRefresh';

/** A roll back the person asked for: its step, and the newest release when they approved it. */
interface PendingRollback extends RollbackResponse {
  target: number;
  approved: boolean;
  newestAtApproval: number;
}

function ReleaseRow({ release, onRollBack, busy }: { release: ReleaseSummary; onRollBack: (n: number) => void; busy: boolean }): ReactElement {
  const canRollBack = release.status === 'superseded';
  return (
    <Row>
      <div>
        <strong>{RELEASES_TEXT.release(release.number)}</strong> <MutedSpan>{RELEASES_TEXT.status[release.status]} · {relativeTime(release.created_at)}</MutedSpan>
        <Services>{release.containers.map((c) => `${c.service}: ${c.image}${c.ports.length ? ` (${c.ports.join(', ')})` : ''}`).join('; ')}</Services>
        {release.note ? <ErrorText>{release.note}</ErrorText> : null}
      </div>
      {canRollBack ? (
        <Button type="button" disabled={busy} aria-label={RELEASES_TEXT.rollBackTo(release.number)} onClick={() => onRollBack(release.number)}>
          {RELEASES_TEXT.rollBack}
        </Button>
      ) : null}
    </Row>
  );
}

/**
 * The project's releases and "Roll back": choosing a release adds a step to the execution plan (the
 * exact command shown here), which runs only once the person approves it; its progress and outcome are
 * read from the execution progress poll.
 */
export function ReleasesPanel({ projectId }: { projectId: number }): ReactElement {
  const [pending, setPending] = useState<PendingRollback | null>(null);
  const [rejected, setRejected] = useState(false);
  const [requestRollback, requesting] = useRequestRollbackMutation();
  const [approveStep, approving] = useDecideRollbackStepMutation();
  const watching = pending?.approved === true;
  const progress = useGetRollbackProgressQuery(projectId, { skip: !watching, pollingInterval: EXECUTION.progressPollMs });
  const step = watching ? progress.data?.steps.find((s) => s.step_number === pending.step_number) : undefined;
  const ended = step?.status === 'completed' || step?.status === 'failed';
  // The release the roll back records arrives after its step: poll until it is listed (or the step failed).
  const [newest, setNewest] = useState(0);
  const awaitingRelease = watching && step?.status !== 'failed' && newest <= pending.newestAtApproval;
  // Read afresh on every visit (a deploy may have ended on the execution page since), then kept current by the step stream.
  const releases = useGetReleasesQuery(projectId, { pollingInterval: awaitingRelease ? EXECUTION.progressPollMs : 0, refetchOnMountOrArgChange: true });
  useReleasesRefresh(projectId);
  const newestListed = releases.data?.releases[0]?.number ?? 0;
  if (newestListed !== newest) setNewest(newestListed);

  const onRollBack = (number: number): void => {
    setRejected(false);
    void requestRollback({ projectId, number })
      .unwrap()
      .then((r) => setPending({ ...r, target: number, approved: false, newestAtApproval: newestListed }), () => undefined);
  };
  const onDecide = (approved: boolean): void => {
    if (!pending) return;
    void approveStep({ projectId, plan_id: pending.plan_id, step_number: pending.step_number, approved })
      .unwrap()
      .then(() => {
        setPending(approved ? { ...pending, approved: true, newestAtApproval: newestListed } : null);
        setRejected(!approved);
      }, () => undefined);
  };
  // From the approval (the step's start) to the restored release healthy: the step's own clock, on the server.
  const seconds = step?.started_at && step.finished_at ? (Date.parse(step.finished_at) - Date.parse(step.started_at)) / 1000 : null;

  const list = releases.data?.releases ?? [];
  return (
    <Card aria-labelledby="releases-title">
      <h2 id="releases-title">{RELEASES_TEXT.title}</h2>
      <FieldHint>{RELEASES_TEXT.intro}</FieldHint>
      {releases.error ? <ErrorText>{RELEASES_TEXT.loadError}</ErrorText> : null}
      {releases.data && !list.length ? <FieldHint>{RELEASES_TEXT.none}</FieldHint> : null}
      <List>
        {list.map((r) => (
          <li key={r.number}>
            <ReleaseRow release={r} busy={requesting.isLoading || (pending !== null && !ended)} onRollBack={onRollBack} />
          </li>
        ))}
      </List>
      {requesting.error ? <ErrorText>{errorMessage(requesting.error)}</ErrorText> : null}
      {pending && !pending.approved ? (
        <Confirm role="group" aria-labelledby="rollback-confirm">
          <h3 id="rollback-confirm">{RELEASES_TEXT.confirmTitle(pending.target)}</h3>
          <FieldHint>{RELEASES_TEXT.confirmIntro(pending.step_number)}</FieldHint>
          <details>
            <summary>{pending.detail}</summary>
            <TextBlock $maxHeight="16rem" tabIndex={0}>{pending.command}</TextBlock>
          </details>
          {approving.error ? <ErrorText>{errorMessage(approving.error)}</ErrorText> : null}
          <ButtonRow>
            <Button type="button" $variant="primary" disabled={approving.isLoading} onClick={() => onDecide(true)}>
              {RELEASES_TEXT.approve}
            </Button>
            <Button type="button" $variant="ghost" disabled={approving.isLoading} onClick={() => onDecide(false)}>
              {RELEASES_TEXT.reject}
            </Button>
          </ButtonRow>
        </Confirm>
      ) : null}
      {watching ? (
        <div role="status">
          {!ended ? <FieldHint>{RELEASES_TEXT.running(pending.target)}</FieldHint> : null}
          {step?.status === 'completed' ? <FieldHint>{RELEASES_TEXT.done(pending.target, seconds)}</FieldHint> : null}
          {step?.status === 'failed' ? <ErrorText>{RELEASES_TEXT.failed(pending.target, step.error_message ?? '')}</ErrorText> : null}
          {step?.output ? (
            <TextBlock $maxHeight="16rem" tabIndex={0} aria-label="Roll back output">
              {step.output.split('\n').slice(-12).join('\n')}
            </TextBlock>
          ) : null}
        </div>
      ) : null}
      {rejected ? <FieldHint role="status">{RELEASES_TEXT.rejected}</FieldHint> : null}
    </Card>
  );
}

const List = styled.ul`
  list-style: none;
  margin: ${({ theme }) => theme.space(3)} 0 0;
  padding: 0;
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(2)};
`;

const Row = styled.div`
  display: flex;
  justify-content: space-between;
  align-items: flex-start;
  gap: ${({ theme }) => theme.space(3)};
`;

const MutedSpan = styled.span`
  color: ${({ theme }) => theme.colors.textMuted};
`;

const Services = styled.div`
  font-size: ${({ theme }) => theme.fontSizes.sm};
  overflow-wrap: anywhere;
`;

const Confirm = styled.div`
  margin-top: ${({ theme }) => theme.space(3)};
  h3 { margin: 0 0 ${({ theme }) => theme.space(1)}; font-size: ${({ theme }) => theme.fontSizes.md}; }
`;
