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

/** The forms of a secret that get blanked: the value, and its base64 and base64url encodings (padded or not). */
export function secretForms(secret: string): string[] {
  if (secret.length < MIN_SECRET_LENGTH) return [];
  const b64 = Buffer.from(secret, 'utf8').toString('base64');
  const b64url = Buffer.from(secret, 'utf8').toString('base64url');
  return [...new Set([secret, b64, b64.replace(/=+$/, ''), b64url])];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A streaming redactor for the given secret values. Usage:
 *   const r = createRedactor(['hunter2-token']);
 *   socket.send(r.push(chunk)); ... socket.send(r.flush());
 * With no secrets it passes chunks through untouched.
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const forms = [...new Set(secrets.flatMap(secretForms))].sort((a, b) => b.length - a.length);
  let held = '';
  if (forms.length === 0) {
    return { push: (chunk) => chunk, flush: () => '', pending: false };
  }
  const pattern = new RegExp(forms.map(escapeRegExp).join('|'), 'g');

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
      const out = held;
      held = '';
      return out;
    },
    get pending(): boolean {
      return held.length > 0;
    },
  };
}

/** Redacts a complete text in one go. */
export function redactText(text: string, secrets: readonly string[]): string {
  const r = createRedactor(secrets);
  return r.push(text) + r.flush();
}
