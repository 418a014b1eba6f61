/**
 * Which values are secrets. Only these are sealed in stored plans and commands and redacted from what
 * people read (chat, documents, step output): a domain, a port, a host name or a user name the person
 * wrote stays visible wherever they wrote it. A value is a secret when its variable's name says so (one of
 * its words is a credential word) or when the value itself is shaped like a credential, whatever it is
 * called: a URL carrying a password, a private key, a token with a vendor's prefix, a JWT, or a long
 * random string.
 */

/** Words of a variable name that make its value a credential (`N8N_ENCRYPTION_KEY`, `DB_PASS`, `apiToken`). */
const SECRET_WORDS = new Set([
  'password',
  'passwd',
  'pass',
  'pwd',
  'passphrase',
  'secret',
  'secrets',
  'token',
  'tokens',
  'key',
  'apikey',
  'privatekey',
  'credential',
  'credentials',
  'creds',
  'salt',
  'pepper',
  'signature',
  'cookie',
  'jwt',
  'otp',
  'pin',
  'dsn',
]);
/** Words that make a `key` public (`PUBLIC_KEY`, `STRIPE_PUBLISHABLE_KEY`): its value is meant to be shown. */
const PUBLIC_WORDS = new Set(['public', 'pub', 'publishable']);

/** The words of an environment variable name: split at `_`, `-`, `.` and camelCase boundaries, lower case. */
export function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase());
}

/** True when a variable of this name holds a credential, by its name alone. */
export function isSecretName(name: string): boolean {
  const words = nameWords(name);
  if (words.some((w) => PUBLIC_WORDS.has(w))) return false;
  return words.some((w) => SECRET_WORDS.has(w));
}

/** Vendor token prefixes (GitHub, GitLab, Slack, OpenAI/Stripe, AWS, Google, Hugging Face, npm, SendGrid). */
const TOKEN_PREFIX = /^(gh[pousr]_|github_pat_|glpat-|xox[abprs]-|sk-|sk_(live|test)_|rk_(live|test)_|AKIA[0-9A-Z]{16}$|ASIA[0-9A-Z]{16}$|AIza[0-9A-Za-z_-]{20}|hf_|npm_|SG\.)/;
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^@\s]+@/i;
const JWT = /^eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}$/;
/** Shapes that are never credentials however random they look: host names, addresses, paths, e-mail, numbers. */
const PLAIN = /^([a-z0-9-]+\.)+[a-z]{2,}\.?(:\d+)?$|^\d{1,3}(\.\d{1,3}){3}(:\d+)?$|^[\w.+-]+@[\w-]+(\.[\w-]+)+$|^[~.]?\/|^-?\d+(\.\d+)?$|^[a-z][a-z0-9+.-]*:\/\/[^@\s]+$/i;

/** Shannon entropy of a string, bits per character. */
function entropy(value: string): number {
  const counts = new Map<string, number>();
  for (const c of value) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / value.length) * Math.log2(n / value.length);
  return bits;
}

/** True when the value itself is shaped like a credential, whatever its variable is called. */
export function looksLikeCredential(value: string): boolean {
  const v = value.trim();
  if (!v) return false;
  if (v.includes('-----BEGIN') || URL_WITH_PASSWORD.test(v) || TOKEN_PREFIX.test(v) || JWT.test(v)) return true;
  if (/\s/.test(v) || PLAIN.test(v) || v.length < 20) return false;
  // A long random string: letters mixed with digits (or symbols), and little repetition.
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((c) => c.test(v)).length;
  return classes >= 2 && /[0-9]/.test(v) && entropy(v) >= 3.5;
}

/** True when a variable's value is a secret: by its name, or by the shape of its value when it has one. */
export function isSecretVariable(name: string, value: string | undefined): boolean {
  return isSecretName(name) || (value !== undefined && looksLikeCredential(value));
}
