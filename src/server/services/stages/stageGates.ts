import type { Step } from '../../../shared/api/execution';
import type { StageId } from '../../../shared/api/stages';

/** Reads a project's steps as the server recorded them (ExecutionService / ValidationService narrowed). */
export interface StepRecord {
  steps(projectId: number): Promise<{ steps: Step[] }>;
}

/** What a stage whose result is a set of steps calls them, in its refusals. */
interface StepGate {
  /** 'step' or 'check'. */
  noun: string;
  /** The stage's name in a sentence. */
  stage: string;
  /** Said when the stage has no steps at all. */
  none: string;
}

/**
 * The stages the server itself decides are done: a step stage is completed only when its record says every
 * step completed. The browser's view of progress never counts (a faked progress poll once completed
 * validation with no check run). Stages not named here complete when the person says so.
 */
const STEP_GATES: Partial<Record<StageId, StepGate>> = {
  execution: { noun: 'step', stage: 'Execution', none: 'Execution has no steps yet: confirm the implementation plan first.' },
  validation: { noun: 'check', stage: 'Validation', none: 'Validation has not run yet: create the validation plan and run its checks first.' },
};

const label = (s: Step, noun: string): string => `${noun} ${s.step_number}${s.description ? ` (${s.description})` : ''}`;
const NOT_RUN: Record<string, string> = {
  pending: 'has not run',
  waiting_approval: 'is waiting for approval',
  in_progress: 'is still running',
  rejected: 'was rejected',
};

/**
 * Why `steps` do not make their stage done, or null when every one completed: the first few that did not,
 * in plain words ("check 2 (The proxy answers) failed; check 3 is waiting for approval").
 */
export function unfinishedReason(gate: StepGate, steps: Step[]): string | null {
  if (!steps.length) return gate.none;
  const open = steps.filter((s) => s.status !== 'completed');
  if (!open.length) return null;
  const shown = open.slice(0, 3).map((s) => `${label(s, gate.noun)} ${s.status === 'failed' ? 'failed' : (NOT_RUN[s.status] ?? `is ${s.status}`)}`);
  const more = open.length > shown.length ? `, and ${open.length - shown.length} more` : '';
  return `${gate.stage} is not complete: ${open.length} of ${steps.length} ${gate.noun}s did not complete (${shown.join('; ')}${more}).`;
}

/**
 * The server's own answer to "may this stage be marked completed?": null when it may, else the reason (a 409
 * detail). Reads the step records of the execution and validation stages.
 */
export function createStageGates(records: Partial<Record<StageId, StepRecord>>) {
  return async function completionRefusal(projectId: number, stageId: string): Promise<string | null> {
    const gate = STEP_GATES[stageId as StageId];
    const record = records[stageId as StageId];
    if (!gate || !record) return null;
    return unfinishedReason(gate, (await record.steps(projectId)).steps);
  };
}

export type CompletionRefusal = ReturnType<typeof createStageGates>;

/** Validation's own verdict, for the documentation and its generation: null when every check passed. */
export const validationRefusal = (steps: Step[]): string | null => unfinishedReason(STEP_GATES.validation!, steps);

/**
 * Why the documentation may not be written yet, or null: it states what validation verified, so every check
 * must have a result of the server's (completed or failed: a failure is documented, a check never run is not).
 */
export function undocumentedReason(steps: Step[]): string | null {
  if (!steps.length) return STEP_GATES.validation!.none;
  const open = steps.filter((s) => s.status !== 'completed' && s.status !== 'failed');
  if (!open.length) return null;
  const shown = open.slice(0, 3).map((s) => `${label(s, 'check')} ${NOT_RUN[s.status] ?? `is ${s.status}`}`);
  return `The documentation states what validation verified, and ${open.length} of ${steps.length} checks have no result yet (${shown.join('; ')}${open.length > 3 ? ', …' : ''}).`;
}
