/**
 * The user and address of a server named by User Secrets stay out of what the person's browser is sent
 * (the command names the variables, the output and the facts name them too): each value, where it stands as
 * a whole word (not inside a longer name or address), becomes its variable, `$SERVER_HOST`.
 */

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `text` with each value of `values` (by variable name) replaced by `$NAME`, longest values first. */
export function blankValues(text: string, values: Record<string, string>): string {
  const pairs = Object.entries(values)
    .filter(([, v]) => v.length > 0)
    .sort(([, a], [, b]) => b.length - a.length);
  return pairs.reduce(
    // A word ends at anything but a name's characters; a dot ends it only when no name character follows (the end of a sentence).
    (out, [name, value]) => out.replace(new RegExp(`(?<![A-Za-z0-9_.-])${escape(value)}(?![A-Za-z0-9_-]|\\.[A-Za-z0-9])`, 'g'), `$${name}`),
    text,
  );
}

/** Every string in `data` (arrays and objects walked) with the values blanked. */
export function blankIn<T>(data: T, values: Record<string, string>): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return blankValues(v, values);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(data) as T;
}
