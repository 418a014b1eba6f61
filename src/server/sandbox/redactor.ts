import { SEALED_REFERENCE } from './sealedSecrets';
import { blankablePieces, MIN_SECRET_LENGTH, secretForms } from './secretForms';

export { MIN_SECRET_LENGTH } from './secretForms';

/** What a secret is replaced with in any output. */
export const REDACTED = '[REDACTED]';

export interface Redactor {
  /**
   * Redacts one chunk of a stream. A tail that could be the start of a secret's form is held back until
   * the next chunk (or `flush`), so a value split across chunks is still caught.
   */
  push(chunk: string): string;
  /** Emits whatever is held back (end of stream, or an idle terminal). */
  flush(): string;
  /** True when `push` is holding characters back. */
  readonly pending: boolean;
}

/** Where a pattern comes from: a form, the offset in it, and whether a match may grow along the form. */
interface Source {
  form: string;
  offset: number;
  grows: boolean;
}

/** A stretch of canonical text to blank; `open` when the form it holds could go on past its end. */
interface Span {
  start: number;
  end: number;
  open: boolean;
}

/** A text with its whitespace removed, and for each character left its index in the text. */
interface Canonical {
  text: string;
  at: Int32Array;
}

function toCanonical(text: string): Canonical {
  const at = new Int32Array(text.length);
  let out = '';
  let n = 0;
  for (let i = 0; i < text.length; i += 1) {
    if (!/\s/.test(text[i])) {
      out += text[i];
      at[n] = i;
      n += 1;
    }
  }
  return { text: out, at: at.subarray(0, n) };
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The matcher of a set of secrets: every pattern (a whole form, or a blankable piece of a cuttable form)
 * in one alternation, longest first; what each pattern is part of; and the patterns joined, to ask
 * quickly whether a stream's tail could still become one.
 */
class Matcher {
  private readonly pattern: RegExp;
  private readonly sources = new Map<string, Source[]>();
  private readonly starts: string;
  readonly longest: number;

  private constructor(patterns: Map<string, Source[]>) {
    this.sources = patterns;
    const list = [...patterns.keys()].sort((a, b) => b.length - a.length);
    this.pattern = new RegExp(list.map(escapeRegExp).join('|'), 'g');
    this.starts = `\0${list.join('\0')}`;
    this.longest = list[0]?.length ?? 0;
  }

  static of(secrets: readonly string[]): Matcher | null {
    const patterns = new Map<string, Source[]>();
    const add = (key: string, source: Source): void => {
      const list = patterns.get(key);
      if (list) list.push(source);
      else patterns.set(key, [source]);
    };
    for (const secret of new Set(secrets)) {
      const { whole, cuttable } = secretForms(secret);
      for (const form of whole) add(form, { form, offset: 0, grows: false });
      for (const form of cuttable) {
        add(form, { form, offset: 0, grows: true });
        for (const piece of blankablePieces(form)) {
          // A piece can occur more than once in a form; growing from its first place is enough to cover it.
          add(piece, { form, offset: form.indexOf(piece), grows: true });
        }
      }
    }
    return patterns.size ? new Matcher(patterns) : null;
  }

  /** Whether some pattern is longer than `text` and starts with it. */
  private startsLonger(text: string): boolean {
    for (let i = this.starts.indexOf(`\0${text}`); i >= 0; i = this.starts.indexOf(`\0${text}`, i + 1)) {
      const next = this.starts[i + 1 + text.length];
      if (next !== undefined && next !== '\0') return true;
    }
    return false;
  }

  /**
   * The spans of `text` (canonical) holding a form or a piece of one, each grown to all it covers, in
   * order; `open` when more of the form could follow the span (a stream holds such a span at its end).
   */
  spans(text: string): Span[] {
    const spans: Span[] = [];
    this.pattern.lastIndex = 0;
    for (let m = this.pattern.exec(text); m; m = this.pattern.exec(text)) {
      let [start, end, open] = [m.index, m.index + m[0].length, this.startsLonger(m[0])];
      for (const source of this.sources.get(m[0]) ?? []) {
        if (!source.grows) continue;
        let [l, fl] = [m.index, source.offset];
        while (l > 0 && fl > 0 && text[l - 1] === source.form[fl - 1]) [l, fl] = [l - 1, fl - 1];
        let [r, fr] = [m.index + m[0].length, source.offset + m[0].length];
        while (r < text.length && fr < source.form.length && text[r] === source.form[fr]) [r, fr] = [r + 1, fr + 1];
        if (r - l > end - start) [start, end] = [l, r];
        if (r === end && fr < source.form.length) open = true;
      }
      const last = spans[spans.length - 1];
      // Overlapping spans are one; spans that only touch stay two, so the whitespace between them stays.
      if (last && start < last.end) Object.assign(last, { end: Math.max(last.end, end), open: end >= last.end ? open : last.open });
      else spans.push({ start, end, open });
      this.pattern.lastIndex = end;
    }
    return spans;
  }

  /** Length of the longest suffix of `text` (canonical) that is a proper start of some pattern. */
  openTail(text: string): number {
    let longest = 0;
    for (let k = 1; k < this.longest && k <= text.length; k += 1) {
      if (this.starts.includes(`\0${text.slice(text.length - k)}`)) longest = k;
    }
    return longest;
  }
}

/** A start of a form shorter than this at the end of a line is let out (see createRedactor). */
const SHORT_START = 4;

/** `text` with the given canonical spans replaced by REDACTED (the whitespace inside a span goes with it). */
function blank(text: string, canon: Canonical, spans: readonly Span[]): string {
  let out = '';
  let last = 0;
  for (const { start, end } of spans) {
    out += text.slice(last, canon.at[start]) + REDACTED;
    last = canon.at[end - 1] + 1;
  }
  return out + text.slice(last);
}

function redactWith(matcher: Matcher, text: string): string {
  const canon = toCanonical(text);
  return blank(text, canon, matcher.spans(canon.text));
}

/**
 * A streaming redactor for the given secret values. Usage:
 *   const r = createRedactor(['hunter2-token']);
 *   socket.send(r.push(chunk)); ... socket.send(r.flush());
 * With no secrets it passes chunks through untouched.
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const matcher = Matcher.of(secrets);
  let held = '';
  // The canonical text already emitted (its last stretch): a form that began there is still found, and
  // what of it is not yet out is blanked.
  let emitted = '';
  if (!matcher) return { push: (chunk) => chunk, flush: () => '', pending: false };

  /** Redacts `text`, emitting all of it when `final`, else all but a tail that could still become a form. */
  const pass = (text: string, final: boolean): string => {
    const canon = toCanonical(text);
    const full = emitted + canon.text;
    const shift = emitted.length;
    const spans = matcher
      .spans(full)
      .filter((span) => span.end > shift)
      .map((span) => ({ start: Math.max(0, span.start - shift), end: span.end - shift, open: span.open }));
    let keep = canon.text.length;
    if (!final) {
      // A line ends here: hold its end back only when it is a real start of a form (a line of `fold` or `xxd -p`
      // output), so ordinary lines go out at once; a start of a few characters that went out is found above.
      const open = matcher.openTail(full);
      const lineEnded = canon.at.length > 0 ? /\n/.test(text.slice(canon.at[canon.at.length - 1])) : /\n/.test(text);
      if (!lineEnded || open >= SHORT_START) keep = Math.max(0, full.length - open - shift);
      // A span that is complete goes out whole: a form that starts inside it is still found through `emitted`.
      const last = spans[spans.length - 1];
      if (last && !last.open && last.end > keep) keep = last.end;
      for (const span of [...spans].reverse()) {
        if (span.end > keep || (span.open && span.end === canon.text.length)) keep = Math.min(keep, span.start);
      }
    }
    const cut = keep >= canon.text.length ? text.length : canon.at[keep];
    held = text.slice(cut);
    emitted = (emitted + canon.text.slice(0, keep)).slice(-matcher.longest);
    return blank(text.slice(0, cut), canon, spans.filter((span) => span.end <= keep));
  };

  return {
    push: (chunk) => pass(held + chunk, false),
    // Nothing more will come: a piece held back in case more of the secret followed is final now.
    flush: () => pass(held, true),
    get pending(): boolean {
      return held.length > 0;
    },
  };
}

