import { useCallback, useEffect, useRef, useState } from 'react';
import { END } from 'redux-saga';
import { DOCUMENTATION } from '../../../shared/constants';
import { createAgentStreamChannel, type AgentStreamEvent } from '../../common/chat/streamChannel';

export interface Regeneration {
  running: boolean;
  error: string | null;
  start(): void;
}

/**
 * Writes the project's documentation anew (POST /api/documentation/generate, streamed to its end), then
 * calls `done` so the documents are read again. For documents the server says are out of date.
 */
export function useRegenerateDocumentation(done: () => void): Regeneration {
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const close = useRef<(() => void) | null>(null);
  useEffect(() => () => close.current?.(), []);

  const start = useCallback(() => {
    setRunning(true);
    setError(null);
    const channel = createAgentStreamChannel({ path: '/documentation/generate', body: { message: DOCUMENTATION.generatePrompt } });
    close.current = () => channel.close();
    const next = (event: AgentStreamEvent | typeof END): void => {
      if (event === END || event.type === 'stream/ended' || event.type === 'stream/failed') {
        if (event !== END && event.type === 'stream/failed') setError(event.message);
        setRunning(false);
        channel.close();
        done();
        return;
      }
      channel.take(next);
    };
    channel.take(next);
  }, [done]);

  return { running, error, start };
}
