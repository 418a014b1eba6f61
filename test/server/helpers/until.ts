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
