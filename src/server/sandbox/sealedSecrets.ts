import { badRequest } from '../errors';

/**
 * Secrets at rest in what an approval runs. A step's command and a plan document are kept byte for
 * byte, yet a User Secret typed into them literally must not sit in the database in clear: before one
 * is stored, every literal value of the project's passwords and keys (text-typed values such as a host
 * stay readable: the planner reads them) is replaced by a sealed reference naming the
 * secret (`⟪secret:DB_PASSWORD⟫`), and the reference is opened back into the value only when the
 * command is handed to the sandbox. What runs is what the person wrote; the database holds the name.
 *
 * A reference is shown to people as `[REDACTED]` (textRedactor), like any other form of a secret.
 */

const OPEN = '\u27EA';
const CLOSE = '\u27EB';
/** A sealed reference to a User Secret by name. */
export const SEALED_REFERENCE = new RegExp(`${OPEN}secret:([A-Za-z_][A-Za-z0-9_]*)${CLOSE}`, 'g');
/** Shorter values are not sealed (the redactor's MIN_SECRET_LENGTH): they would match ordinary text. */
const MIN_SEALED_LENGTH = 4;

export const sealedReference = (name: string): string => `${OPEN}secret:${name}${CLOSE}`;

/** The text with every literal value of the given secrets replaced by its reference (longest value first). */
export function sealSecrets(text: string, values: Readonly<Record<string, string>>): string {
  const entries = Object.entries(values)
    .filter(([, value]) => value.length >= MIN_SEALED_LENGTH)
    .sort(([, a], [, b]) => b.length - a.length);
  let sealed = text;
  for (const [name, value] of entries) sealed = sealed.split(value).join(sealedReference(name));
  return sealed;
}

/** `sealSecrets` for a value that may be null (a prompt-only step has no command). */
export const sealNullable = (text: string | null, values: Readonly<Record<string, string>>): string | null => (text === null ? null : sealSecrets(text, values));

/**
 * The text with every reference opened into the secret's current value: what the sandbox runs.
 * @throws 400 naming the secret when a referenced secret has no value (removed since it was sealed).
 */
export function openSecrets(text: string, values: Readonly<Record<string, string>>): string {
  return text.replace(SEALED_REFERENCE, (_whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw badRequest(`User Secret ${name} is not set: add it under User Secrets, then re-execute this step`);
    return value;
  });
}
