/**
 * How deep a client's JSON may nest. The app's deepest body (a stack model inside a request) is under
 * ten levels; a body 9,000 levels deep is 18 KB, well inside the size limit, and every recursive walk
 * over it (validation, serialisation, a redaction pass) would exhaust the stack.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * True when the JSON text nests objects and arrays deeper than `max`. One pass over the characters,
 * skipping strings (a `[` inside a string is text), with no recursion and no allocation, so that it is
 * safe to run before the text is parsed. Text that is not JSON is left for the parser to refuse.
 */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) inString = true;
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth += 1;
      if (depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth -= 1;
  }
  return false;
}
