import type { EventChannel, Task } from 'redux-saga';
import { buffers, eventChannel } from 'redux-saga';
import { call, cancel, delay, fork, take } from 'redux-saga/effects';
import type { TerminalCommandEvent } from '../../../shared/api/terminal';
import { TERMINAL } from '../../../shared/constants';
import type { TerminalClientMessage, TerminalServerMessage } from '../../../shared/events';
import type { SocketChannel, SocketEvent } from '../../common/channels/socketChannel';
import { createFlowControl } from './flowControl';
import { createTerminalChannel } from './terminalChannel';
import { createTerminalCommandsChannel, type TerminalCommandsMessage } from './terminalCommandsChannel';

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

/**
 * Types one agent command into the shell (part 2 section 4): with simulated typing (the default) one
 * character every `typing_speed` ms (default 50), else at once; then Enter. The shell echoes what it
 * receives, so the command appears typed in the terminal. A socket that is not open fails the command.
 */
export function* typeCommand(event: TerminalCommandEvent, send: Send, sink: TerminalSink): Generator {
  const speed = event.typing_speed ?? TERMINAL.defaultTypingSpeed;
  let ok = true;
  if (event.simulate_typing === false) {
    ok = send({ type: 'input', input: `${event.command}\r` });
  } else {
    for (const character of event.command) {
      ok = send({ type: 'input', input: character });
      if (!ok) break;
      if (speed > 0) yield delay(speed);
    }
    if (ok) ok = send({ type: 'input', input: '\r' });
  }
  if (!ok) sink.writeln(`\r\n${RED}${TERMINAL.commandError}${RESET}`);
}

/** Follows GET /api/terminal/commands and types each command, one after the other. */
export function* typeAgentCommands(projectId: number, send: Send, sink: TerminalSink): Generator {
  const commands = (yield call(createTerminalCommandsChannel, projectId)) as EventChannel<TerminalCommandsMessage>;
  try {
    for (;;) {
      const message = (yield take(commands)) as TerminalCommandsMessage;
      if (message.type === 'terminalCommands/command') yield call(typeCommand, message.command, send, sink);
      else sink.writeln(`\r\n${RED}${TERMINAL.commandError}${RESET}`);
    }
  } finally {
    commands.close();
  }
}

/**
 * One terminal session over the sandbox socket (part 2 sections 2 and 4): the connected banner and
 * the size on open, keystrokes and resizes out, output in with flow control (pause above the high
 * watermark of unparsed output, resume below the low one), the agent's commands typed in, and
 * 'Connection error. Please try again.' / 'Connection closed' notices. Cancelling the task closes
 * the socket, the command stream and the terminal listeners.
 *
 * Run it with `runSaga` from the terminal view (it lives in the terminal's lazy chunk), or `expectSaga`.
 */
export function* terminalSession(projectId: number, sink: TerminalSink): Generator {
  const socket = (yield call(createTerminalChannel, projectId)) as SocketChannel<TerminalServerMessage, TerminalClientMessage>;
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
        tasks.push((yield fork(typeAgentCommands, projectId, socket.send, sink)) as Task);
      } else if (event.type === 'socket/errored') {
        sink.writeln(`\r\n${RED}${TERMINAL.connectionError}${RESET}`);
      } else {
        sink.writeln(`\r\n${YELLOW}${TERMINAL.connectionClosed}${RESET}`);
        return;
      }
    }
  } finally {
    for (const task of tasks) yield cancel(task);
    socket.events.close();
    local.close();
  }
}
