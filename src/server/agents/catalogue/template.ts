/**
 * The templates of provider files (commands, descriptions, device paths): Mustache's logic-less subset,
 * parsed into a tree, so a file with an unclosed section or an unknown name stops the server at start.
 *
 *   {{name}}                 the value, as written (shell text: nothing is escaped)
 *   {{#name}}…{{/name}}      a list: the body once per item, the item's fields in scope (outer names still
 *                            resolve); a true or present value: the body once, an object's fields in scope
 *   {{^name}}…{{/name}}      the body when the value is false, absent or an empty list
 *   {{-first}} {{-last}}     inside a list's body: true for its first (last) item, to join items
 *                            (`{{#ports}}{{^-first}},{{/-first}}{{port}}{{/ports}}` gives `22,2222`)
 */

export class TemplateError extends Error {}

type Node = { text: string } | { name: string } | { section: string; inverted: boolean; body: Node[] };

export type Value = string | number | boolean | undefined | Scope | Scope[];
export interface Scope {
  [name: string]: Value;
}

const OPEN = '{{';
const CLOSE = '}}';
const NAME = /^-?[A-Za-z][A-Za-z0-9]*$/;

/** The tree of a template; throws naming what is wrong (an unclosed tag or section, a bad name). */
export function parseTemplate(source: string): Node[] {
  const root: Node[] = [];
  const open: Array<{ section: string; body: Node[] }> = [];
  let body = root;
  let at = 0;
  while (at < source.length) {
    const start = source.indexOf(OPEN, at);
    if (start < 0) {
      body.push({ text: source.slice(at) });
      break;
    }
    if (start > at) body.push({ text: source.slice(at, start) });
    const end = source.indexOf(CLOSE, start + OPEN.length);
    if (end < 0) throw new TemplateError(`a tag opened at ${start} is not closed`);
    const tag = source.slice(start + OPEN.length, end).trim();
    const sigil = '#^/'.includes(tag[0] ?? '') ? tag[0]! : '';
    const name = tag.slice(sigil.length).trim();
    if (!NAME.test(name)) throw new TemplateError(`{{${tag}}} does not name a value`);
    if (sigil === '#' || sigil === '^') {
      const section: Node = { section: name, inverted: sigil === '^', body: [] };
      body.push(section);
      open.push({ section: name, body });
      body = section.body;
    } else if (sigil === '/') {
      const last = open.pop();
      if (last?.section !== name) throw new TemplateError(`{{/${name}}} closes ${last ? `{{#${last.section}}}` : 'no section'}`);
      body = last.body;
    } else body.push({ name });
    at = end + CLOSE.length;
  }
  if (open.length) throw new TemplateError(`{{#${open.at(-1)!.section}}} is not closed`);
  return root;
}

/** Every name a template reads (sections and values), to check them against what the renderer supplies. */
export function templateNames(nodes: Node[], into = new Set<string>()): Set<string> {
  for (const n of nodes) {
    if ('name' in n) into.add(n.name);
    else if ('section' in n) {
      into.add(n.section);
      templateNames(n.body, into);
    }
  }
  return into;
}

function lookup(scopes: Scope[], name: string): Value {
  for (let i = scopes.length - 1; i >= 0; i -= 1) if (name in scopes[i]!) return scopes[i]![name];
  return undefined;
}

function renderNodes(nodes: Node[], scopes: Scope[]): string {
  let out = '';
  for (const n of nodes) {
    if ('text' in n) out += n.text;
    else if ('name' in n) {
      const v = lookup(scopes, n.name);
      if (v !== undefined && typeof v !== 'object') out += String(v);
    } else {
      const v = lookup(scopes, n.section);
      const items = Array.isArray(v) ? v : v ? [v] : [];
      if (n.inverted) {
        if (!items.length) out += renderNodes(n.body, scopes);
        continue;
      }
      items.forEach((item, i) => {
        const own: Scope = { ...(typeof item === 'object' ? item : {}), ...(Array.isArray(v) ? { '-first': i === 0, '-last': i === items.length - 1 } : {}) };
        out += renderNodes(n.body, [...scopes, own]);
      });
    }
  }
  return out;
}

/** The template's text with the scope's values in it. */
export function renderTemplate(source: string, scope: Scope): string {
  return renderNodes(parseTemplate(source), [scope]);
}
