import fc from 'fast-check';
import { createRedactor, REDACTED, textRedactor } from '../../../src/server/sandbox/redactor';
import { FRAGMENT_MIN_BITS, FRAGMENT_MIN_LENGTH, guessBits } from '../../../src/server/sandbox/secretForms';

/**
 * Properties of redaction over the forms a secret takes by accident in a shell: whatever the secret,
 * whatever the encoding, cut or wrap, and however the output is split into chunks, the form never
 * reaches the reader; text that holds no secret passes unchanged.
 */

const GENERATED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const TYPED = `${GENERATED}@%:/!#$&*+=?.,;~ `;
const generated = fc.stringMatching(new RegExp(`^[${GENERATED.replace('-', '\\-')}]{16,40}$`));
/** A password a person typed: symbols that URL-encoding changes, a space even. */
const typed = fc.array(fc.constantFrom(...TYPED), { minLength: 12, maxLength: 32 }).map((cs) => `Pw${cs.join('')}9z`);
const secret = fc.oneof(generated, typed).filter((s) => guessBits(s.replace(/\s/g, '')) >= FRAGMENT_MIN_BITS);

const hexBytes = (s: string): string[] => Buffer.from(s).toString('hex').match(/../g) ?? [];
const wrap = (text: string, width: number): string => (text.match(new RegExp(`.{1,${width}}`, 'gs')) ?? []).join('\n');

/** How a shell prints a value: each returns what appears in the output and the text that must not. */
const encodings: Record<string, (s: string, n: number) => string> = {
  raw: (s) => s,
  'encodeURIComponent (p%40ss)': (s) => encodeURIComponent(s),
  'percent-encoding, lower case': (s) => encodeURIComponent(s).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
  'od -An -tx1': (s) => (hexBytes(`${s}\n`).join(' ').match(/.{1,48}/g) ?? []).map((l) => ` ${l}`).join('\n'),
  'xxd -p': (s) => wrap(Buffer.from(`${s}\n`).toString('hex'), 60),
  'HEX with colons': (s) => hexBytes(s).join(':').toUpperCase(),
  base64: (s) => wrap(Buffer.from(`${s}\n`).toString('base64'), 76),
  'base64 at an offset': (s, n) => Buffer.from(`${'x'.repeat(n % 3)}${s}`).toString('base64'),
  'fold -w N': (s, n) => wrap(s, 1 + (n % 12)),
};

/** Runs `text` through a streaming redactor cut at the given points, and through the whole-text one. */
function bothWays(text: string, secrets: string[], cuts: number[]): string[] {
  const r = createRedactor(secrets);
  let out = '';
  let from = 0;
  for (const at of [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)) {
    out += r.push(text.slice(from, at));
    from = at;
  }
  out += r.push(text.slice(from)) + r.flush();
  return [out, textRedactor(secrets)(text)];
}

const noWhitespace = (s: string): string => s.replace(/\s+/g, '');
const surround = fc.stringMatching(/^[a-z =:\n]{0,20}$/);
const cuts = fc.array(fc.nat(), { maxLength: 6 });

describe('redaction of the forms of a secret', () => {
  it.each(Object.keys(encodings))('never lets the %s form through, streamed or whole', (name) => {
    fc.assert(
      fc.property(secret, fc.nat(), surround, surround, cuts, (s, n, before, after, at) => {
        const form = encodings[name](s, n);
        for (const out of bothWays(`${before}${form}${after}`, [s], at)) {
          expect(noWhitespace(out)).not.toContain(noWhitespace(name === 'base64 at an offset' ? form.slice(4, -4) : form));
          expect(out).toContain(REDACTED);
        }
      }),
      { numRuns: 150 },
    );
  });

  it('streamed a line at a time (fold, xxd -p, a terminal), lets out no more than the first three characters of a form', () => {
    fc.assert(
      fc.property(secret, fc.integer({ min: 1, max: 40 }), fc.boolean(), surround, (s, width, hex, before) => {
        const form = hex ? Buffer.from(s).toString('hex') : s;
        const r = createRedactor([s]);
        let out = r.push(before);
        for (const line of wrap(form, width).split('\n')) out += r.push(`${line}\n`);
        out += r.push('$ ') + r.flush();
        expect(noWhitespace(out)).not.toContain(form.slice(3));
        // A line without a secret goes out at once, its end of line included.
        expect(r.push('done\n')).toBe('done\n');
      }),
      { numRuns: 200 },
    );
  });

  it('never lets a cut piece through that is long and random enough to matter', () => {
    fc.assert(
      fc.property(secret, fc.nat(), fc.nat(), surround, surround, cuts, (s, a, b, before, after, at) => {
        const start = a % s.length;
        const piece = s.slice(start, start + FRAGMENT_MIN_LENGTH + (b % s.length));
        fc.pre(piece.length >= FRAGMENT_MIN_LENGTH && guessBits(noWhitespace(piece)) >= FRAGMENT_MIN_BITS && noWhitespace(piece) === piece);
        for (const out of bothWays(`${before}${piece}\n${after}`, [s], at)) expect(out).not.toContain(piece);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves text without a secret unchanged, identifiers made of the words of a secret included', () => {
    const words = ['postgres', 'password', 'redis', 'admin', 'stack', 'caddy', 'data', 'backup', 'e2e', 'app'];
    const word = fc.constantFrom(...words);
    const wordy = fc.tuple(word, word, word, fc.constantFrom('-', '_', '.')).map(([x, y, z, sep]) => [x, y, z].join(sep));
    const line = fc.array(fc.tuple(word, word, fc.nat(9)).map(([x, y, n]) => `${x}_${y}_${n}`), { maxLength: 8 }).map((ids) => ids.join(' '));
    fc.assert(
      fc.property(fc.oneof(wordy, generated), fc.oneof(line, fc.stringMatching(/^[a-z _\n]{0,80}$/)), cuts, (s, text, at) => {
        fc.pre(!text.includes(s));
        for (const out of bothWays(text, [s], at)) expect(out).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
