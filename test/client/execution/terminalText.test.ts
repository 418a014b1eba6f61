import fc from 'fast-check';
import { lastLine, tailLines, terminalText } from '../../../src/client/common/steps/terminalText';
import { currentStepNumber, toViewSteps } from '../../../src/client/common/steps/stepModel';
import { tabKeyTarget } from '../../../src/client/common/tabKeys';
import { countOf } from '../../../src/shared/plural';
import { makeStep } from './executionFixtures';

/** Printable text with newlines: what a program writes without any terminal control. */
const plain = fc.stringMatching(/^[ -~\n]*$/);
const sgr = fc.constantFrom('\u001b[0m', '\u001b[1;32m', '\u001b[2K', '\u001b[1A', '\u001b]0;title\u0007', '\u001b[?25l');

describe('terminalText: output as a terminal shows it, as plain text', () => {
  it('leaves plain text as it is', () => {
    fc.assert(fc.property(plain, (text) => terminalText(text) === text));
  });

  it('removes every control sequence wherever it sits, and keeps the text around it', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(plain, sgr)), plain, (pieces, end) => {
        const raw = pieces.map(([text, code]) => text + code).join('') + end;
        return terminalText(raw) === pieces.map(([text]) => text).join('') + end;
      }),
    );
  });

  it('is idempotent', () => {
    fc.assert(fc.property(fc.array(fc.oneof(plain, sgr, fc.constant('\r'))).map((parts) => parts.join('')), (raw) => terminalText(terminalText(raw)) === terminalText(raw)));
  });

  it('keeps what a redrawn line says last (a carriage return), and a CRLF ending as a line end', () => {
    expect(terminalText('Pulling 10%\rPulling 55%\rPulling done\nnext\r\n')).toBe('Pulling done\nnext\n');
    expect(terminalText(' \u001b[32m✔\u001b[0m Container configstack_redis_1  \u001b[32mHealthy\u001b[0m\n')).toBe(' ✔ Container configstack_redis_1  Healthy\n');
  });

  it('tailLines keeps the newest lines in order; lastLine names the last with text', () => {
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z ]{0,8}$/), { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 12 }), (lines, n) => {
        const tail = tailLines(lines.join('\n'), n);
        const kept = lines.join('\n').replace(/\n+$/, '').split('\n');
        return tail.text === kept.slice(-n).join('\n') && tail.truncated === kept.length > n;
      }),
    );
    expect(lastLine('a\n  caddy  Waiting \n\n')).toBe('caddy  Waiting');
    expect(lastLine('\n \n')).toBeNull();
  });
});

describe('the current step', () => {
  it('is the running one, else the first waiting or failed, else none', () => {
    const of = (statuses: string[]): number | null => currentStepNumber(toViewSteps(statuses.map((status, i) => makeStep(i + 1, { status: status as never }))));
    expect(of(['completed', 'in_progress', 'waiting_approval'])).toBe(2);
    expect(of(['completed', 'failed', 'waiting_approval'])).toBe(2);
    expect(of(['completed', 'rejected', 'waiting_approval'])).toBe(3);
    expect(of(['completed', 'completed'])).toBeNull();
  });
});

describe('tabKeyTarget (the ARIA tabs pattern)', () => {
  it('moves right and left with wrapping, and to the ends with Home and End; other keys are not its', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string(), { minLength: 1, maxLength: 6 }), fc.nat(), (tabs, i) => {
        const current = tabs[i % tabs.length]!;
        const right = tabKeyTarget('ArrowRight', tabs, current)!;
        return (
          tabKeyTarget('ArrowLeft', tabs, right) === current &&
          tabKeyTarget('Home', tabs, current) === tabs[0] &&
          tabKeyTarget('End', tabs, current) === tabs[tabs.length - 1] &&
          tabKeyTarget('Enter', tabs, current) === null
        );
      }),
    );
  });
});

describe('countOf', () => {
  it('says one thing in the singular and any other count in the plural', () => {
    expect(countOf(1, 'minute')).toBe('1 minute');
    expect(countOf(0, 'secret')).toBe('0 secrets');
    expect(countOf(3, 'automatic retry', 'automatic retries')).toBe('3 automatic retries');
    fc.assert(fc.property(fc.integer({ min: 2, max: 10_000 }), (n) => countOf(n, 'step') === `${n} steps`));
  });
});
