import { retryKey } from './retryCounts';
import type { Step, StepChange, StepProposal } from '../../../shared/api/execution';

/** A step as the cards show it (part 2 section 3): number, status, texts, and why it needs a human. */
export interface ViewStep {
  number: number;
  status: string;
  command: string | null;
  prompt: string;
  description: string;
  output: string | null;
  error: string | null;
  dangerousReason: string | null;
  /** When the step last started, and when that run ended (ISO 8601); null when unknown. */
  startedAt: string | null;
  finishedAt: string | null;
  /** What a revised plan changed in this step compared with what ran; null when nothing. */
  change: StepChange | null;
  /** For a changed step, the command that ran before. */
  previousCommand: string | null;
  /** A change the agent proposed, not saved yet. */
  proposal: StepProposal | null;
}

/** What a progress answer may hold: the contract's `Step`, or the older `number` field the spec mentions. */
type RawStep = Partial<Step> & { number?: number; error?: string | null };

/**
 * Normalises the steps of a progress answer: the number is read from `step_number`, else `number`,
 * else the position (1-based); status defaults to pending; the error is `error_message`. Sorted by number.
 */
export function toViewSteps(steps: readonly RawStep[]): ViewStep[] {
  return steps
    .map((step, index) => ({
      number: step.step_number ?? step.number ?? index + 1,
      status: step.status ?? 'pending',
      command: step.command ?? null,
      prompt: step.prompt ?? '',
      description: step.description ?? '',
      output: step.output ?? null,
      error: step.error_message ?? step.error ?? null,
      dangerousReason: step.dangerous_reason ? step.dangerous_reason : null,
      startedAt: step.started_at ?? null,
      finishedAt: step.finished_at ?? null,
      change: step.change ?? null,
      previousCommand: step.previous_command ?? null,
      proposal: step.proposal ?? null,
    }))
    .sort((a, b) => a.number - b.number);
}

export interface ProgressSummary {
  completed: number;
  total: number;
  /** 0..100, rounded. */
  percent: number;
  /** The in-progress step's number, or null ('None'). */
  current: number | null;
  /** The highest-numbered completed or failed step. */
  lastExecuted: ViewStep | null;
  /** Every step completed, and there is at least one. */
  allCompleted: boolean;
}

export function summarise(steps: readonly ViewStep[], totalSteps?: number): ProgressSummary {
  const completed = steps.filter((step) => step.status === 'completed').length;
  const total = Math.max(totalSteps ?? 0, steps.length);
  const executed = steps.filter((step) => step.status === 'completed' || step.status === 'failed');
  return {
    completed,
    total,
    percent: total === 0 ? 0 : Math.round((completed / total) * 100),
    current: steps.find((step) => step.status === 'in_progress')?.number ?? null,
    lastExecuted: executed.length ? executed.reduce((a, b) => (b.number > a.number ? b : a)) : null,
    allCompleted: total > 0 && completed === total,
  };
}

/**
 * Auto-approve (part 2 section 4): the waiting step whose number is the highest completed number + 1
 * (1 when none completed). A step the server marked dangerous is never approved automatically.
 */
export function nextAutoApproval(steps: readonly ViewStep[]): ViewStep | null {
  const highestCompleted = steps.reduce((max, step) => (step.status === 'completed' ? Math.max(max, step.number) : max), 0);
  const next = steps.find((step) => step.number === highestCompleted + 1);
  if (!next || next.status !== 'waiting_approval' || next.dangerousReason) return null;
  return next;
}

/** What auto-retry does with a progress answer: re-run a step, leave one (saying why), or nothing (no failed step). */
export type AutoRetryDecision = { retry: ViewStep } | { skip: ViewStep; reason: 'dangerous' | 'exhausted' } | null;

/**
 * Auto-retry (part 2 section 4): the first failed step, if it has been retried fewer than `max` times.
 * Only the first failed step is considered; a dangerous one is left to the user, as for auto-approve.
 * A step left alone is named with the reason, so the toggle can say why nothing happened.
 */
export function autoRetryDecision(
  steps: readonly ViewStep[],
  retryCounts: Readonly<Record<string, number>>,
  max: number,
  projectId: number,
): AutoRetryDecision {
  const failed = steps.find((step) => step.status === 'failed');
  if (!failed) return null;
  if (failed.dangerousReason) return { skip: failed, reason: 'dangerous' };
  return (retryCounts[retryKey(projectId, failed.number)] ?? 0) < max ? { retry: failed } : { skip: failed, reason: 'exhausted' };
}

/**
 * The step the person deals with now: the running one, else the first that waits for approval or
 * failed. Null when none does (all done, or nothing yet).
 */
export function currentStepNumber(steps: readonly ViewStep[]): number | null {
  const running = steps.find((step) => step.status === 'in_progress');
  if (running) return running.number;
  return steps.find((step) => step.status === 'waiting_approval' || step.status === 'failed')?.number ?? null;
}

/** The first `lines` lines of an output, and whether anything was cut. */
export function previewLines(output: string, lines: number): { text: string; truncated: boolean } {
  const all = output.split('\n');
  return { text: all.slice(0, lines).join('\n'), truncated: all.length > lines };
}

/** A step's running time as the card shows it: '8 s', '2 min 05 s', '1 h 02 min'. */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.floor(ms / 1000));
  const pad = (n: number): string => String(n).padStart(2, '0');
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ${pad(seconds % 60)} s`;
  return `${Math.floor(seconds / 3600)} h ${pad(Math.floor((seconds % 3600) / 60))} min`;
}
