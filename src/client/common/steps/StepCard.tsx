import { useCallback, useEffect, useId, useState, type ReactElement } from 'react';
import styled from 'styled-components';
import { EXECUTION, EXECUTION_TEXT, formatStepStatus, FULL_OUTPUT_MODAL } from '../../../shared/constants';
import { Button } from '../components/Button';
import { Spinner } from '../components/Spinner';
import type { ViewStep } from './stepModel';
import { formatDuration, previewLines } from './stepModel';
import { lastLine, tailLines, terminalText } from './terminalText';
import type { PendingStepAction, StepActionKind } from './stepActions';
import { FullOutputModal } from './FullOutputModal';
import { codeBlock, LineDiff } from './LineDiff';

/** Ours, not the spec's: the card of a step the server holds for a human says why. */
const DANGEROUS_LABEL = 'Needs your explicit approval (never auto-approved)';

export interface StepCardProps {
  step: ViewStep;
  /** The action sent for this step and not yet reflected in its status. */
  pending: PendingStepAction | undefined;
  onAction: (step: ViewStep, kind: StepActionKind) => void;
  /** The description of a step that has none: 'Execution Step N' unless the stage says otherwise. */
  stepDefault?: (n: number) => string;
  /** The label of the step's prompt: the execution agent's by default (the spec's), the validation agent's in that stage. */
  promptLabel?: string;
  /** Ours: 'Change with the agent' on a rejected or failed step; absent where no agent can change steps. */
  onChange?: (step: ViewStep) => void;
  /** Ours: saves (true) or discards (false) the change the agent proposed for the step. */
  onResolveProposal?: (step: ViewStep, save: boolean) => void;
  /** Whether the body shows: the list decides (the current step), the header's toggle asks it to change. */
  expanded: boolean;
  onToggle: () => void;
  /** The step the person deals with now (the stage scrolls it into view). */
  current?: boolean;
  /** When the running step last printed (the live stream); a quiet step says what it last said, and since when. */
  lastOutputAt?: number;
}

/** The time, renewed every second while `running` (a running step's clock). */
function useNow(running: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!running) return undefined;
    const timer = setInterval(() => setNow(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, [running]);
  return now;
}

/** Milliseconds from `startedAt` to `now`. */
function elapsedSince(startedAt: string | null, now: number): number | null {
  if (!startedAt) return null;
  const started = Date.parse(startedAt);
  return Number.isNaN(started) ? null : Math.max(0, now - started);
}

/** How long a finished run took, from its stored start and end. */
function tookMs(step: ViewStep): number | null {
  if (!step.startedAt || !step.finishedAt) return null;
  const ms = Date.parse(step.finishedAt) - Date.parse(step.startedAt);
  return Number.isNaN(ms) ? null : Math.max(0, ms);
}

/**
 * One execution step (part 2 section 2): a collapsible card whose header shows the number, the
 * description (default 'Execution Step N') and the status, with quick Approve and Reject on a waiting
 * step; the body shows prompt, command, the first 5 lines of output with 'View Full Output', and the
 * error. A failed or completed step can be re-executed. While an action is pending every action
 * button of the card is disabled and the pending one shows a spinner.
 *
 * Ours: a running step shows how long it has been running (and its output as it streams in, from the
 * progress polls) with a Cancel button; a finished one how long it took; a rejected one can be
 * re-executed or changed with the agent, so every step can still reach completed.
 */
