/**
 * The derived forms of a secret: every way its value can show up in output by accident, computed once
 * per secret. The matcher (redactor.ts) compares them with text from which whitespace is removed, so a
 * form wrapped by `fold`, `base64` or `xxd -p`, or spread by `od -An -tx1`, matches as one piece.
 */

/** Secrets shorter than this are not redacted: blanking every `a` would destroy the output and protect nothing. */
export const MIN_SECRET_LENGTH = 4;

/** A piece of a secret (`cut -c1-8`) is blanked on its own only when it is at least this long… */
export const FRAGMENT_MIN_LENGTH = 8;

/**
 * …and carries at least this much guessed entropy (guessBits): `x7Gq9LmA` from a generated password
 * does, the word `postgres` from `e2e-postgres-password` does not, so `stack_postgres_1` stays readable.
 */
export const FRAGMENT_MIN_BITS = 30;

/** Whitespace is not part of any form: output wraps and spreads values with it. */
export const canonical = (text: string): string => text.replace(/\s+/g, '');

/** Separators inside identifiers cost almost nothing to guess. */
const SEPARATORS = new Set(['-', '_', '.', '/', ':']);

/** A run of letters in one case (or capitalised) that reads as a word: guessed from a dictionary, not letter by letter. */
const WORD = /^(?:[a-z]{3,}|[A-Z][a-z]{2,}|[A-Z]{3,})$/;

/**
 * A rough guess of the bits needed to guess `text`, in the spirit of zxcvbn: a word costs ~10 bits plus
 * one per extra letter, other letters 4.7, digits 3.3, a separator 1, any other character 5.
 */
export function guessBits(text: string): number {
  let bits = 0;
  for (const run of text.match(/[A-Za-z]+|[0-9]+|[^A-Za-z0-9]/g) ?? []) {
    if (/[A-Za-z]/.test(run[0])) bits += WORD.test(run) ? 10 + (run.length - 3) : run.length * 4.7;
    else if (/[0-9]/.test(run[0])) bits += run.length * 3.3;
    else bits += SEPARATORS.has(run) ? 1 : 5;
  }
  return bits;
}

/**
 * The base64 characters that depend on the secret's bytes alone, wherever the secret starts in the
 * encoded data (offset 0, 1 or 2 bytes into a 3-byte group) and whatever follows it
 * (`echo "$S" | base64` encodes a trailing newline too, `base64 <<< "x$S"` a prefix).
 */
function base64Forms(bytes: Buffer): string[] {
  const b64 = bytes.toString('base64');
  const forms = [b64, b64.replace(/=+$/, '')];
  for (const offset of [0, 1, 2]) {
    const data = Buffer.concat([Buffer.alloc(offset), bytes]);
    const core = data.toString('base64').slice(offset === 0 ? 0 : 4, Math.floor(data.length / 3) * 4);
    if (core.length >= FRAGMENT_MIN_LENGTH) forms.push(core);
  }
  return forms.flatMap((f) => [f, f.replace(/\+/g, '-').replace(/\//g, '_')]);
}

/** Hex, as `xxd -p`, `od -An -tx1` (spaces are whitespace) or `openssl` (colons) print it, in both cases. */
function hexForms(bytes: Buffer): string[] {
  const hex = bytes.toString('hex');
  const colons = hex.match(/../g)?.join(':') ?? hex;
  return [hex, colons].flatMap((f) => [f, f.toUpperCase()]);
}

/** Percent-encodings: JavaScript's, RFC 3986's (also `!'()*`), a form's (`+` for a space), with lower-case hex too. */
function urlForms(secret: string): string[] {
  const js = encodeURIComponent(secret);
  const strict = js.replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return [js, strict, strict.replace(/%20/g, '+')].flatMap((f) => [f, f.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())]);
}

/** The pieces of `form` that are blanked on their own: from each start, the shortest run that is long and random enough. */
export function blankablePieces(form: string): string[] {
  const pieces: string[] = [];
  for (let start = 0; start + FRAGMENT_MIN_LENGTH <= form.length; start += 1) {
    for (let end = start + FRAGMENT_MIN_LENGTH; end <= form.length; end += 1) {
      if (guessBits(form.slice(start, end)) >= FRAGMENT_MIN_BITS) {
        pieces.push(form.slice(start, end));
        break;
      }
    }
  }
  return pieces;
}

export interface SecretForms {
  /** Forms matched whole only (hex, base64): a piece of them is not text anyone reads. */
  readonly whole: readonly string[];
  /** Forms whose blankable pieces are matched too (`cut`), each match grown to all of the form it covers. */
  readonly cuttable: readonly string[];
}

/**
 * The forms of one secret, whitespace removed: the value and its percent-encodings (cuttable); its hex and
 * base64 (whole). What is not caught: other encodings (rot13, gzip, reversed), pieces with too little
 * entropy to tell from ordinary text, and hex or base64 of a piece.
 */
export function secretForms(secret: string): SecretForms {
  if (secret.length < MIN_SECRET_LENGTH) return { whole: [], cuttable: [] };
  const bytes = Buffer.from(secret, 'utf8');
  const cuttable = [...new Set([secret, ...urlForms(secret)].map(canonical))].filter((f) => f.length >= MIN_SECRET_LENGTH);
  const whole = [...new Set([...hexForms(bytes), ...base64Forms(bytes)])].filter((f) => !cuttable.includes(f));
  return { whole, cuttable };
}

/** The most a file check's fixed strings may take (they travel in one environment variable: 128 KB at most). */
const SEARCH_LIMIT = 100_000;

/**
 * Every fixed string whose presence means a text holds a secret (forms and blankable pieces), for a
 * search inside the sandbox (`git grep -F`) that cannot skip whitespace: a file wrapping a value by
 * `fold` is not found this way. Whole forms first, so a cap drops pieces before values.
 */
export function secretSearchStrings(secrets: readonly string[]): string[] {
  const all = new Set<string>();
  const forms = secrets.map(secretForms);
  for (const { whole, cuttable } of forms) for (const form of [...cuttable, ...whole]) all.add(form);
  for (const { cuttable } of forms) for (const form of cuttable) for (const piece of blankablePieces(form)) all.add(piece);
  const out: string[] = [];
  let size = 0;
  for (const s of all) {
    if ((size += s.length + 1) > SEARCH_LIMIT) break;
    out.push(s);
  }
  return out;
}
