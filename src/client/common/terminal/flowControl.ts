/**
 * Client-side flow control of the terminal socket (the ttyd scheme): count the characters handed to
 * xterm and not yet parsed (xterm's write callback says when); above `high` ask the server to pause
 * the pty, below `low` to resume it. A 100 MB `cat` then never piles up in the browser.
 */
export const TERMINAL_WATERMARKS = { high: 256 * 1024, low: 32 * 1024 } as const;

export interface FlowControl {
  /** Call before handing `data` to xterm; pass the returned callback as xterm's write callback. */
  written: (data: string) => () => void;
  /** Characters handed to xterm and not yet parsed. */
  pending: () => number;
}

export function createFlowControl(
  send: (message: { type: 'pause' } | { type: 'resume' }) => void,
  watermarks: { high: number; low: number } = TERMINAL_WATERMARKS,
): FlowControl {
  let pending = 0;
  let paused = false;
  return {
    written(data) {
      pending += data.length;
      if (!paused && pending > watermarks.high) {
        paused = true;
        send({ type: 'pause' });
      }
      return () => {
        pending = Math.max(0, pending - data.length);
        if (paused && pending < watermarks.low) {
          paused = false;
          send({ type: 'resume' });
        }
      };
    },
    pending: () => pending,
  };
}