export function StepCard({ step, pending, onAction, stepDefault = EXECUTION_TEXT.stepDefault, promptLabel = EXECUTION_TEXT.promptLabel, onChange, onResolveProposal, expanded, onToggle, lastOutputAt, current = false }: StepCardProps): ReactElement {
  const [fullOutput, setFullOutput] = useState(false);
  const closeFullOutput = useCallback(() => setFullOutput(false), []);
  const bodyId = useId();
  const description = step.description || stepDefault(step.number);
  const waiting = step.status === 'waiting_approval';
  const running = step.status === 'in_progress';
  const rerunnable = step.status === 'failed' || step.status === 'completed' || step.status === 'rejected';
  const changeable = onChange !== undefined && (step.status === 'failed' || step.status === 'rejected');
  const busy = pending !== undefined;
  const now = useNow(running);
  const elapsed = elapsedSince(step.startedAt, now);
  const took = tookMs(step);
  const timing = running && elapsed !== null ? EXECUTION_TEXT.runningFor(formatDuration(elapsed)) : !running && took !== null ? EXECUTION_TEXT.tookFor(formatDuration(took)) : null;

  const actionButton = (kind: StepActionKind, label: string, variant: 'primary' | 'danger' | 'secondary'): ReactElement => (
    <Button
      $size="sm"
      $variant={variant}
      disabled={busy}
      aria-busy={pending?.kind === kind}
      onClick={() => onAction(step, kind)}
    >
      {pending?.kind === kind ? <Spinner label={label} /> : label}
    </Button>
  );

  // As a terminal shows it (no control sequences, redrawn lines once); a running step shows its newest lines.
  const text = step.output ? terminalText(step.output) : null;
  const preview = text ? (running ? tailLines(text, EXECUTION.liveOutputLines) : previewLines(text, EXECUTION.outputPreviewLines)) : null;
  const quietMs = running && lastOutputAt !== undefined ? Math.max(0, now - lastOutputAt) : null;
  const said = text ? lastLine(text) : null;
  const waitingOn = quietMs !== null && quietMs >= EXECUTION.quietAfterMs && said ? EXECUTION_TEXT.quietFor(said, formatDuration(quietMs)) : null;

  return (
    <Card aria-label={`Step ${step.number}: ${description}`} data-step={step.number} data-current={current} $status={step.status}>
      <Header>
        <Toggle type="button" aria-expanded={expanded} aria-controls={bodyId} onClick={onToggle}>
          <StepNumber aria-hidden="true">{step.number}</StepNumber>
          <Title>{description}</Title>
          <Status $status={step.status}>{formatStepStatus(step.status)}</Status>
          {step.change && <ChangeBadge data-testid={`step-${step.number}-change`}>{EXECUTION_TEXT.changeLabels[step.change]}</ChangeBadge>}
          {timing && <Timing data-testid={`step-${step.number}-timing`}>{timing}</Timing>}
          <Chevron aria-hidden="true">{expanded ? '▾' : '▸'}</Chevron>
        </Toggle>
        {waiting && (
          <QuickActions>
            {actionButton('approve', EXECUTION_TEXT.approve, 'primary')}
            {actionButton('reject', EXECUTION_TEXT.reject, 'danger')}
          </QuickActions>
        )}
        {running && <QuickActions>{actionButton('cancel', EXECUTION_TEXT.cancel, 'danger')}</QuickActions>}
      </Header>
      {waitingOn && <Waiting role="status">{waitingOn}</Waiting>}
      {step.dangerousReason && (
        <Danger role="note">
          <strong>{DANGEROUS_LABEL}:</strong> {step.dangerousReason}
        </Danger>
      )}
      <Body id={bodyId} hidden={!expanded}>
        {step.prompt && (
          <Field>
            <h4>{promptLabel}</h4>
            <p>{step.prompt}</p>
          </Field>
        )}
        {step.proposal && (
          <Proposal aria-label={EXECUTION_TEXT.proposalLabel}>
            <h4>{EXECUTION_TEXT.proposalLabel}</h4>
            {step.proposal.request && (
              <p>
                {EXECUTION_TEXT.proposalRequest} {step.proposal.request}
              </p>
            )}
            {step.proposal.description !== step.description && <LineDiff before={step.description} after={step.proposal.description} />}
            <LineDiff before={step.command ?? ''} after={step.proposal.command ?? ''} />
            {onResolveProposal && (
              <BodyActions>
                <Button $size="sm" $variant="primary" disabled={busy} onClick={() => onResolveProposal(step, true)}>
                  {EXECUTION_TEXT.saveChange}
                </Button>
                <Button $size="sm" $variant="ghost" disabled={busy} onClick={() => onResolveProposal(step, false)}>
                  {EXECUTION_TEXT.discardChange}
                </Button>
              </BodyActions>
            )}
          </Proposal>
        )}
        {step.command && (
          <Field>
            <h4>{EXECUTION_TEXT.commandLabel}</h4>
            <Code>{step.command}</Code>
          </Field>
        )}
        {step.change === 'changed' && step.previousCommand !== null && (
          <Field>
            <h4>{EXECUTION_TEXT.previousCommandLabel}</h4>
            <LineDiff before={step.previousCommand} after={step.command ?? ''} />
          </Field>
        )}
        {preview && text && (
          <Field>
            <h4>{EXECUTION_TEXT.outputLabel}</h4>
            <Code data-testid={`step-${step.number}-output`}>{preview.text}</Code>
            <div>
              <Button $size="sm" $variant="ghost" onClick={() => setFullOutput(true)}>
                {FULL_OUTPUT_MODAL.open}
              </Button>
            </div>
          </Field>
        )}
        {step.error && <ErrorBlock role="alert">{step.error}</ErrorBlock>}
        {(rerunnable || changeable) && (
          <BodyActions>
            {rerunnable && actionButton('reexecute', EXECUTION_TEXT.reExecute, 'secondary')}
            {changeable && (
              <Button $size="sm" $variant="ghost" disabled={busy} onClick={() => onChange?.(step)}>
                {EXECUTION_TEXT.changeWithAgent}
              </Button>
            )}
          </BodyActions>
        )}
      </Body>
      {fullOutput && text !== null && <FullOutputModal output={text} onClose={closeFullOutput} />}
    </Card>
  );
}

