import { useEffect } from 'react';
import { END } from 'redux-saga';
import { createTerminalCommandsChannel, type TerminalCommandsMessage } from './terminalCommandsChannel';

/**
 * Hands every message of the project's step stream (GET /api/terminal/commands) to `onMessage` while the
 * component is mounted; the stream is opened again when the project or the handler changes (keep the
 * handler stable with useCallback) and closed on unmount.
 */
/** The channel's end (closed, or the stream gone): the value END, which its type alone does not narrow. */
const isEnd = (message: TerminalCommandsMessage | END): message is END => message === END;

export function useTerminalCommands(projectId: number, onMessage: (message: TerminalCommandsMessage) => void): void {
  useEffect(() => {
    const channel = createTerminalCommandsChannel(projectId);
    let open = true;
    const take = (message: TerminalCommandsMessage | END): void => {
      if (!open || isEnd(message)) return;
      onMessage(message);
      channel.take(take);
    };
    channel.take(take);
    return () => {
      open = false;
      channel.close();
    };
  }, [projectId, onMessage]);
}
