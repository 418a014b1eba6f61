import { execOutcome, execTracker } from '../../../src/server/sandbox/execTracker';
import { REDACTED } from '../../../src/server/sandbox/redactor';
import type { ExecResult } from '../../../src/server/sandbox/driver';

/**
 * The bookkeeping every driver's exec shares (local, docker, kubernetes): the drivers' own tests run it
 * on real processes; these pin its rules where a real process could not make them happen on demand.
 */
const SECRET = 'canary-5d1e8b';
const LONG = 60_000;

describe('execTracker', () => {
  it('redacts each stream on its own, a secret split across chunks included, and hands on what it passes', () => {
    const chunks: Array<[string, string]> = [];
    const tracker = execTracker({ secrets: [SECRET], onOutput: (text, stream) => chunks.push([stream, text]) }, { timeoutMs: LONG, maxOutput: 1_000 }, () => undefined);
    tracker.chunk(`out ${SECRET.slice(0, 6)}`, 'stdout');
    tracker.chunk('err line\n', 'stderr');
    tracker.chunk(`${SECRET.slice(6)} done\n`, 'stdout');
    const result = tracker.finish(0);
    expect(result).toMatchObject({ exitCode: 0, timedOut: false, cancelled: false });
    // The start of the secret is held back on stdout while stderr's line goes on to its listener; the
    // combined output keeps stdout's line whole, stderr's after it (a docker read can split a line so).
    expect(result.output).toBe(`out ${REDACTED} done\nerr line\n`);
    expect(chunks.filter(([stream]) => stream === 'stderr').map(([, text]) => text)).toEqual(['err line\n']);
    expect(chunks.filter(([stream]) => stream === 'stdout').map(([, text]) => text).join('')).toBe(`out ${REDACTED} done\n`);
  });

  it('keeps the end of a long output, up to the cap', () => {
    const tracker = execTracker({}, { timeoutMs: LONG, maxOutput: 100 }, () => undefined);
    for (let i = 0; i < 50; i++) tracker.chunk(`line ${i}\n`, 'stdout');
    const { output } = tracker.finish(0);
    expect(output.length).toBeLessThanOrEqual(100);
    expect(output.endsWith('line 49\n')).toBe(true);
  });

  it('kills the command once its time is up, and then has no exit code', async () => {
    let killed = 0;
    const tracker = execTracker({ timeoutMs: 1 }, { timeoutMs: LONG, maxOutput: 1_000 }, () => killed++);
    await new Promise<void>((resolve) => {
      const check = (): void => (killed ? resolve() : void setTimeout(check, 5));
      check();
    });
    expect(tracker.stopped).toBe(true);
    expect(tracker.finish(137)).toMatchObject({ exitCode: null, timedOut: true, cancelled: false });
  });

  it('kills the command when its signal aborts, an already aborted one too', async () => {
    let killed = 0;
    const controller = new AbortController();
    const tracker = execTracker({ signal: controller.signal }, { timeoutMs: LONG, maxOutput: 1_000 }, () => killed++);
    expect(tracker.stopped).toBe(false);
    controller.abort();
    expect(killed).toBe(1);
    expect(tracker.finish(143)).toMatchObject({ exitCode: null, timedOut: false, cancelled: true });

    const early = execTracker({ signal: AbortSignal.abort() }, { timeoutMs: LONG, maxOutput: 1_000 }, () => killed++);
    await Promise.resolve();
    expect(killed).toBe(2);
    expect(early.finish(null).cancelled).toBe(true);
  });

  it('stops its timer and its abort listener once finished', () => {
    let killed = 0;
    const controller = new AbortController();
    const tracker = execTracker({ signal: controller.signal }, { timeoutMs: LONG, maxOutput: 1_000 }, () => killed++);
    tracker.finish(0);
    controller.abort();
    expect(killed).toBe(0);
  });
});

describe('execOutcome', () => {
  const result = (fields: Partial<ExecResult>): ExecResult => ({ exitCode: 0, output: '', timedOut: false, cancelled: false, durationMs: 1, ...fields });

  it('says how the command ended', () => {
    expect(execOutcome(result({ exitCode: 0 }))).toBe('exited with code 0');
    expect(execOutcome(result({ exitCode: 2 }))).toBe('exited with code 2');
    expect(execOutcome(result({ exitCode: null }))).toBe('was killed by a signal');
    expect(execOutcome(result({ exitCode: null, cancelled: true }))).toBe('was cancelled');
    expect(execOutcome(result({ exitCode: null, timedOut: true }))).toBe('timed out and was stopped');
    expect(execOutcome(result({ exitCode: null, timedOut: true }), 90_000)).toBe('timed out after 90 s and was stopped');
  });
});
