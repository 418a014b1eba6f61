import { buffers, END, eventChannel, type EventChannel } from 'redux-saga';
import type { TerminalCommandEvent, TerminalEndEvent, TerminalOutputEvent, TerminalReleaseEvent } from '../../../shared/api/terminal';
import { readEventStream } from '../../api/eventStream';

export type TerminalCommandsMessage =
  | { type: 'terminalCommands/command'; command: TerminalCommandEvent }
  | { type: 'terminalCommands/output'; output: TerminalOutputEvent }
  | { type: 'terminalCommands/ended'; end: TerminalEndEvent }
  | { type: 'terminalCommands/release'; release: TerminalReleaseEvent['release'] }
  | { type: 'terminalCommands/failed'; message: string };

/**
 * Reads one frame of GET /api/terminal/commands: a command, a chunk of its output, its end, a release
 * recorded, or a failure (an `error` frame, a frame with `detail`/`error`, or one that is none of these)
 * shown as '❌ Error executing command'.
 */
export function parseCommandFrame(payload: string): TerminalCommandsMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    return { type: 'terminalCommands/failed', message: `Unreadable command frame: ${payload.slice(0, 100)}` };
  }
  if (typeof parsed === 'object' && parsed !== null) {
    const frame = parsed as Record<string, unknown>;
    if (typeof frame.command === 'string' && frame.error === undefined && frame.event !== 'error') {
      const command: TerminalCommandEvent = { command: frame.command };
      if (typeof frame.simulate_typing === 'boolean') command.simulate_typing = frame.simulate_typing;
      if (typeof frame.typing_speed === 'number' && frame.typing_speed >= 0) command.typing_speed = frame.typing_speed;
      if (typeof frame.step_number === 'number') command.step_number = frame.step_number;
      return { type: 'terminalCommands/command', command };
    }
    if (typeof frame.step_number === 'number' && typeof frame.output === 'string') {
      return { type: 'terminalCommands/output', output: { step_number: frame.step_number, output: frame.output } };
    }
    if (typeof frame.step_number === 'number' && (frame.status === 'completed' || frame.status === 'failed')) {
      const errorMessage = typeof frame.error_message === 'string' ? frame.error_message : null;
      return { type: 'terminalCommands/ended', end: { step_number: frame.step_number, status: frame.status, error_message: errorMessage } };
    }
    const release = frame.release as Record<string, unknown> | null | undefined;
    if (typeof release === 'object' && release !== null && Number.isInteger(release.number) && (release.status === 'live' || release.status === 'rolled_back')) {
      return { type: 'terminalCommands/release', release: { number: release.number as number, status: release.status } };
    }
    const detail = frame.detail ?? frame.error ?? (frame.data as Record<string, unknown> | undefined)?.detail;
    if (typeof detail === 'string') return { type: 'terminalCommands/failed', message: detail };
  }
  return { type: 'terminalCommands/failed', message: 'Command frame without a command' };
}

/**
 * The commands the server runs for the project's steps, their output and their end, GET
 * /api/terminal/commands (SSE of `TerminalStreamEvent`), as an `eventChannel`; it ends when the stream
 * does, and closing it aborts the request.
 *
 * @example wire frame
 *   data: {"command":"docker compose up -d","simulate_typing":true,"typing_speed":50}
 */
export function createTerminalCommandsChannel(projectId: number): EventChannel<TerminalCommandsMessage> {
  return eventChannel<TerminalCommandsMessage>((emit) => {
    const controller = new AbortController();
    // Started on the next microtask: an eventChannel must not emit before its subscriber returns.
    Promise.resolve()
      .then(() =>
        readEventStream({ path: '/terminal/commands', method: 'GET', projectId }, controller.signal, (frame) => {
          // An `event: error` frame is a failure whatever its data says.
          emit(frame.event === 'error' ? { type: 'terminalCommands/failed', message: frame.data } : parseCommandFrame(frame.data));
        }),
      )
      .then(
        () => emit(END),
        (error: unknown) => {
          if (controller.signal.aborted) return;
          emit({ type: 'terminalCommands/failed', message: error instanceof Error ? error.message : String(error) });
          emit(END);
        },
      );
    return () => controller.abort();
  }, // Frames arriving while a command is being shown wait their turn.
  buffers.expanding<TerminalCommandsMessage>(64));
}
