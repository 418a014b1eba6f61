/**
 * ECMA-48 control sequences: CSI (`ESC [` parameters, intermediates, a final byte: colours, cursor
 * moves, erases), OSC (`ESC ]` … BEL or ST: window titles, links) and the two-byte escapes. The grammar
 * of these sequences is regular, so a pattern reads them exactly.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;

/**
 * A program's output as a reader sees it in a terminal, as plain text: control sequences removed, and
 * a carriage return (a progress line redrawn in place) keeps only what was written after it on that line.
 */
export function terminalText(raw: string): string {
  return raw
    .replace(CONTROL, '')
    .split('\n')
    .map((line) => {
      const parts = line.replace(/\r$/, '').split('\r');
      return parts[parts.length - 1] ?? '';
    })
    .join('\n');
}

/** The last `lines` lines of a text (a running step's newest output), and whether anything was cut. */
export function tailLines(text: string, lines: number): { text: string; truncated: boolean } {
  const all = text.replace(/\n+$/, '').split('\n');
  return { text: all.slice(-lines).join('\n'), truncated: all.length > lines };
}

/** The last line with any text in it: what a running step said most recently. */
export function lastLine(text: string): string | null {
  const lines = text.split('\n').map((line) => line.trim()).filter(Boolean);
  return lines.length ? lines[lines.length - 1]! : null;
}
