import type { ExecOptions, ExecResult } from './driver';
import { createRedactor } from './redactor';

/**
 * The bookkeeping of one exec, the same in every driver (local, docker, kubernetes): redaction per
 * stream (a secret split across chunks is still caught), the output cap (the end is kept), the timeout
 * and the cancel. The driver calls `chunk` for what arrives and `finish` with the exit code (also when
 * the command could not run, to stop the timer); `kill` is the driver's way to end the command.
 */
export function execTracker(
  opts: ExecOptions,
  defaults: { timeoutMs: number; maxOutput: number },
  kill: () => void,
): {
  chunk(text: string, stream: 'stdout' | 'stderr'): void;
  finish(code: number | null): ExecResult;
  readonly stopped: boolean;
} {
  const started = Date.now();
  let output = '';
  let timedOut = false;
  let cancelled = false;
  const redactors = { stdout: createRedactor(opts.secrets ?? []), stderr: createRedactor(opts.secrets ?? []) };
  const append = (text: string): void => {
    output += text;
    if (output.length > defaults.maxOutput * 2) output = output.slice(-defaults.maxOutput);
  };
  // The combined output keeps the order the command wrote in: while one stream holds a possible start of a
  // secret back, what the other releases waits (`deferred`) until the held text is out, so a line split
  // across reads ("out ca" | "nary\n") is not cut by the other stream's output.
  let deferred = '';
  const other = (stream: 'stdout' | 'stderr'): 'stdout' | 'stderr' => (stream === 'stdout' ? 'stderr' : 'stdout');
  const emit = (text: string, stream: 'stdout' | 'stderr'): void => {
    if (text) opts.onOutput?.(text, stream);
    if (redactors[other(stream)].pending) {
      deferred += text;
      return;
    }
    append(text);
    if (deferred && !redactors[stream].pending) {
      append(deferred);
      deferred = '';
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    kill();
  }, opts.timeoutMs ?? defaults.timeoutMs);
  const onAbort = (): void => {
    cancelled = true;
    kill();
  };
  if (opts.signal?.aborted) queueMicrotask(onAbort);
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    get stopped() {
      return timedOut || cancelled;
    },
    chunk: (text, stream) => emit(redactors[stream].push(text), stream),
    finish(code) {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      emit(redactors.stdout.flush(), 'stdout');
      emit(redactors.stderr.flush(), 'stderr');
      append(deferred);
      deferred = '';
      return {
        exitCode: timedOut || cancelled ? null : code,
        output: output.length > defaults.maxOutput ? output.slice(-defaults.maxOutput) : output,
        timedOut,
        cancelled,
        durationMs: Date.now() - started,
      };
    },
  };
}

/**
 * How an exec ended, in words after "The command …" (a step's error, the DevOps Helper's note); a
 * timeout names its limit when given one.
 *
 * @example `The command ${execOutcome(result)}.`  // 'The command exited with code 2.'
 */
export function execOutcome(result: ExecResult, timeoutMs?: number): string {
  if (result.timedOut) return `timed out${timeoutMs ? ` after ${Math.round(timeoutMs / 1000)} s` : ''} and was stopped`;
  if (result.cancelled) return 'was cancelled';
  return result.exitCode === null ? 'was killed by a signal' : `exited with code ${result.exitCode}`;
}
