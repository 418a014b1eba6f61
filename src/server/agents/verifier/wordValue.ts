import { shSyntax, type ShNode } from './shellSyntax';

/**
 * A word's value after bash's quote removal, read from the parser's tree without running anything: the
 * text a program receives as that argument. Only a word bash would pass on unchanged is read (quotes,
 * backslashes and `$'…'` escapes removed); a word with an expansion, a glob, a brace or a leading tilde is
 * built when the script runs, and is said to be so instead of guessed.
 */

/**
 * `lines[k]` is the line of the script on which line k+1 of `text` starts: a line break written as such
 * starts the next line there, one written as `$'\n'` stays on its line.
 */
export type WordValue = { text: string; lines: number[] } | { unread: string };

/** `$'…'`'s one-letter escapes, as bash decodes them. */
const ANSI_C: Record<string, string> = { a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?' };
const NUMERIC = /^(?:([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{1,4})|U([0-9A-Fa-f]{1,8})|c([\s\S]))/;

/** Text decoded from a word's parts, with where each of its lines starts. */
class Decoded {
  text = '';
  lines: number[];
  constructor(line: number) {
    this.lines = [line];
  }
  /** Adds decoded text; a line break in it starts a line on `nextLine`. */
  add(text: string, nextLine: number): void {
    for (const c of text) {
      this.text += c;
      if (c === '\n') this.lines.push(nextLine);
    }
  }
}

type Style = 'unquoted' | 'double' | 'single' | 'ansi';

/** Decodes one part's raw text as bash's quote removal does, from `line` on. */
function decode(raw: string, style: Style, line: number, out: Decoded): void {
  for (let i = 0; i < raw.length; i += 1) {
    const c = raw[i]!;
    if (c === '\n') {
      out.add(c, line + 1);
      line += 1;
      continue;
    }
    if (c !== '\\' || style === 'single' || i + 1 >= raw.length) {
      out.add(c, line);
      continue;
    }
    const next = raw[i + 1]!;
    if (style === 'ansi') {
      const numeric = NUMERIC.exec(raw.slice(i + 1));
      if (numeric) {
        const [all, oct, hex, u4, u8, ctl] = numeric;
        const code = oct ? parseInt(oct, 8) & 0xff : hex ? parseInt(hex, 16) : u4 ?? u8 ? Math.min(parseInt((u4 ?? u8)!, 16), 0x10ffff) : ctl!.charCodeAt(0) & 0x1f;
        out.add(String.fromCodePoint(code), line);
        i += all.length;
      } else if (ANSI_C[next] !== undefined) {
        out.add(ANSI_C[next], line);
        i += 1;
      } else out.add(c, line);
      continue;
    }
    // A backslash and a line break join the lines; otherwise, in double quotes, only `$ \` " \\` are quoted.
    if (next === '\n') {
      line += 1;
      i += 1;
    } else if (style === 'unquoted' || '$`"\\'.includes(next)) {
      out.add(next, line);
      i += 1;
    } else out.add(c, line);
  }
}

/** An unquoted literal that bash would still expand: a glob, a brace list or range, a leading tilde. */
function expandsUnquoted(raw: string, first: boolean): string | undefined {
  const bare = raw.replace(/\\./gs, '');
  if (/[*?[]/.test(bare)) return 'a glob';
  if (/\{[^}]*(,|\.\.)[^}]*\}/.test(bare)) return 'a brace expansion';
  if (first && bare.startsWith('~')) return 'a tilde';
  return undefined;
}

/** What a part of a word that is not literal brings in, said in a finding. */
function described(sh: ReturnType<typeof shSyntax>, part: ShNode): string {
  const type = sh.NodeType(part);
  if (type === 'ParamExp' && typeof part.Param?.Value === 'string') return `$${part.Param.Value}`;
  if (type === 'CmdSubst') return 'a command substitution';
  if (type === 'ArithmExp') return 'an arithmetic expansion';
  if (type === 'ProcSubst') return 'a process substitution';
  return `a ${type}`;
}

export function wordValue(word: ShNode | undefined): WordValue {
  if (!word) return { unread: 'no word' };
  const sh = shSyntax();
  const out = new Decoded(word.Pos().Line());
  const unread: string[] = [];
  (word.Parts ?? []).forEach((part, i) => {
    const type = sh.NodeType(part);
    if (type === 'Lit' && typeof part.Value === 'string') {
      const why = expandsUnquoted(part.Value, i === 0);
      if (why) unread.push(why);
      else decode(part.Value, 'unquoted', part.Pos().Line(), out);
    } else if (type === 'SglQuoted' && typeof part.Value === 'string') {
      decode(part.Value, (part as ShNode & { Dollar?: boolean }).Dollar ? 'ansi' : 'single', part.Pos().Line(), out);
    } else if (type === 'DblQuoted') {
      for (const inner of part.Parts ?? []) {
        if (sh.NodeType(inner) === 'Lit' && typeof inner.Value === 'string') decode(inner.Value, 'double', inner.Pos().Line(), out);
        else unread.push(described(sh, inner));
      }
    } else {
      unread.push(described(sh, part));
    }
  });
  return unread.length ? { unread: [...new Set(unread)].join(', ') } : { text: out.text, lines: out.lines };
}

/** The value of a word when it is fully literal, else undefined. */
export function literalValue(word: ShNode | undefined): string | undefined {
  const value = wordValue(word);
  return 'text' in value ? value.text : undefined;
}
