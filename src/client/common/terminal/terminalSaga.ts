import type { Channel, EventChannel, Task } from 'redux-saga';
import { buffers, eventChannel } from 'redux-saga';
import { call, cancel, delay, fork, take } from 'redux-saga/effects';
import type { TerminalCommandEvent } from '../../../shared/api/terminal';
import { TERMINAL } from '../../../shared/constants';
import type { TerminalClientMessage, TerminalServerMessage } from '../../../shared/events';
import type { SocketChannel, SocketEvent } from '../channels/socketChannel';
import { createFlowControl } from './flowControl';
import { createTerminalChannel } from './terminalChannel';
import { createTerminalCommandsChannel, type TerminalCommandsMessage } from '../channels/terminalCommandsChannel';

export interface Disposable {
  dispose(): void;
}

export interface TerminalSize {
  rows: number;
  cols: number;
}

/** The part of an xterm `Terminal` the session uses; the view adapts the real one, tests pass a fake. */
export interface TerminalSink {
  write(data: string, callback?: () => void): void;
  writeln(line: string): void;
  size(): TerminalSize;
  /** Keystrokes (xterm `onData`). */
  onData(listener: (data: string) => void): Disposable;
  /** Size changes after a fit (xterm `onResize`). */
  onResize(listener: (size: TerminalSize) => void): Disposable;
}

type Send = (message: TerminalClientMessage) => boolean;

const GREEN = '\x1b[32m';
const RED = '\x1b[31m';
const YELLOW = '\x1b[33m';
const RESET = '\x1b[0m';

/** The size message, kept within the contract's bounds (fit minimum 2 columns × 1 row). */
export function resizeMessage({ rows, cols }: TerminalSize): TerminalClientMessage {
  const clamp = (value: number, min: number, max: number): number => Math.min(max, Math.max(min, Math.floor(value) || min));
  return {
    type: 'resize',
    rows: clamp(rows, TERMINAL.minRows, TERMINAL.maxRows),
    cols: clamp(cols, TERMINAL.minCols, TERMINAL.maxCols),
  };
}

type LocalEvent = { type: 'data'; data: string } | { type: 'resize'; size: TerminalSize };

/** Keystrokes and resizes of the terminal as a channel; closing it releases both listeners together. */
export function createLocalInputChannel(sink: TerminalSink): EventChannel<LocalEvent> {
  return eventChannel<LocalEvent>((emit) => {
    const disposables = [
      sink.onData((data) => emit({ type: 'data', data })),
      sink.onResize((size) => emit({ type: 'resize', size })),
    ];
    return () => disposables.forEach((disposable) => disposable.dispose());
  }, buffers.expanding<LocalEvent>(64));
}

/** Sends keystrokes as `{type:'input'}` (split to the contract's size limit) and sizes as `{type:'resize'}`. */
export function* forwardLocalInput(local: EventChannel<LocalEvent>, send: Send): Generator {
  for (;;) {
    const event = (yield take(local)) as LocalEvent;
    if (event.type === 'resize') {
      send(resizeMessage(event.size));
      continue;
    }
    for (let at = 0; at < event.data.length; at += TERMINAL.maxInputLength) {
      send({ type: 'input', input: event.data.slice(at, at + TERMINAL.maxInputLength) });
    }
  }
}

const CYAN = '\x1b[36m';

/** xterm moves to the next line only on CR LF (`convertEol` is off for the shell's own output). */
const crlf = (text: string): string => text.replace(/\r?\n/g, '\r\n');

/**
 * Shows one command the server runs for a step (part 2 section 4, changed: display only). It is written
 * into the terminal — with simulated typing (the default) one character every `typing_speed` ms (default
 * 50), else at once — and NEVER sent to the shell: the server already runs it, and sending it would run
 * it a second time in the person's shell.
 */
export function* showCommand(event: TerminalCommandEvent, sink: TerminalSink): Generator {
  const speed = event.typing_speed ?? TERMINAL.defaultTypingSpeed;
  const label = event.step_number === undefined ? TERMINAL.agentPrompt : `${TERMINAL.agentPrompt} step ${event.step_number}`;
  sink.write(`\r\n${CYAN}[${label}]$${RESET} `);
  if (event.simulate_typing === false || speed === 0) {
    sink.write(crlf(event.command));
  } else {
    for (const character of event.command) {
      sink.write(crlf(character));
      yield delay(speed);
    }
  }
  sink.write('\r\n');
}

