import { SEALED_REFERENCE } from './sealedSecrets';

/** What a secret is replaced with in any output. */
export const REDACTED = '[REDACTED]';

/** Secrets shorter than this are not redacted: blanking every `a` would destroy the output and protect nothing. */
export const MIN_SECRET_LENGTH = 4;

export interface Redactor {
  /**
   * Redacts one chunk of a stream. A tail that could be the start of a secret is held back until the
   * next chunk (or `flush`), so a value split across chunks is still caught.
   */
  push(chunk: string): string;
  /** Emits whatever is held back (end of stream, or an idle terminal). */
  flush(): string;
  /** True when `push` is holding characters back. */
  readonly pending: boolean;
}

/**
 * How many characters of a secret are enough to blank on their own: any 8 consecutive characters of
 * a secret (`printf "$S" | cut -c1-8`, half of it on stdout and half on stderr) are redacted. Below
 * that, a fragment could be ordinary text.
 */
export const FRAGMENT_LENGTH = 8;

/**
 * The base64 characters that depend on the secret's bytes alone, wherever the secret starts in the
 * encoded data (offset 0, 1 or 2 bytes into a 3-byte group) and whatever follows it
 * (`echo "$S" | base64` encodes a trailing newline too, `base64 <<< "x$S"` a prefix).
 */
function base64Cores(bytes: Buffer): string[] {
  const cores: string[] = [];
  for (const offset of [0, 1, 2]) {
    const data = Buffer.concat([Buffer.alloc(offset), bytes]);
    const encoded = data.toString('base64');
    const core = encoded.slice(offset === 0 ? 0 : 4, Math.floor(data.length / 3) * 4);
    if (core.length >= FRAGMENT_LENGTH) cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores;
}

/**
 * The forms of a secret that get blanked: the value; its base64 and base64url encodings (padded or
 * not, at any byte offset); its hex, lower and upper case; its characters separated by spaces; and
 * every run of FRAGMENT_LENGTH characters of it. What is not caught: other encodings (rot13, gzip,
 * reversed, characters on separate lines), fragments shorter than FRAGMENT_LENGTH, and hex or base64
 * of a fragment.
 */
export function secretForms(secret: string): string[] {
  if (secret.length < MIN_SECRET_LENGTH) return [];
  const bytes = Buffer.from(secret, 'utf8');
  const b64 = bytes.toString('base64');
  const hex = bytes.toString('hex');
  const fragments: string[] = [];
  for (let i = 0; i + FRAGMENT_LENGTH <= secret.length; i += 1) fragments.push(secret.slice(i, i + FRAGMENT_LENGTH));
  return [
    ...new Set([secret, b64, b64.replace(/=+$/, ''), bytes.toString('base64url'), ...base64Cores(bytes), hex, hex.toUpperCase(), [...secret].join(' '), ...fragments]),
  ];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The forms of the given secrets, longest first, and one pattern matching any of them (null when none). */
function compile(secrets: readonly string[]): { forms: string[]; pattern: RegExp | null } {
  const forms = [...new Set(secrets.flatMap(secretForms))].sort((a, b) => b.length - a.length);
  return { forms, pattern: forms.length ? new RegExp(forms.map(escapeRegExp).join('|'), 'g') : null };
}

/**
 * A streaming redactor for the given secret values. Usage:
 *   const r = createRedactor(['hunter2-token']);
 *   socket.send(r.push(chunk)); ... socket.send(r.flush());
 * With no secrets it passes chunks through untouched.
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const { forms, pattern } = compile(secrets);
  let held = '';
  if (!pattern) {
    return { push: (chunk) => chunk, flush: () => '', pending: false };
  }

  /** Length of the longest suffix of `text` that is a proper prefix of some secret form. */
  const partialTail = (text: string): number => {
    let longest = 0;
    for (const form of forms) {
      for (let k = Math.min(form.length - 1, text.length); k > longest; k--) {
        if (text.endsWith(form.slice(0, k))) {
          longest = k;
          break;
        }
      }
    }
    return longest;
  };

  return {
    push(chunk: string): string {
      const text = held + chunk;
      let out = '';
      let last = 0;
      let lastMatchEnd = 0;
      pattern.lastIndex = 0;
      for (let m = pattern.exec(text); m; m = pattern.exec(text)) {
        // A fragment at the end may be the start of the whole secret: wait for the next chunk.
        const tail = text.slice(m.index);
        if (forms.some((form) => form.length > tail.length && form.startsWith(tail))) {
          out += text.slice(last, m.index);
          held = tail;
          return out;
        }
        out += text.slice(last, m.index) + REDACTED;
        last = m.index + m[0].length;
        lastMatchEnd = last;
      }
      const rest = text.slice(last);
      const keep = Math.min(partialTail(text.slice(lastMatchEnd)), rest.length);
      held = rest.slice(rest.length - keep);
      return out + rest.slice(0, rest.length - keep);
    },
    flush(): string {
      // Nothing more will come: a fragment held back in case the whole secret followed is final now.
      const out = held.replace(pattern, REDACTED);
      held = '';
      return out;
    },
    get pending(): boolean {
      return held.length > 0;
    },
  };
}

/**
 * The one whole-text redaction: a function that blanks every form of the given secret values, and every
 * sealed reference to a secret, in a complete text (a command, an error, a stored output, a commit
 * message, a log line). The pattern is
 * built once, so keep the function for as long as the secrets stay the same.
 *   const redact = textRedactor(Object.values(await secrets.secretValues(projectId)));
 *   store({ command: redact(command) });
 */
export function textRedactor(secrets: readonly string[]): (text: string) => string {
  const { pattern } = compile(secrets);
  // A stored command or plan holds sealed references to secrets (sealedSecrets.ts): shown like the value.
  const hideSealed = (text: string): string => text.replace(SEALED_REFERENCE, REDACTED);
  // The longest form first at each position, as the streaming redactor does: a whole text has no tail to hold.
  return pattern ? (text) => hideSealed(text.replace(pattern, REDACTED)) : hideSealed;
}

/**
 * The redaction of a document people read as written (a requirements document, a plan): each whole
 * secret value and each sealed reference blanked, but not the fragments and encodings `textRedactor`
 * also blanks. Those guard command output (`printf "$S" | cut -c1-8`); in a plan, blanking every
 * 8-character run of `e2e-postgres-password` would blank the word "postgres" and break its diagram.
 */
export function documentRedactor(secrets: readonly string[]): (text: string) => string {
  const values = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))].sort((a, b) => b.length - a.length);
  const pattern = values.length ? new RegExp(values.map(escapeRegExp).join('|'), 'g') : null;
  return (text) => (pattern ? text.replace(pattern, REDACTED) : text).replace(SEALED_REFERENCE, REDACTED);
}

/** Redacts a complete text in one go (a single use of `textRedactor`). */
export function redactText(text: string, secrets: readonly string[]): string {
  return textRedactor(secrets)(text);
}
