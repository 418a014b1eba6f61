import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useRef, useState, type ReactElement } from 'react';
import { buffers, channel, runSaga } from 'redux-saga';
import styled, { useTheme } from 'styled-components';
import { TERMINAL } from '../../../shared/constants';
import { Button } from '../components/Button';
import { terminalIdOfThisTab } from './terminalChannel';
import { terminalConnection, type TerminalConnectionStatus, type TerminalSink } from './terminalSaga';

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
 * which the session sends to the sandbox. When the socket drops, a Reconnect control brings the same
 * terminal back (this tab's shell, if the server still keeps it). This module and xterm load only when
 * the tab first opens.
 */
export function TerminalView({ projectId }: { projectId: number }): ReactElement {
  const containerRef = useRef<HTMLDivElement>(null);
  const theme = useTheme();
  const [status, setStatus] = useState<TerminalConnectionStatus>('connecting');
  // The connection saga waits on it for Reconnect; one per mounted terminal.
  const [reconnects] = useState(() => channel<true>(buffers.sliding(1)));

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
    const task = runSaga({}, terminalConnection, projectId, sinkOf(terminal), { terminalId: terminalIdOfThisTab(), onStatus: setStatus, reconnects });
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
  }, [projectId, theme, reconnects]);

  return (
    <Screen data-testid="terminal">
      <Host ref={containerRef} />
      {status === 'closed' && (
        <Dropped role="status">
          <span>{TERMINAL.connectionClosed}</span>
          <Button $size="sm" $variant="primary" onClick={() => reconnects.put(true)}>
            {TERMINAL.reconnect}
          </Button>
        </Dropped>
      )}
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

/** Over the terminal's bottom edge while its socket is down: what happened and the way back. */
const Dropped = styled.div`
  position: absolute;
  right: ${({ theme }) => theme.space(3)};
  bottom: ${({ theme }) => theme.space(3)};
  z-index: 1;
  display: flex;
  align-items: center;
  gap: ${({ theme }) => theme.space(2)};
  padding: ${({ theme }) => `${theme.space(2)} ${theme.space(3)}`};
  border: 1px solid ${({ theme }) => theme.colors.border};
  border-radius: ${({ theme }) => theme.radii.md};
  background: ${({ theme }) => theme.colors.surfaceRaised};
  color: ${({ theme }) => theme.colors.text};
`;

const Host = styled.div`
  position: absolute;
  inset: ${({ theme }) => theme.space(2)};
  overflow: hidden;
  .xterm { height: 100%; }
`;
