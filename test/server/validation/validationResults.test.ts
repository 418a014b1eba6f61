import fc from 'fast-check';
import type { Step } from '../../../src/shared/api/execution';
import { DOCUMENTATION } from '../../../src/shared/constants/documentation';
import { basisOf, changesSince, outOfDateNote, resultsSection, verdictOf, withResults } from '../../../src/server/services/documentation/validationResults';

const STATUSES = ['completed', 'failed', 'waiting_approval', 'rejected', 'in_progress', 'pending'] as const;
const at = fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }).map((ms) => new Date(ms).toISOString());
const stepsArb = fc
  .array(fc.record({ status: fc.constantFrom(...STATUSES), description: fc.string({ maxLength: 30 }), output: fc.string({ maxLength: 60 }), finished_at: fc.option(at, { nil: null }) }), { maxLength: 8 })
  .map((rows): Step[] => rows.map((r, i) => ({ step_number: i + 1, command: 'true', prompt: '', error_message: null, ...r })));

describe('validation results in the documents', () => {
  it('a document written from the current results is never out of date', () => {
    fc.assert(fc.property(stepsArb, (steps) => expect(changesSince(basisOf(steps), steps)).toEqual([])));
  });

  it('a check whose result differs from the one written is named, failed ones as failed', () => {
    fc.assert(
      fc.property(stepsArb.filter((s) => s.length > 0), fc.nat(), fc.constantFrom(...STATUSES), (steps, pick, status) => {
        const i = pick % steps.length;
        const basis = basisOf(steps);
        const now = steps.map((s, j) => (j === i ? { ...s, status } : s));
        const changes = changesSince(basis, now);
        if (steps[i]!.status === status) expect(changes).toEqual([]);
        else {
          expect(changes).toHaveLength(1);
          expect(changes[0]).toMatch(new RegExp(`^check ${i + 1} \\(`));
          if (status === 'failed') expect(changes[0]).toMatch(/\) failed/);
        }
      }),
    );
  });

  it('says all passed only when every check completed, and the table has a row per check', () => {
    fc.assert(
      fc.property(stepsArb, (steps) => {
        const allPassed = steps.length > 0 && steps.every((s) => s.status === 'completed');
        expect(/^All \d+ checks passed/.test(verdictOf(steps))).toBe(allPassed);
        const rows = resultsSection(steps).split('\n').filter((l) => /^\| \d+\. /.test(l));
        expect(rows).toHaveLength(steps.length);
      }),
    );
  });

  it('puts the results where the writer left the marker, else at the end, and the note first', () => {
    const note = outOfDateNote('2026-11-28T03:40:00.000Z', ['check 3 (Proxy) failed at 2026-11-28 03:52:00 UTC']);
    expect(note).toBe('**Out of date.** This document was written at 2026-11-28 03:40:00 UTC; since then check 3 (Proxy) failed at 2026-11-28 03:52:00 UTC. The validation results in it are current; regenerate the documentation to bring the rest up to date.');
    expect(withResults(`# Doc\n\n${DOCUMENTATION.resultsMarker}\n\n## More`, 'RESULTS', null)).toBe('# Doc\n\nRESULTS\n\n## More');
    expect(withResults('# Doc\n', 'RESULTS', note)).toBe(`> ${note}\n\n# Doc\n\nRESULTS\n`);
  });
});