/** Follows GET /api/terminal/commands and shows each command, its output and its end, one after the other. */
export function* showAgentCommands(projectId: number, sink: TerminalSink): Generator {
  const commands = (yield call(createTerminalCommandsChannel, projectId)) as EventChannel<TerminalCommandsMessage>;
  try {
    for (;;) {
      const message = (yield take(commands)) as TerminalCommandsMessage;
      if (message.type === 'terminalCommands/command') yield call(showCommand, message.command, sink);
      else if (message.type === 'terminalCommands/output') sink.write(crlf(message.output.output));
      else if (message.type === 'terminalCommands/ended') {
        const { step_number: n, status, error_message: error } = message.end;
        sink.writeln(status === 'completed' ? `${GREEN}[step ${n} completed]${RESET}` : `${RED}[step ${n} failed${error ? `: ${error}` : ''}]${RESET}`);
      } else if (message.type === 'terminalCommands/failed') sink.writeln(`\r\n${RED}${TERMINAL.commandError}${RESET}`);
      // A release recorded is for the Releases panel: the terminal shows only commands and their output.
    }
  } finally {
    commands.close();
  }
}

export interface TerminalSessionOptions {
  /** Which of the person's shells in the sandbox (this browser tab's); the server's default when absent. */
  terminalId?: string;
  /** Told when the socket opened. */
  onOpened?: () => void;
}

/** Close codes from 4000 are the terminal server's own, with a reason worth showing. */
const SERVER_CLOSE_CODES = 4000;

/**
 * One terminal session over the sandbox socket (part 2 sections 2 and 4): the connected banner and
 * the size on open, keystrokes and resizes out, output in with flow control (pause above the high
 * watermark of unparsed output, resume below the low one), the agent's commands shown (not typed in), and
 * 'Connection error. Please try again.' / 'Connection closed' notices. Cancelling the task closes
 * the socket, the command stream and the terminal listeners.
 *
 * Run it with `runSaga` from the terminal view (it lives in the terminal's lazy chunk), or `expectSaga`.
 */
export function* terminalSession(projectId: number, sink: TerminalSink, options: TerminalSessionOptions = {}): Generator {
  const socket = (yield call(createTerminalChannel, projectId, options.terminalId)) as SocketChannel<TerminalServerMessage, TerminalClientMessage>;
  const local = (yield call(createLocalInputChannel, sink)) as EventChannel<LocalEvent>;
  const flow = createFlowControl(socket.send);
  const tasks: Task[] = [];
  try {
    tasks.push((yield fork(forwardLocalInput, local, socket.send)) as Task);
    for (;;) {
      const event = (yield take(socket.events)) as SocketEvent<TerminalServerMessage>;
      if (event.type === 'socket/message') {
        sink.write(event.payload.data, flow.written(event.payload.data));
      } else if (event.type === 'socket/opened') {
        sink.writeln(`${GREEN}${TERMINAL.connectedBanner}${RESET}`);
        socket.send(resizeMessage(sink.size()));
        options.onOpened?.();
        tasks.push((yield fork(showAgentCommands, projectId, sink)) as Task);
      } else if (event.type === 'socket/errored') {
        sink.writeln(`\r\n${RED}${TERMINAL.connectionError}${RESET}`);
      } else {
        // The server's own closes (shell exited, too many terminals, taken over) say why.
        const why = event.code >= SERVER_CLOSE_CODES && event.reason ? `: ${event.reason}` : '';
        sink.writeln(`\r\n${YELLOW}${TERMINAL.connectionClosed}${why}${RESET}`);
        return;
      }
    }
  } finally {
    for (const task of tasks) yield cancel(task);
    socket.events.close();
    local.close();
  }
}

export type TerminalConnectionStatus = 'connecting' | 'connected' | 'closed';

export interface TerminalConnectionControls {
  terminalId?: string;
  /** Told of each change, so the view shows the Reconnect control while the socket is down. */
  onStatus: (status: TerminalConnectionStatus) => void;
  /** Reconnect was pressed (the view puts into it). */
  reconnects: Channel<true>;
}

/**
 * The terminal's connection: a session until its socket drops, then 'closed' (the view shows Reconnect),
 * and a new session into the same terminal when Reconnect is pressed. Cancelling it ends the session.
 */
export function* terminalConnection(projectId: number, sink: TerminalSink, controls: TerminalConnectionControls): Generator {
  for (;;) {
    yield call(terminalSession, projectId, sink, { terminalId: controls.terminalId, onOpened: () => controls.onStatus('connected') });
    controls.onStatus('closed');
    yield take(controls.reconnects);
    controls.onStatus('connecting');
  }
}
