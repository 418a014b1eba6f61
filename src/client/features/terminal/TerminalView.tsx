import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, type ReactElement } from 'react';
import { runSaga } from 'redux-saga';
import styled, { useTheme } from 'styled-components';
import { TERMINAL } from '../../../shared/constants';
import { terminalSession, type TerminalSink } from './terminalSaga';

/** Adapts an xterm `Terminal` to the session's sink. */
function sinkOf(terminal: Terminal): TerminalSink {
  return {
    write: (data, callback) => terminal.write(data, callback),
    writeln: (line) => terminal.writeln(line),
    size: () => ({ rows: terminal.rows, cols: terminal.cols }),
    onData: (listener) => terminal.onData(listener),
    onResize: (listener) => terminal.onResize(listener),
  };
}

/**
 * The Terminal tab (part 2 section 2): a dark xterm filling the area with a blinking cursor, attached
 * to the sandbox shell. It fits its box (never below 2 columns × 1 row) on mount, on window resize and
 * whenever the box changes size (the tab becoming visible included); xterm then reports the new size,
 * which the session sends to the sandbox. This module and xterm load only when the tab first opens.
 */
export function TerminalView({ projectId }: { projectId: number }): ReactElement {
  const containerRef = useRef<HTMLDivElement>(null);
  const theme = useTheme();

  useEffect(() => {
    const container = containerRef.current;
    if (!container) return undefined;
    const terminal = new Terminal({
      cursorBlink: true,
      convertEol: false,
      fontFamily: theme.fonts.mono,
      fontSize: 13,
      scrollback: 5_000,
      theme: { background: theme.colors.background, foreground: theme.colors.text, cursor: theme.colors.text },
    });
    const fitAddon = new FitAddon();
    terminal.loadAddon(fitAddon);
    terminal.open(container);

    const fit = (): void => {
      // A hidden tab has no size; fitting it would shrink the shell to nothing.
      if (container.clientWidth === 0 || container.clientHeight === 0) return;
      const proposed = fitAddon.proposeDimensions();
      if (!proposed || Number.isNaN(proposed.cols) || Number.isNaN(proposed.rows)) return;
      const cols = Math.max(TERMINAL.minCols, proposed.cols);
      const rows = Math.max(TERMINAL.minRows, proposed.rows);
      if (cols !== terminal.cols || rows !== terminal.rows) terminal.resize(cols, rows);
    };
    fit();
    const task = runSaga({}, terminalSession, projectId, sinkOf(terminal));
    window.addEventListener('resize', fit);
    const observer = typeof ResizeObserver === 'undefined' ? null : new ResizeObserver(() => fit());
    observer?.observe(container);
    terminal.focus();

    return () => {
      window.removeEventListener('resize', fit);
      observer?.disconnect();
      task.cancel();
      terminal.dispose();
    };
  }, [projectId, theme]);

  return (
    <Screen data-testid="terminal">
      <Host ref={containerRef} />
    </Screen>
  );
}

/**
 * The terminal's box takes its size from the panel, never from xterm: were xterm inside the flow, each
 * fit would grow the box that the next fit measures, and the terminal would grow a row at a time
 * without end. xterm lives in an absolutely placed host that fills the box.
 */
const Screen = styled.div`
  position: relative;
  flex: 1;
  min-height: 160px;
  background: ${({ theme }) => theme.colors.background};
  border-radius: ${({ theme }) => theme.radii.md};
  overflow: hidden;
`;

const Host = styled.div`
  position: absolute;
  inset: ${({ theme }) => theme.space(2)};
  overflow: hidden;
  .xterm { height: 100%; }
`;
