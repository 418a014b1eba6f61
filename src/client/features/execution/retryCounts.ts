import { EXECUTION } from '../../../shared/constants';

/**
 * Per-step auto-retry counts in local storage under `EXECUTION.retryCountStorageKey`, a JSON map of
 * step number to count (part 2 section 3), so that reloading the page does not reset the limit.
 */
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

/** Adds one retry for `stepNumber` and answers the new count. */
export function incrementRetryCount(stepNumber: number): number {
  const counts = readRetryCounts();
  const next = (counts[String(stepNumber)] ?? 0) + 1;
  counts[String(stepNumber)] = next;
  try {
    window.localStorage.setItem(EXECUTION.retryCountStorageKey, JSON.stringify(counts));
  } catch {
    // Storage unavailable: the count lives only for this call, and the limit still holds within the saga.
  }
  return next;
}
