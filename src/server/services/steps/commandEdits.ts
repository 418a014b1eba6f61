import { badRequest } from '../../errors';

/**
 * A change to part of a step's command: `find` (an exact piece of the command, occurring once) becomes
 * `replace`. An empty `find` appends `replace` as new last lines. Changing a step by edits keeps every
 * line nobody asked to change: "use `docker compose up -d --wait`" on a 30-line step changes one line.
 */
export interface CommandEdit {
  find: string;
  replace: string;
}

/** Edits arriving as a tool's arguments: a list of `{ find, replace }` strings, else 400. */
export function toEdits(value: unknown): CommandEdit[] {
  if (!Array.isArray(value)) throw badRequest('edits must be a list of { find, replace }');
  return value.map((e: unknown) => {
    const edit = e as Partial<Record<'find' | 'replace', unknown>>;
    if (typeof edit?.find !== 'string' || typeof edit.replace !== 'string') throw badRequest('each edit needs find and replace strings');
    return { find: edit.find, replace: edit.replace };
  });
}

/**
 * Applies edits in order. A `find` that does not occur, or occurs more than once, answers 400 naming it:
 * guessing which occurrence was meant would change what nobody asked for. Removing a whole line (an empty
 * `replace` of a line's full text) removes its line break too.
 */
export function applyEdits(command: string, edits: readonly CommandEdit[]): string {
  let text = command;
  for (const { find, replace } of edits) {
    if (!find) {
      text = text ? `${text.replace(/\n+$/, '')}\n${replace}` : replace;
      continue;
    }
    const at = text.indexOf(find);
    if (at < 0) throw badRequest(`The command does not contain ${JSON.stringify(find.slice(0, 200))}`);
    if (text.indexOf(find, at + 1) >= 0) throw badRequest(`${JSON.stringify(find.slice(0, 200))} occurs more than once in the command: quote more of the line`);
    const lineStart = at === 0 || text[at - 1] === '\n';
    const end = at + find.length;
    const lineEnd = end === text.length || text[end] === '\n';
    if (!replace && lineStart && lineEnd) {
      // The whole line goes, with one of the line breaks around it.
      text = end < text.length ? text.slice(0, at) + text.slice(end + 1) : text.slice(0, Math.max(0, at - 1));
    } else {
      text = text.slice(0, at) + replace + text.slice(end);
    }
  }
  return text;
}
