import { countOf } from '../plural';

/** The execution stage: progress, step cards, approvals and auto-retry (part 2 sections 2, 3, 4, 8, 9). */

/** Step statuses. `rejected` is the server's answer to a rejected step; the client styles it like failed. */
export const STEP_STATUSES = ['pending', 'in_progress', 'waiting_approval', 'completed', 'failed', 'rejected'] as const;
export type StepStatusName = (typeof STEP_STATUSES)[number];

/** A status as shown on a step card: underscores become spaces ('waiting approval'). */
export const formatStepStatus = (status: string): string => status.replace(/_/g, ' ');

export const EXECUTION = {
  /** Fixed message of the implementation confirm's execution trigger. */
  triggerMessage: 'Start execution',
  progressPollMs: 5_000,
  /** Lines of step output shown before 'View Full Output'. */
  outputPreviewLines: 5,
  /** Ours: a running step shows its newest this many lines. */
  liveOutputLines: 12,
  /** Ours: a running step silent this long says what it last printed, and since when. */
  quietAfterMs: 30_000,
  /** A failed step is re-executed automatically at most this many times. */
  autoRetryMax: 3,
  /** Local storage key of the per-step retry counts (a JSON map of step number to count). */
  retryCountStorageKey: 'execution_step_retry_counts',
  /** Radius of the circular progress indicator (SVG units). */
  progressRingRadius: 35,
} as const;

export const EXECUTION_TEXT = {
  title: 'Execution Progress',
  // Ours: the running time, Cancel, and the ways on from a rejected step.
  cancel: 'Cancel',
  changeWithAgent: 'Change with the agent',
  changeDraft: (n: number): string => `Change step ${n}: `,
  runningFor: (duration: string): string => `Running for ${duration}`,
  tookFor: (duration: string): string => `Took ${duration}`,
  /** Ours: a running step that has printed nothing for a while: what it said last, as it waits. */
  quietFor: (line: string, duration: string): string => `Waiting, nothing new for ${duration}. Last output: ${line}`,
  currentExecution: 'Current Execution',
  lastExecuted: 'Last Executed',
  none: 'None',
  autoApprove: 'Auto-Approve All Steps',
  autoRetry: 'Auto-Retry Failed Steps',
  /** Ours: why Auto-Retry left the first failed step to the person. */
  autoRetrySkipped: (n: number, reason: 'dangerous' | 'exhausted', max: number): string =>
    reason === 'dangerous'
      ? `Auto-Retry skipped step ${n}: it needs your explicit approval (flagged dangerous). Re-execute it yourself if it is right.`
      : `Auto-Retry skipped step ${n}: it already failed after ${countOf(max, 'automatic retry', 'automatic retries')}. Change it or re-execute it yourself.`,
  noSteps: 'No execution steps available',
  /** 'Execution Step N', the default step description. */
  stepDefault: (n: number): string => `Execution Step ${n}`,
  /** 'N / total steps completed' */
  completedCount: (completed: number, total: number): string => `${completed} / ${countOf(total, 'step')} completed`,
  promptLabel: 'Step to be executed by the execution agent',
  commandLabel: 'Command to be executed',
  outputLabel: 'Output from the execution agent',
  approve: 'Approve',
  reject: 'Reject',
  reExecute: 'Re-execute',
  allCompleted: 'All execution steps completed successfully!',
  proceedToValidation: 'Proceed to Validation Stage',
  // Ours: a plan revised after a deploy, and changes the agent proposes.
  changeLabels: { added: 'New in this revision', changed: 'Changed since it ran', rerun: 'Runs again after a changed step' } as Record<string, string>,
  previousCommandLabel: 'What changed since it ran',
  revisionTitle: (n: number): string => `Revised plan (revision ${n}): only what differs from what ran waits for approval`,
  removedSteps: 'Removed from the plan (what they did stays on the server unless a step undoes it):',
  proposalLabel: 'Proposed change: review it before it is saved',
  proposalRequest: 'You asked:',
  saveChange: 'Save change',
  discardChange: 'Discard',
  comingSoon: 'Coming Soon',
  comingSoonDescription: 'An interactive terminal and file editor.',
} as const;

/** The 'Full Output' modal, shared by execution and validation step cards. */
export const FULL_OUTPUT_MODAL = {
  open: 'View Full Output',
  title: 'Full Output',
  // Ours, not the documents' ('appears only after commands complete'): a running step's output streams in.
  hint: 'Output appears here as the command runs. If nothing new shows, the command may still be working without printing anything.',
  close: 'Close',
  copy: 'Copy to Clipboard',
} as const;

export const EXECUTION_ERRORS = {
  loadProgress: 'Failed to load execution progress',
  noStepsData: 'No steps data available',
} as const;
