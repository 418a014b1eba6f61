import { EXECUTION } from '../../../shared/constants';

/**
 * Per-step auto-retry counts in local storage under `EXECUTION.retryCountStorageKey`, a JSON map of
 * '{projectId}:{stepNumber}' to count (part 2 section 3 keyed it by step number only, so projects
 * shared their counts: a new project's step 2 got no retries), so that reloading the page does not
 * reset the limit.
 */
export function retryKey(projectId: number, stepNumber: number): string {
  return `${projectId}:${stepNumber}`;
}

export function readRetryCounts(): Record<string, number> {
  try {
    const raw = window.localStorage.getItem(EXECUTION.retryCountStorageKey);
    const parsed: unknown = raw ? JSON.parse(raw) : {};
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(
      Object.entries(parsed).filter((entry): entry is [string, number] => Number.isInteger(entry[1]) && entry[1] >= 0),
    );
  } catch {
    return {};
  }
}

/** Adds one retry for the project's step and answers the new count. */
export function incrementRetryCount(projectId: number, stepNumber: number): number {
  const counts = readRetryCounts();
  const key = retryKey(projectId, stepNumber);
  const next = (counts[key] ?? 0) + 1;
  counts[key] = next;
  try {
    window.localStorage.setItem(EXECUTION.retryCountStorageKey, JSON.stringify(counts));
  } catch {
    // Storage unavailable: the count lives only for this call, and the limit still holds within the saga.
  }
  return next;
}
