import { createRedactor, REDACTED, redactText, textRedactor } from '../../../src/server/sandbox/redactor';

const SECRET = 'canary-7f3a9c1e';
const B64 = Buffer.from(SECRET).toString('base64');

describe('redactor', () => {
  it('replaces a secret and its base64 forms', () => {
    const text = `token=${SECRET} encoded=${B64} url=${Buffer.from(SECRET).toString('base64url')} bare=${B64.replace(/=+$/, '')}`;
    const out = redactText(text, [SECRET]);
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain(B64.replace(/=+$/, ''));
    expect(out.match(/\[REDACTED\]/g)).toHaveLength(4);
  });

  it('catches a secret split across chunks, at every split point', () => {
    const text = `before ${SECRET} after`;
    for (let cut = 1; cut < text.length; cut++) {
      const r = createRedactor([SECRET]);
      const out = r.push(text.slice(0, cut)) + r.push(text.slice(cut)) + r.flush();
      expect(out).toBe(`before ${REDACTED} after`);
    }
  });

  it('catches a secret typed one character per chunk', () => {
    const r = createRedactor([SECRET]);
    let out = '';
    for (const ch of `$ echo ${SECRET}\r\n`) out += r.push(ch);
    out += r.flush();
    expect(out).toBe(`$ echo ${REDACTED}\r\n`);
  });

  it('holds back only what could start a secret, so ordinary output is not delayed', () => {
    const r = createRedactor([SECRET]);
    expect(r.push('user@sandbox:~$ ')).toBe('user@sandbox:~$ ');
    expect(r.pending).toBe(false);
    expect(r.push('echo can')).toBe('echo ');
    expect(r.pending).toBe(true);
    expect(r.push('dle ')).toBe('candle ');
  });

  it('passes text through untouched without secrets and ignores values too short to matter', () => {
    expect(redactText('a b c', [])).toBe('a b c');
    expect(redactText('a b c', ['a'])).toBe('a b c');
  });

  it('prefers the longest form when forms overlap', () => {
    expect(redactText('xx secretvalue-long yy', ['secretvalue', 'secretvalue-long'])).toBe(`xx ${REDACTED} yy`);
  });

  it('replaces the hex, space-separated and offset-base64 forms of a secret', () => {
    const bytes = Buffer.from(SECRET);
    const forms = {
      hex: bytes.toString('hex'),
      HEX: bytes.toString('hex').toUpperCase(),
      spaced: [...SECRET].join(' '),
      // `echo "$S" | base64` (a newline after it) and `base64 <<< "x$S"`, `"xy$S"` (shifted by 1 and 2 bytes).
      newline: Buffer.from(`${SECRET}\n`).toString('base64'),
      offset1: Buffer.from(`x${SECRET}`).toString('base64'),
      offset2: Buffer.from(`xy${SECRET}`).toString('base64'),
    };
    for (const [name, form] of Object.entries(forms)) {
      const out = redactText(`${name}: ${form} end`, [SECRET]);
      expect({ name, leaked: out.includes(form) }).toEqual({ name, leaked: false });
      expect(out).toContain(REDACTED);
      expect(out).toMatch(/ end$/);
    }
    // What remains of a shifted encoding is at most the few characters that also depend on its neighbours.
    const shifted = redactText(forms.offset1, [SECRET]);
    expect(shifted.replace(REDACTED, '').length).toBeLessThanOrEqual(8);
  });

  it('replaces a cut piece of a secret that is random enough, not one that reads as words', () => {
    // `cut -c8-16` of the random part, or halves split between stdout and stderr.
    expect(redactText(`prefix ${SECRET.slice(7)}\n`, [SECRET])).toBe(`prefix ${REDACTED}\n`);
    expect(redactText(`mid ${SECRET.slice(3, 12)}`, [SECRET])).not.toContain(SECRET.slice(3, 12));
    // "canary-7" is a word and a digit: too little of the secret to tell from ordinary text.
    expect(redactText(`a ${SECRET.slice(0, 8)}`, [SECRET])).toBe(`a ${SECRET.slice(0, 8)}`);
    expect(redactText('can', [SECRET])).toBe('can');
  });

  it('leaves the words of a secret made of words alone inside identifiers, and blanks the whole value', () => {
    const password = 'e2e-postgres-password';
    expect(redactText(`stack_postgres_1 is up; password=${password}`, [password])).toBe(`stack_postgres_1 is up; password=${REDACTED}`);
  });

  it('redacts a whole text exactly as the stream does, pushed at once then flushed', () => {
    const secrets = [SECRET, 'second-Yq2w8Rt5'];
    const texts = [
      `a ${SECRET} b ${B64} c ${Buffer.from(SECRET).toString('hex')} d ${[...SECRET].join(' ')}`,
      `tail fragment ${SECRET.slice(0, 9)}`,
      `second-Yq2w8Rt5 and ${SECRET.slice(4)} and nothing`,
      'no secret here at all',
    ];
    const redact = textRedactor(secrets);
    for (const text of texts) {
      const r = createRedactor(secrets);
      expect(redact(text)).toBe(r.push(text) + r.flush());
    }
    expect(textRedactor([])('as is')).toBe('as is');
  });
});