function statusColour(status: string): 'success' | 'danger' | 'warning' | 'primary' | 'textMuted' {
  switch (status) {
    case 'completed':
      return 'success';
    case 'failed':
    case 'rejected':
      return 'danger';
    case 'waiting_approval':
      return 'warning';
    case 'in_progress':
      return 'primary';
    default:
      return 'textMuted';
  }
}

const Card = styled.li<{ $status: string }>`
  list-style: none;
  border-radius: ${({ theme }) => theme.radii.md};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-left: 3px solid ${({ theme, $status }) => theme.colors[statusColour($status)]};
  background: ${({ theme }) => theme.colors.surfaceRaised};
`;

/** Wraps on a narrow screen: the quick actions go under the title instead of squeezing it to nothing. */
const Header = styled.div`
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${({ theme }) => theme.space(2)};
  padding-right: ${({ theme }) => theme.space(3)};
`;

const Toggle = styled.button`
  flex: 1 1 240px;
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: ${({ theme }) => theme.space(3)};
  min-width: 0;
  padding: ${({ theme }) => theme.space(3)};
  border: none;
  background: transparent;
  color: inherit;
  text-align: left;
  cursor: pointer;
`;

const StepNumber = styled.span`
  display: inline-flex;
  flex: none;
  align-items: center;
  justify-content: center;
  width: 26px;
  height: 26px;
  border-radius: ${({ theme }) => theme.radii.round};
  background: ${({ theme }) => theme.colors.surfaceHover};
  font-weight: 700;
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;

/** On a phone the status goes under the title rather than taking its width. */
const Title = styled.span`
  flex: 1 1 180px;
  min-width: 0;
  font-weight: 600;
  overflow-wrap: anywhere;
`;

const Status = styled.span<{ $status: string }>`
  flex: none;
  color: ${({ theme, $status }) => theme.colors[statusColour($status)]};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  text-transform: capitalize;
`;

const Timing = styled.span`
  flex: none;
  color: ${({ theme }) => theme.colors.textMuted};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  font-variant-numeric: tabular-nums;
`;

const Chevron = styled.span`
  color: ${({ theme }) => theme.colors.textMuted};
`;

const QuickActions = styled.div`
  display: flex;
  flex: none;
  margin-left: auto;
  gap: ${({ theme }) => theme.space(1.5)};
`;

const Waiting = styled.p`
  margin: 0 ${({ theme }) => theme.space(3)} ${({ theme }) => theme.space(3)};
  color: ${({ theme }) => theme.colors.warning};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  overflow-wrap: anywhere;
`;

const Danger = styled.p`
  margin: 0 ${({ theme }) => theme.space(3)} ${({ theme }) => theme.space(3)};
  padding: ${({ theme }) => theme.space(2)};
  border-radius: ${({ theme }) => theme.radii.sm};
  background: ${({ theme }) => theme.colors.dangerSurface};
  font-size: ${({ theme }) => theme.fontSizes.sm};
`;

const Body = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(3)};
  padding: 0 ${({ theme }) => theme.space(3)} ${({ theme }) => theme.space(3)};
  &[hidden] { display: none; }
`;

const Field = styled.div`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(1)};
  h4 {
    margin: 0;
    color: ${({ theme }) => theme.colors.textMuted};
    font-size: ${({ theme }) => theme.fontSizes.xs};
    text-transform: uppercase;
    letter-spacing: 0.04em;
  }
  p { margin: 0; white-space: pre-wrap; }
`;

const code = codeBlock;

/** A block of monospace text (commands, output), shared with the validation plan. */
export const Code = styled.pre`
  ${code}
`;

const ErrorBlock = styled.pre`
  ${code}
  color: ${({ theme }) => theme.colors.dangerOnSurface};
  background: ${({ theme }) => theme.colors.dangerSurface};
`;

const ChangeBadge = styled.span`
  flex: none;
  padding: 0 ${({ theme }) => theme.space(1.5)};
  border-radius: ${({ theme }) => theme.radii.sm};
  border: 1px solid ${({ theme }) => theme.colors.warning};
  color: ${({ theme }) => theme.colors.warning};
  font-size: ${({ theme }) => theme.fontSizes.xs};
`;

const Proposal = styled.section`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(2)};
  padding: ${({ theme }) => theme.space(2)};
  border-radius: ${({ theme }) => theme.radii.sm};
  border: 1px solid ${({ theme }) => theme.colors.primary};
  h4 { margin: 0; font-size: ${({ theme }) => theme.fontSizes.sm}; }
  p { margin: 0; white-space: pre-wrap; }
`;

const BodyActions = styled.div`
  display: flex;
  gap: ${({ theme }) => theme.space(2)};
`;
