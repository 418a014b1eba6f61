import { useMemo, type ReactElement } from 'react';
import styled, { css } from 'styled-components';
import { lineDiff } from '../../../shared/lineDiff';

/** Unchanged lines further than this from a change are folded into one "… n unchanged lines" row. */
const CONTEXT = 2;

/**
 * A line-by-line difference of two texts (a step's command before and after a change): removed lines
 * marked `-`, added ones `+`, and long runs of unchanged lines folded, so a one-line change in a 30-line
 * command reads as one line. The marks are text, not colour alone.
 */
export function LineDiff({ before, after }: { before: string; after: string }): ReactElement {
  const rows = useMemo(() => {
    const lines = lineDiff(before, after);
    const near = lines.map((_, i) => lines.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((l) => l.kind !== 'same'));
    const out: Array<{ kind: 'same' | 'removed' | 'added' | 'fold'; text: string }> = [];
    for (const [i, line] of lines.entries()) {
      if (line.kind !== 'same' || near[i]) out.push(line);
      else if (out.at(-1)?.kind === 'fold') out.at(-1)!.text = String(Number(out.at(-1)!.text) + 1);
      else out.push({ kind: 'fold', text: '1' });
    }
    return out;
  }, [before, after]);
  return (
    <Pre data-testid="line-diff">
      {rows.map((row, i) =>
        row.kind === 'fold' ? (
          <Fold key={i}>{`  … ${row.text} unchanged line${row.text === '1' ? '' : 's'}\n`}</Fold>
        ) : (
          <Line key={i} $kind={row.kind}>
            {`${row.kind === 'removed' ? '-' : row.kind === 'added' ? '+' : ' '} ${row.text}\n`}
          </Line>
        ),
      )}
    </Pre>
  );
}

/** A block of monospace text (commands, output, their differences). */
export const codeBlock = css`
  margin: 0;
  padding: ${({ theme }) => theme.space(2)};
  border-radius: ${({ theme }) => theme.radii.sm};
  background: ${({ theme }) => theme.colors.background};
  font-family: ${({ theme }) => theme.fonts.mono};
  font-size: ${({ theme }) => theme.fontSizes.sm};
  white-space: pre-wrap;
  overflow-wrap: anywhere;
`;

const Pre = styled.pre`
  ${codeBlock}
`;

const Line = styled.span<{ $kind: 'same' | 'removed' | 'added' }>`
  display: block;
  color: ${({ theme, $kind }) => ($kind === 'removed' ? theme.colors.danger : $kind === 'added' ? theme.colors.success : theme.colors.text)};
  background: ${({ theme, $kind }) => ($kind === 'removed' ? theme.colors.dangerSurface : $kind === 'added' ? theme.colors.successSurface : 'transparent')};
`;

const Fold = styled.span`
  display: block;
  color: ${({ theme }) => theme.colors.textMuted};
`;
