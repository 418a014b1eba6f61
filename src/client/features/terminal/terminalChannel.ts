import type { TerminalClientMessage, TerminalServerMessage } from '../../../shared/events';
import { createSocketChannel, webSocketUrl, type SocketChannel } from '../../common/channels/socketChannel';

/** Accepts only `{type:'output', data}` frames; anything else is skipped. */
export function parseTerminalFrame(raw: string): TerminalServerMessage | null {
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== 'object' || parsed === null) return null;
  const frame = parsed as Partial<TerminalServerMessage>;
  return frame.type === 'output' && typeof frame.data === 'string' ? { type: 'output', data: frame.data } : null;
}

/**
 * The sandbox shell socket, `/api/sandboxes/{projectId}/ws` on this origin (the session cookie
 * authenticates it), as an `eventChannel` whose close closes the socket.
 *
 * @example wire frames
 *   → {"type":"resize","rows":24,"cols":80}
 *   → {"type":"input","input":"ls\r"}
 *   ← {"type":"output","data":"README.md\r\n"}
 */
export function createTerminalChannel(projectId: number): SocketChannel<TerminalServerMessage, TerminalClientMessage> {
  return createSocketChannel<TerminalServerMessage, TerminalClientMessage>(
    webSocketUrl(`/api/sandboxes/${projectId}/ws`),
    parseTerminalFrame,
  );
}
