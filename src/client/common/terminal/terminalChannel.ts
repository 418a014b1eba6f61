import type { TerminalClientMessage, TerminalServerMessage } from '../../../shared/events';
import { nanoid } from '@reduxjs/toolkit';
import { TERMINAL_ID_PATTERN } from '../../../shared/constants/terminal';
import { createSocketChannel, webSocketUrl, type SocketChannel } from '../channels/socketChannel';

/** Accepts only `{type:'output', data}` frames; anything else is skipped. */
export function parseTerminalFrame(raw: string): TerminalServerMessage | null {
  const parsed: unknown = JSON.parse(raw);
  if (typeof parsed !== 'object' || parsed === null) return null;
  const frame = parsed as Partial<TerminalServerMessage>;
  return frame.type === 'output' && typeof frame.data === 'string' ? { type: 'output', data: frame.data } : null;
}

/**
 * The sandbox shell socket, `/api/sandboxes/{projectId}/ws?terminal={terminalId}` on this origin (the
 * session cookie authenticates it), as an `eventChannel` whose close closes the socket.
 *
 * @example wire frames
 *   → {"type":"resize","rows":24,"cols":80}
 *   → {"type":"input","input":"ls\r"}
 *   ← {"type":"output","data":"README.md\r\n"}
 */
export function createTerminalChannel(projectId: number, terminalId?: string): SocketChannel<TerminalServerMessage, TerminalClientMessage> {
  const query = terminalId ? `?terminal=${encodeURIComponent(terminalId)}` : '';
  return createSocketChannel<TerminalServerMessage, TerminalClientMessage>(
    webSocketUrl(`/api/sandboxes/${projectId}/ws${query}`),
    parseTerminalFrame,
  );
}

/** Session storage key of this browser tab's terminal id. */
const TERMINAL_ID_KEY = 'terminal-id';

/**
 * This browser tab's terminal id: a second tab gets a shell of its own (the server keeps one per id),
 * and a reload of this tab finds its shell again within the server's grace period.
 */
export function terminalIdOfThisTab(storage: Storage = window.sessionStorage): string {
  let id = storage.getItem(TERMINAL_ID_KEY);
  if (!id || !new RegExp(TERMINAL_ID_PATTERN).test(id)) {
    id = nanoid();
    storage.setItem(TERMINAL_ID_KEY, id);
  }
  return id;
}
