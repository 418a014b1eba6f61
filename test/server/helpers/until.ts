/**
 * Waits for a condition to hold, checking it every few milliseconds, and fails naming `what` once
 * `timeoutMs` has passed. Tests wait on the state they need, never for a fixed time.
 */
export async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** `promise`, or a failure naming `what` once `timeoutMs` has passed: a hang says where it hung. */
export function settledWithin<T>(promise: Promise<T>, what: string, timeoutMs = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** The first value `probe` gives (not undefined), checked every few milliseconds; fails naming `what` after `timeoutMs`. */
export async function found<T>(probe: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
  let value: T | undefined;
  await until(() => (value = probe()) !== undefined, what, timeoutMs);
  return value as T;
}
