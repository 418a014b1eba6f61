/**
 * Here-documents of a shell script, read the way bash reads them: an operator `<<TAG`, `<<'TAG'`,
 * `<<"TAG"` or `<<-TAG` on a line (outside quotes and comments), its body the lines after that line up to
 * the one that is exactly TAG (leading tabs stripped for `<<-`). Several operators on one line take their
 * bodies in order.
 */

export interface Heredoc {
  /** The line holding the operator: the command the body feeds. */
  commandLine: string;
  tag: string;
  /** Quoted tag: the body is taken literally (no expansion by the shell that reads it). */
  quoted: boolean;
  body: string;
  /** 1-based line of the operator. */
  line: number;
}

/** Operators of one line, ignoring quoted text, `<<<` here-strings and comments. */
function operatorsOf(line: string): Array<{ tag: string; quoted: boolean; strip: boolean }> {
  const out: Array<{ tag: string; quoted: boolean; strip: boolean }> = [];
  let quote: string | undefined;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quote) {
      if (c === '\\' && quote === '"') i += 1;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '\\') {
      i += 1;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      continue;
    }
    if (c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) break;
    if (c !== '<' || line[i + 1] !== '<' || line[i + 2] === '<') continue;
    const m = line.slice(i + 2).match(/^(-?)[ \t]*(?:'([^']+)'|"([^"]+)"|\\?([A-Za-z_][A-Za-z0-9_]*))/);
    if (!m) continue;
    out.push({ tag: m[2] ?? m[3] ?? m[4]!, quoted: Boolean(m[2] ?? m[3]), strip: m[1] === '-' });
    i += 1 + m[0].length;
  }
  return out;
}

export function heredocsOf(script: string): Heredoc[] {
  const lines = script.split('\n');
  const out: Heredoc[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const ops = operatorsOf(line);
    i += 1;
    for (const op of ops) {
      const body: string[] = [];
      while (i < lines.length) {
        const l = op.strip ? lines[i]!.replace(/^\t+/, '') : lines[i]!;
        i += 1;
        if (l === op.tag) break;
        body.push(l);
      }
      out.push({ commandLine: line, tag: op.tag, quoted: op.quoted, body: body.join('\n'), line: i - body.length - 1 });
    }
  }
  return out;
}

/** `{ printf 'export %s=%q\n' A "$A" B "$B"; cat <<'TAG'; } | ssh …`: the variables sent ahead of the script (remoteShell's sendEnvAhead). */
const SENT_AHEAD = /printf\s+'export %s=%q\\n'((?:\s+[A-Za-z_][A-Za-z0-9_]*\s+"\$[A-Za-z_][A-Za-z0-9_]*")+)\s*;/;

/**
 * A here-document fed to a shell on the server (`ssh … 'bash -s' <<'TAG'`): the variables it gets, either
 * sent on ssh's stdin ahead of the script or put on ssh's command line in front of `bash -s`
 * (`onCommandLine`: `"NAME=$(printf %q "$NAME") bash -s"`, where `ps` shows the value on both machines).
 */
export function remoteScript(doc: Heredoc): { passed: string[]; onCommandLine: string[] } | undefined {
  if (!/\bssh\b/.test(doc.commandLine) || !/\b(ba)?sh\s+-s\b/.test(doc.commandLine)) return undefined;
  const before = doc.commandLine.slice(0, doc.commandLine.search(/\b(ba)?sh\s+-s\b/));
  const sshAt = before.search(/\bssh\b/);
  const onCommandLine = [...before.slice(sshAt).matchAll(/(?:^|[\s"'])([A-Za-z_][A-Za-z0-9_]*)=/g)].map((m) => m[1]!);
  const ahead = SENT_AHEAD.exec(before.slice(0, sshAt))?.[1] ?? '';
  const sent = [...ahead.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s+"\$([A-Za-z_][A-Za-z0-9_]*)"/g)].map((m) => m[1]!);
  return { passed: [...sent, ...onCommandLine], onCommandLine };
}
