import { useCallback, useState } from 'react';
import { useAppDispatch } from '../../app/hooks';
import type { TerminalCommandsMessage } from '../../common/channels/terminalCommandsChannel';
import { useTerminalCommands } from '../../common/channels/useTerminalCommands';
import { executionApi } from './executionApi';

import type { LiveOutput } from '../../common/steps/StepCards';

export type { LiveOutput };

/**
 * The output of the project's running steps as the server streams it (GET /api/terminal/commands, the
 * stream the terminal tab reads), complete and in order from the step's start: a step this page saw
 * start collects every chunk; one already running when the page opened keeps the progress answer's
 * output (polled every 5 s) instead of a tail without its beginning. A step's end refetches the
 * progress at once, so its final status and stored output show without waiting for the next poll.
 */
export function useLiveStepOutput(projectId: number): Readonly<Record<string, LiveOutput>> {
  const dispatch = useAppDispatch();
  const [live, setLive] = useState<Record<string, LiveOutput>>({});
  const onMessage = useCallback(
    (message: TerminalCommandsMessage): void => {
      if (message.type === 'terminalCommands/command' && message.command.step_number !== undefined) {
        const key = String(message.command.step_number);
        setLive((was) => ({ ...was, [key]: { output: '', lastAt: Date.now() } }));
      } else if (message.type === 'terminalCommands/output') {
        const key = String(message.output.step_number);
        const chunk = message.output.output;
        setLive((was) => (was[key] ? { ...was, [key]: { output: was[key].output + chunk, lastAt: Date.now() } } : was));
      } else if (message.type === 'terminalCommands/ended') {
        // The entry stays: the card reads it only while the progress still says in progress.
        dispatch(executionApi.util.invalidateTags([{ type: 'ExecutionProgress', id: projectId }]));
      }
    },
    [projectId, dispatch],
  );
  useTerminalCommands(projectId, onMessage);
  return live;
}
