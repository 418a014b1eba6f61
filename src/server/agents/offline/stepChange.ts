import type { CommandEdit } from '../../services/steps/commandEdits';

/**
 * The offline execution agent's reading of "change step N …": the message is split into quoted pieces
 * (`…` or ``` blocks) and the words between them, and the words around each piece say what it is — the
 * part to find, what it becomes, a line to remove or to add. The result changes only those parts of the
 * step's command (edits, see commandEdits.ts). A piece that matches no part exactly stands for the line
 * of the command it most resembles (same program, most words in common); when none resembles it, the
 * agent asks rather than replacing the whole command.
 */
export type StepChange = { edits: CommandEdit[] } | { command: string } | { question: string };

interface Piece {
  quote: string;
  /** The words before this piece (after the previous one), lower case. */
  before: string[];
}

const WORD = /[a-z]+/g;

function piecesOf(message: string): { pieces: Piece[]; tail: string[] } {
  const pieces: Piece[] = [];
  const QUOTE = /```[\w-]*\n?([\s\S]*?)```|`([^`]+)`/g;
  let last = 0;
  for (let m = QUOTE.exec(message); m; m = QUOTE.exec(message)) {
    pieces.push({ quote: (m[1] ?? m[2] ?? '').replace(/\n$/, ''), before: message.slice(last, m.index).toLowerCase().match(WORD) ?? [] });
    last = m.index + m[0].length;
  }
  return { pieces, tail: message.slice(last).toLowerCase().match(WORD) ?? [] };
}

const has = (words: readonly string[], ...any: string[]): boolean => any.some((w) => words.includes(w));
const endsWith = (words: readonly string[], ...phrase: string[]): boolean => phrase.every((w, i) => words[words.length - phrase.length + i] === w);

/** Shell words of a line, without the wrappers that do not say what it does. */
const WRAPPERS = new Set(['sudo', '$sudo', 'env', 'exec', 'then', 'do', 'if', 'time', 'nohup']);
function wordsOf(line: string): string[] {
  // `docker-compose` and `docker compose`, `--wait` and `wait`: the same words.
  const words = line.toLowerCase().match(/[a-z0-9$./:]+/g) ?? [];
  let lead = 0;
  while (lead < words.length && WRAPPERS.has(words[lead]!)) lead++;
  return words.slice(lead);
}

/** The one line of `command` that `quote` most resembles (same first word, then most words in common). */
function nearestLine(command: string, quote: string): string | undefined {
  const q = wordsOf(quote);
  if (!q.length) return undefined;
  const scored = command
    .split('\n')
    .map((line) => {
      const l = wordsOf(line);
      const common = q.filter((w) => l.includes(w)).length;
      const score = (l[0] === q[0] ? 1 : 0) + common / new Set([...q, ...l]).size;
      return { line, score, sameProgram: l[0] === q[0], common };
    })
    .filter((x) => x.line.trim() && (x.sameProgram || x.common / q.length >= 0.5))
    .sort((a, b) => b.score - a.score);
  if (!scored.length || (scored[1] && scored[1].score === scored[0]!.score && scored[1].line !== scored[0]!.line)) return undefined;
  return scored[0]!.line;
}

/** `quote` as a part of `command`: itself when it occurs there, else the line it stands for (indentation kept). */
function partOf(command: string, quote: string): string | undefined {
  if (command.includes(quote)) return quote;
  return nearestLine(command, quote);
}

const indentOf = (line: string): string => /^\s*/.exec(line)![0];

export function stepChange(command: string, message: string): StepChange {
  const { pieces, tail } = piecesOf(message);
  if (!pieces.length) return { question: 'Quote what should change in backticks, e.g. replace `old part` with `new part`, or use `new line`.' };
  const all = [...pieces.flatMap((p) => p.before), ...tail];
  const lines = command.split('\n').filter((l) => l.trim()).length;
  const edits: CommandEdit[] = [];
  const unclear: string[] = [];
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    const next = pieces[i + 1];
    const words = piece.before;
    // "replace `A` with `B`", "change `A` to `B`", "`A` -> `B`"
    if (next && (has(next.before, 'with', 'to', 'into', 'by') || next.before.length === 0) && !has(next.before, 'instead', 'after', 'before')) {
      const part = partOf(command, piece.quote);
      if (part === undefined) unclear.push(piece.quote);
      else edits.push({ find: part, replace: part === piece.quote ? next.quote : indentOf(part) + next.quote.trim() });
      i++;
      continue;
    }
    // "use `B` instead of `A`"
    if (next && endsWith(next.before, 'instead', 'of')) {
      const part = partOf(command, next.quote);
      if (part === undefined) unclear.push(next.quote);
      else edits.push({ find: part, replace: part === next.quote ? piece.quote : indentOf(part) + piece.quote.trim() });
      i++;
      continue;
    }
    // "add `B` after `A`" / "before `A`"
    if (next && has(next.before, 'after', 'before')) {
      const part = partOf(command, next.quote);
      if (part === undefined) unclear.push(next.quote);
      else edits.push({ find: part, replace: has(next.before, 'after') ? `${part}\n${indentOf(part)}${piece.quote}` : `${indentOf(part)}${piece.quote}\n${part}` });
      i++;
      continue;
    }
    if (has(words, 'remove', 'delete', 'drop', 'without', 'skip')) {
      const part = command.includes(piece.quote) ? command.split('\n').find((l) => l.includes(piece.quote)) : nearestLine(command, piece.quote);
      if (part === undefined) unclear.push(piece.quote);
      else edits.push({ find: part, replace: '' });
      continue;
    }
    if (has(words, 'add', 'append', 'also', 'additionally')) {
      edits.push({ find: '', replace: piece.quote });
      continue;
    }
    if (has(all, 'whole', 'entire', 'all') || lines <= 1 || piece.quote.split('\n').length >= lines) return { command: piece.quote };
    // "use `B`", "change step 3 to `B`": the line it stands for.
    const part = nearestLine(command, piece.quote);
    if (part === undefined) unclear.push(piece.quote);
    else edits.push({ find: part, replace: indentOf(part) + piece.quote.trim() });
  }
  if (unclear.length) {
    return {
      question: `The command has ${lines} lines and I cannot tell which one ${unclear.map((q) => `\`${q}\``).join(', ')} is meant to change. Quote the part to change: replace \`old part\` with \`new part\`, or say "replace the whole command with \`...\`".`,
    };
  }
  return { edits };
}
