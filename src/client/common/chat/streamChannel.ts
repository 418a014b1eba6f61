import { buffers, END, eventChannel, type EventChannel } from 'redux-saga';
import type { KnownStreamEventName, StreamEvent } from '../../../shared/events';
import { EventStreamRefused, readEventStream, type EventStreamRequest, type FetchLike } from '../../api/eventStream';
import type { SseFrame } from '../../api/sseParser';

/**
 * The event names this reader acts on. Spelled here, checked against the contract's union by
 * `satisfies`: importing the values from src/shared/events.ts would pull the TypeBox runtime into
 * the main bundle (see INPUT_LIMITS in the constants).
 */
export const AGENT_EVENTS = {
  stream: 'on_chat_model_stream',
  end: 'on_chat_model_end',
  error: 'error',
} as const satisfies Record<string, KnownStreamEventName>;

/** What an agent stream channel emits: serialisable, action-shaped events, then END. */
export type AgentStreamEvent =
  /** The server answered 200 and the body is being read. */
  | { type: 'stream/opened' }
  /** An `on_chat_model_stream` frame (content may be '' on frames that only name the thread). */
  | { type: 'stream/chunk'; threadId: string; content: string; model: string | null }
  /** `on_chat_model_end`: the turn is over; the channel closes right after. */
  | { type: 'stream/ended'; threadId: string | null; model: string | null }
  /**
   * The turn failed. `phase: 'start'` when no stream was opened (no installation or project id, an
   * HTTP error such as 402, a network failure); `'stream'` for an `error` frame or a body that ended
   * without `on_chat_model_end`. `message` is the server's detail when it gave one.
   */
  | { type: 'stream/failed'; phase: 'start' | 'stream'; status: number | null; message: string };

/** An agent stream to open (`{ path, body }` POSTs JSON; `method: 'GET'` sends the message in `query`). */
export type AgentStreamRequest = EventStreamRequest;

export type { FetchLike };

/** A `data:` frame's StreamEvent, or null when it is not one. */
export function parseStreamEvent(data: string): StreamEvent | null {
  try {
    const value: unknown = JSON.parse(data);
    if (typeof value !== 'object' || value === null) return null;
    const event = value as Partial<StreamEvent>;
    return typeof event.event === 'string' ? (event as StreamEvent) : null;
  } catch {
    return null;
  }
}

function parseJson(data: string): unknown {
  try {
    return JSON.parse(data) as unknown;
  } catch {
    return null;
  }
}

/** The detail of an `error` event, or a general text when it has none. */
export function errorDetail(event: StreamEvent): string {
  const data = event.data;
  if (typeof data === 'object' && data !== null && 'detail' in data && typeof data.detail === 'string') return data.detail;
  return 'The agent stopped with an error';
}

/**
 * The one agent stream of the app, wrapped in an `eventChannel`: every agent chat and flow reads its turns
 * through it (the planning agents and the documentation POST a JSON body; execution and validation GET with
 * the message in the query). Opened with the call conventions (api/eventStream.ts); each `data:` frame
 * becomes an `AgentStreamEvent`; `on_chat_model_end` emits `stream/ended` and closes the channel; closing
 * the channel (a cancelled saga, Stop) aborts the fetch, which stops the server's generation too.
 *
 * Wire example:
 *   data: {"event":"on_chat_model_stream","thread_id":"t-1","chunk":{"content":"Hel"},"model":"offline-planner"}
 *   data: {"event":"on_chat_model_end","thread_id":"t-1","model":"offline-planner"}
 */
export function createAgentStreamChannel(request: AgentStreamRequest, fetchImpl?: FetchLike): EventChannel<AgentStreamEvent> {
  return eventChannel<AgentStreamEvent>((emit) => {
    const controller = new AbortController();
    let finished = false;
    let opened = false;
    const finish = (last: AgentStreamEvent): void => {
      if (finished) return;
      finished = true;
      emit(last);
      emit(END);
    };
    const fail = (phase: 'start' | 'stream', status: number | null, message: string): void =>
      finish({ type: 'stream/failed', phase, status, message });

    const onFrame = (frame: SseFrame): boolean => {
      if (finished) return true;
      // Named frames (the DevOps Helper's, events.ts): `error` carries `{detail}`, `id` names the thread.
      if (frame.event === AGENT_EVENTS.error) {
        fail('stream', null, errorDetail({ event: AGENT_EVENTS.error, thread_id: '', data: parseJson(frame.data) }));
        return true;
      }
      if (frame.event === 'id') {
        const thread = parseJson(frame.data) as { thread_id?: unknown } | null;
        if (typeof thread?.thread_id === 'string') emit({ type: 'stream/chunk', threadId: thread.thread_id, content: '', model: null });
        return false;
      }
      const event = parseStreamEvent(frame.data);
      if (!event) return false;
      const model = event.model ?? null;
      if (event.event === AGENT_EVENTS.stream) {
        emit({ type: 'stream/chunk', threadId: event.thread_id, content: event.chunk?.content ?? '', model });
      } else if (event.event === AGENT_EVENTS.end) {
        finish({ type: 'stream/ended', threadId: event.thread_id ?? null, model });
      } else if (event.event === AGENT_EVENTS.error) {
        fail('stream', null, errorDetail(event));
      }
      return finished;
    };
    const onOpen = (): void => {
      opened = true;
      emit({ type: 'stream/opened' });
    };

    // Started on the next microtask: an eventChannel must not emit before its subscriber returns.
    Promise.resolve()
      .then(() => readEventStream(request, controller.signal, onFrame, { onOpen, ...(fetchImpl ? { fetch: fetchImpl } : {}) }))
      .then(
        (stopped) => {
          if (!stopped) fail('stream', null, 'The stream closed before the reply finished');
        },
        (error: unknown) => {
          if (controller.signal.aborted) return;
          const status = error instanceof EventStreamRefused ? error.status : null;
          fail(opened ? 'stream' : 'start', status, error instanceof Error ? error.message : String(error));
        },
      );

    return () => {
      finished = true;
      controller.abort();
    };
  }, buffers.expanding<AgentStreamEvent>(256));
}
