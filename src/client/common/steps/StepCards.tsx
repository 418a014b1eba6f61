import { useEffect, useRef, useState, type ReactElement } from 'react';
import styled from 'styled-components';
import { Button } from '../components/Button';
import { currentStepNumber, type ViewStep } from './stepModel';
import type { PendingStepAction, StepActionKind } from './stepActions';
import { StepCard } from './StepCard';

/** A running step's output as it arrives, and when its last chunk came (ms since the epoch). */
export interface LiveOutput {
  output: string;
  lastAt: number;
}

/** Ours: the list's controls. */
const EXPAND_ALL = 'Expand all';
const COLLAPSE_ALL = 'Collapse all';

export interface StepCardsProps {
  label: string;
  steps: ViewStep[];
  pending: Readonly<Record<string, PendingStepAction>>;
  onAction: (step: ViewStep, kind: StepActionKind) => void;
  stepDefault?: (n: number) => string;
  promptLabel?: string;
  onChange?: (step: ViewStep) => void;
  onResolveProposal?: (step: ViewStep, save: boolean) => void;
  /** Live output by step number (the event stream), newer than the progress answer's. */
  liveOutput?: Readonly<Record<string, LiveOutput>>;
}

/**
 * The step cards of a stage: only the current step (running, else the first waiting or failed one)
 * and any with a change proposed by the agent are open unless the person opens others; Expand all and Collapse all. When the list first shows, the
 * current card is scrolled into view with its header (and Approve and Reject) at the top.
 */
export function StepCards({ label, steps, pending, onAction, stepDefault, promptLabel, onChange, onResolveProposal, liveOutput }: StepCardsProps): ReactElement {
  const current = currentStepNumber(steps);
  // The person's choices by step number; a step with none is open when it is the current one.
  const [chosen, setChosen] = useState<Record<number, boolean>>({});
  // A change the agent proposed waits for the person's answer in the body: that card is open too.
  const proposed = new Set(steps.filter((step) => step.proposal !== null).map((step) => step.number));
  const isOpen = (n: number): boolean => chosen[n] ?? (n === current || proposed.has(n));
  const setAll = (open: boolean): void => setChosen(Object.fromEntries(steps.map((step) => [step.number, open])));

  const listRef = useRef<HTMLOListElement>(null);
  const scrolled = useRef(false);
  useEffect(() => {
    if (scrolled.current || current === null) return;
    scrolled.current = true;
    const card = listRef.current?.querySelector<HTMLElement>(`[data-step="${current}"]`);
    if (!card || typeof card.scrollIntoView !== 'function') return;
    const { top, bottom } = card.getBoundingClientRect();
    // Already in view (a short page): leave the page where it is.
    if (top >= 0 && Math.min(bottom, top + 120) <= window.innerHeight) return;
    card.scrollIntoView({ block: 'start' });
  }, [current]);

  return (
    <>
      <ListTools>
        <Button $size="sm" $variant="ghost" onClick={() => setAll(true)}>
          {EXPAND_ALL}
        </Button>
        <Button $size="sm" $variant="ghost" onClick={() => setAll(false)}>
          {COLLAPSE_ALL}
        </Button>
      </ListTools>
      <List ref={listRef} aria-label={label}>
        {steps.map((step) => {
          const live = step.status === 'in_progress' ? liveOutput?.[String(step.number)] : undefined;
          return (
          <StepCard
            key={step.number}
            step={live ? { ...step, output: live.output } : step}
            lastOutputAt={live?.lastAt}
            pending={pending[String(step.number)]}
            onAction={onAction}
            stepDefault={stepDefault}
            promptLabel={promptLabel}
            onChange={onChange}
            onResolveProposal={onResolveProposal}
            current={step.number === current}
            expanded={isOpen(step.number)}
            onToggle={() => setChosen((was) => ({ ...was, [step.number]: !isOpen(step.number) }))}
          />
          );
        })}
      </List>
    </>
  );
}

const ListTools = styled.div`
  display: flex;
  justify-content: flex-end;
  gap: ${({ theme }) => theme.space(1)};
`;

const List = styled.ol`
  display: flex;
  flex-direction: column;
  gap: ${({ theme }) => theme.space(2)};
  margin: 0;
  padding: 0;
  li { scroll-margin-top: ${({ theme }) => theme.space(4)}; }
`;
