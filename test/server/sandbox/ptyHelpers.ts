import type { SandboxPty } from '../../../src/server/sandbox/driver';

/** Reads a shell's output until it matches `pattern`; answers everything seen. */
export function waitFor(shell: SandboxPty, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`timed out waiting for ${pattern}; saw ${JSON.stringify(seen.slice(-500))}`));
    }, timeoutMs);
    const sub = shell.onData((d) => {
      seen += d;
      if (pattern.test(seen)) {
        clearTimeout(timer);
        sub.dispose();
        resolve(seen);
      }
    });
  });
}
