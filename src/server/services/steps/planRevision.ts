import type { RemovedStep, StepChange, StepStatus } from '../../../shared/api/execution';

/** A step of the plan as stored (its command sealed), with what it did. */
export interface RanStep {
  stepNumber: number;
  description: string;
  prompt: string;
  command: string | null;
  status: StepStatus;
}

/** A step of the new version of the plan (its command sealed the same way). */
export interface NewStep {
  description: string;
  prompt: string;
  command: string | null;
}

/** A step of the revised plan: kept from what ran (its status and output carried over) or to be run. */
export type RevisedStep =
  | { kind: 'kept'; step: NewStep; from: RanStep }
  | { kind: 'run'; step: NewStep; change: StepChange | null; previousCommand: string | null };

export interface Revision {
  steps: RevisedStep[];
  removed: RemovedStep[];
  /** True when the new version differs from the stored plan in any step (order, command, added, removed). */
  differs: boolean;
  /** True when a step of the stored plan ran (completed or failed): only then are differences marked. */
  ran: boolean;
}

const ranStatus = (s: StepStatus): boolean => s === 'completed' || s === 'failed';

/** Pairs of indices of the longest common subsequence of two lists under `same` (order kept). */
function commonPairs<A, B>(a: readonly A[], b: readonly B[], same: (x: A, y: B) => boolean): Array<[number, number]> {
  const table: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) table[i]![j] = same(a[i]!, b[j]!) ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
  }
  const pairs: Array<[number, number]> = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (same(a[i]!, b[j]!)) {
      pairs.push([i, j]);
      i++;
      j++;
    } else if (table[i + 1]![j]! >= table[i]![j + 1]!) i++;
    else j++;
  }
  return pairs;
}

/**
 * Compares a new version of a plan with the plan that ran. Steps are paired by title in order (a title
 * the planner keeps is the same step), then a step whose title changed but whose command did not is
 * paired by its command. A paired step with the same command is unchanged: it keeps what it did. One
 * whose command differs is `changed`; an unpaired new step is `added`; an unpaired old one is removed.
 *
 * An unchanged step that ran after the first difference (a changed, added or removed step) is `rerun`:
 * steps work on what the steps before them produce (the files written, the stack copied), so
 * "Start the stack" must run again when "Write the stack files" changed, even though its command did not.
 * An unchanged step before the first difference keeps its status: it ran exactly this command.
 *
 * When no step ran, nothing is marked: the new version simply replaces the plan.
 */
export function revisePlan(old: readonly RanStep[], next: readonly NewStep[]): Revision {
  const ran = old.some((s) => ranStatus(s.status));
  const pairOf = new Map<number, number>();
  for (const [i, j] of commonPairs(next, old, (n, o) => n.description === o.description)) pairOf.set(i, j);
  const paired = new Set(pairOf.values());
  for (const [i, step] of next.entries()) {
    if (pairOf.has(i)) continue;
    const j = old.findIndex((o, k) => !paired.has(k) && o.command !== null && o.command === step.command);
    if (j >= 0) {
      pairOf.set(i, j);
      paired.add(j);
    }
  }
  const removedIdx = old.map((_, k) => k).filter((k) => !paired.has(k));
  const removed: RemovedStep[] = removedIdx.map((k) => ({ step_number: old[k]!.stepNumber, description: old[k]!.description, status: old[k]!.status }));

  // The position in the new order from which later steps run again: the first changed or added step, or
  // the place of the first removed step (after the new step paired with the old step before it).
  let firstDifference = next.length;
  for (const [i, step] of next.entries()) {
    const j = pairOf.get(i);
    if (j === undefined || old[j]!.command !== step.command) {
      firstDifference = i;
      break;
    }
  }
  for (const k of removedIdx) {
    const before = [...pairOf.entries()].filter(([, j]) => j < k).map(([i]) => i);
    firstDifference = Math.min(firstDifference, before.length ? Math.max(...before) + 1 : 0);
  }

  const steps: RevisedStep[] = next.map((step, i) => {
    const j = pairOf.get(i);
    const from = j === undefined ? undefined : old[j]!;
    if (!ran) return from && from.command === step.command ? { kind: 'kept', step, from } : { kind: 'run', step, change: null, previousCommand: null };
    if (!from) return { kind: 'run', step, change: 'added', previousCommand: null };
    if (from.command !== step.command) return { kind: 'run', step, change: 'changed', previousCommand: from.command };
    if (i > firstDifference && ranStatus(from.status)) return { kind: 'run', step, change: 'rerun', previousCommand: null };
    return { kind: 'kept', step, from };
  });
  const moved = [...pairOf.entries()].some(([i, j], _n, all) => all.some(([i2, j2]) => i2 > i && j2 < j));
  const differs =
    removed.length > 0 ||
    moved ||
    next.length !== old.length ||
    steps.some((s) => s.kind === 'run' && s.change !== null) ||
    next.some((s, i) => {
      const j = pairOf.get(i);
      return j === undefined || old[j]!.command !== s.command || old[j]!.description !== s.description || old[j]!.prompt !== s.prompt;
    });
  return { steps, removed: ran ? removed : [], differs, ran };
}
