import { useCallback } from 'react';
import { useAppDispatch } from '../../app/hooks';
import type { TerminalCommandsMessage } from '../../common/channels/terminalCommandsChannel';
import { useTerminalCommands } from '../../common/channels/useTerminalCommands';
import { releasesApi } from './releasesApi';

/**
 * Keeps the project's releases current while the page is open: the server records a release from the
 * server seconds after a deploy's last step ends (or a change fails its health gate) and says so on the
 * project's step stream (GET /api/terminal/commands, a `release` frame); the Releases tag is invalidated
 * then, so the list refetches once, when there is something new, instead of on a timer.
 *
 * @example wire frame
 *   data: {"release":{"number":2,"status":"live"}}
 */
export function useReleasesRefresh(projectId: number): void {
  const dispatch = useAppDispatch();
  const onMessage = useCallback(
    (message: TerminalCommandsMessage): void => {
      if (message.type === 'terminalCommands/release') dispatch(releasesApi.util.invalidateTags([{ type: 'Releases', id: projectId }]));
    },
    [projectId, dispatch],
  );
  useTerminalCommands(projectId, onMessage);
}
