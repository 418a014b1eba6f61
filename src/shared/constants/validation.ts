import { countOf } from '../plural';

/** The validation stage (part 2 sections 2, 4, 8, 9). */

export const VALIDATION = {
  /** Fixed prompt sent to the validation agent to create the plan. */
  planPrompt: 'Create a validation plan to verify the deployed infrastructure and services',
  /** Validation plan and progress are polled this often, in ms. */
  pollMs: 3_000,
  /** Trigger answer that counts as success. */
  successStatus: 'success',
  /** Ours (the documents name none): the message the validation stage's trigger sends. */
  triggerMessage: 'Start validation',
} as const;

export const VALIDATION_TEXT = {
  title: 'Validation Progress',
  currentValidation: 'Current Validation',
  lastExecuted: 'Last Executed',
  none: 'None',
  autoApprove: 'Auto-Approve All Steps',
  noSteps: 'No validation steps available',
  /** 'Validation Step N', the default step description. */
  stepDefault: (n: number): string => `Validation Step ${n}`,
  /** Ours: the spec labels the execution step's prompt for its agent; a validation step's is the check it makes. */
  promptLabel: 'Check made by the validation agent',
  /** 'X / N steps completed' */
  completedCount: (completed: number, total: number): string => `${completed} / ${countOf(total, 'step')} completed`,
  validated: 'Infrastructure Successfully Validated!',
  viewDetails: 'View Infrastructure Details',
  generatingDocumentation: 'Generating Infrastructure Documentation...',
  generatingDocumentationDetail: 'Documentation and quick start guide',
  comingSoon: 'Coming Soon',
  comingSoonDescription: 'Validation tools.',
} as const;

export const VALIDATION_ERRORS = {
  startProcess: 'Failed to start validation process. Please try again.',
  start: 'Failed to start validation. Please try again or contact support.',
  createPlan: 'Failed to create validation plan. Please try again or contact support.',
  moveToValidation: 'Failed to move to validation stage. Please try again or contact support.',
  startShort: 'Failed to start validation',
  planInvalidFormat: 'Failed to fetch validation plan: Invalid response format',
  /** 'Error fetching validation plan: {message or Unknown error}' */
  fetchPlan: (message?: string): string => `Error fetching validation plan: ${message || 'Unknown error'}`,
} as const;
