import { jest } from '@jest/globals';

/**
 * For a test of a failure the app only logs: runs `body` with console.error silenced and answers what
 * was logged (first argument of each call, e.g. `[validation.start]`), so the test asserts it.
 */
export async function loggedErrors(body: () => Promise<void>): Promise<string[]> {
  const spy = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    await body();
    return spy.mock.calls.map((args) => String(args[0]));
  } finally {
    spy.mockRestore();
  }
}