/**
 * The one whole-text redaction: a function that blanks every form of the given secret values, and every
 * sealed reference to a secret, in a complete text (a command, an error, a stored output, a commit
 * message, a log line, a document). The matcher is built once, so keep the function for as long as the
 * secrets stay the same.
 *   const redact = textRedactor(Object.values(await secrets.secretValues(projectId)));
 *   store({ command: redact(command) });
 */
export function textRedactor(secrets: readonly string[]): (text: string) => string {
  const matcher = Matcher.of(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH));
  // A stored command or plan holds sealed references to secrets (sealedSecrets.ts): shown like the value.
  const hideSealed = (text: string): string => text.replace(SEALED_REFERENCE, REDACTED);
  return matcher ? (text) => hideSealed(redactWith(matcher, text)) : hideSealed;
}

/**
 * The redaction of a document people read as written (a requirements document, a plan). The same as
 * `textRedactor`: a piece of a secret is blanked only when it is random enough (secretForms.ts), so the
 * word "postgres" in `e2e-postgres-password` no longer blanks the word in a diagram.
 */
export const documentRedactor = textRedactor;

/** Redacts a complete text in one go (a single use of `textRedactor`). */
export function redactText(text: string, secrets: readonly string[]): string {
  return textRedactor(secrets)(text);
}

/**
 * A test for whether a text holds any form of the secrets (a file a step wrote, checked before it enters
 * history or a download). Built once per set of secrets, like `textRedactor`.
 */
export function secretFinder(secrets: readonly string[]): (text: string) => boolean {
  const matcher = Matcher.of(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH));
  return matcher ? (text) => matcher.spans(toCanonical(text).text).length > 0 : () => false;
}
