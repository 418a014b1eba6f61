/**
 * One cookie's value from a Cookie header, exactly as the `cookie` package's `parseCookie` (what
 * @fastify/cookie parses `request.cookies` with) gives it: pairs split on `;`, a pair without `=` skipped,
 * names and values trimmed of spaces and tabs, the first pair of a name wins, and a value with `%` is
 * URI-decoded when it decodes. A hot poll answered before Fastify reads its session cookie this way,
 * without making an object of every cookie the browser sent.
 */
export function cookieValue(header: string, name: string): string | undefined {
  const len = header.length;
  if (len < 2) return undefined;
  let index = 0;
  do {
    const eqIdx = indexOr(header, '=', index, len);
    if (eqIdx === len) break;
    const endIdx = indexOr(header, ';', index, len);
    if (eqIdx > endIdx) {
      // A pair without `=`: start again after the last `;` before this `=`.
      index = header.lastIndexOf(';', eqIdx - 1) + 1;
      continue;
    }
    const start = trimStart(header, index, eqIdx);
    if (trimEnd(header, start, eqIdx) - start === name.length && header.startsWith(name, start)) {
      const from = trimStart(header, eqIdx + 1, endIdx);
      return decode(header.slice(from, trimEnd(header, from, endIdx)));
    }
    index = endIdx + 1;
  } while (index < len);
  return undefined;
}

function indexOr(header: string, char: string, from: number, len: number): number {
  const at = header.indexOf(char, from);
  return at === -1 ? len : at;
}

const isBlank = (code: number): boolean => code === 32 || code === 9;

/** Where header[min, max) starts without its leading spaces and tabs. */
function trimStart(header: string, min: number, max: number): number {
  let start = min;
  while (start < max && isBlank(header.charCodeAt(start))) start += 1;
  return start;
}

/** Where header[start, max) ends without its trailing spaces and tabs. */
function trimEnd(header: string, start: number, max: number): number {
  let end = max;
  while (end > start && isBlank(header.charCodeAt(end - 1))) end -= 1;
  return end;
}

function decode(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
