import { buffers, END, eventChannel, type EventChannel } from 'redux-saga';
import { CALL_ERRORS } from '../../../shared/constants';
import { browser } from '../../common/browser';
import { clearSession, getInstallationId } from '../../common/session';
import { readSseBody, type SseFrame } from '../../common/chat/sseParser';
import { AGENT_EVENTS, errorDetail, httpErrorText, parseStreamEvent } from '../../common/chat/streamChannel';

/**
 * Opens a same-origin GET event stream with fetch (so that headers travel, ARCHITECTURE.md), with the
 * call conventions of part 1 section 7: Installation-Id and Project-Id headers; a 401 ends the session.
 * Calls `onFrame` for every SSE frame until the body ends or `onFrame` answers true; rejects with the
 * server's detail on a non-OK answer.
 */
export async function readEventStream(
  path: string,
  projectId: number,
  signal: AbortSignal,
  onFrame: (frame: SseFrame) => boolean | void,
): Promise<void> {
  const installationId = getInstallationId();
  if (!installationId) throw new Error(CALL_ERRORS.noInstallationId);
  const response = await fetch(`${window.location.origin}/api${path}`, {
    headers: { Accept: 'text/event-stream', 'Installation-Id': installationId, 'Project-Id': String(projectId) },
    credentials: 'same-origin',
    signal,
  });
  if (response.status === 401) {
    clearSession();
    browser.assign('/');
  }
  if (!response.ok) throw new Error(await httpErrorText(response));
  if (!response.body) throw new Error('The server sent no stream');
  await readSseBody(response.body, onFrame);
}

/** What an agent stream channel emits: action-shaped and serialisable, then END. */
export type AgentStreamMessage =
  | { type: 'agentStream/chunk'; content: string; threadId: string | null }
  | { type: 'agentStream/ended'; threadId: string | null }
  | { type: 'agentStream/failed'; message: string };

/**
 * The execution agent's stream, GET /api/execution/agent?message=&thread_id= (part 2 section 7), as an
 * `eventChannel`. The shared chat channel (features/chat/streamChannel.ts) POSTs a JSON body; this
 * one is a GET with the message in the query, as the contract makes it, and reuses that feature's SSE
 * parser. Each `on_chat_model_stream` becomes a chunk; `on_chat_model_end` (or a body that ends
 * without it) ends the channel; an `error` event or a failed call fails it. Closing the channel
 * aborts the request, which is how Stop works.
 *
 * @example wire frames
 *   data: {"event":"on_chat_model_stream","thread_id":"t-1","chunk":{"content":"Step 2 "}}
 *   data: {"event":"on_chat_model_end","thread_id":"t-1"}
 */
export function createExecutionAgentChannel(projectId: number, message: string, threadId: string | null): EventChannel<AgentStreamMessage> {
  return createAgentQueryChannel('/execution/agent', projectId, message, threadId);
}

/**
 * A GET agent stream with the message in the query (`/execution/agent`, `/validation/agent`), framed and
 * ended as `createExecutionAgentChannel` describes.
 */
export function createAgentQueryChannel(agentPath: string, projectId: number, message: string, threadId: string | null): EventChannel<AgentStreamMessage> {
  const query = new URLSearchParams({ message });
  if (threadId) query.set('thread_id', threadId);
  const path = `${agentPath}?${query.toString()}`;
  return eventChannel<AgentStreamMessage>((emit) => {
    const controller = new AbortController();
    let finished = false;
    let lastThreadId: string | null = threadId;
    const finish = (message_: AgentStreamMessage): void => {
      if (finished) return;
      finished = true;
      emit(message_);
      emit(END);
    };
    // Started on the next microtask: an eventChannel must not emit before its subscriber returns.
    Promise.resolve()
      .then(() =>
        readEventStream(path, projectId, controller.signal, (frame) => {
          const event = parseStreamEvent(frame.data);
          if (!event) return false;
          if (event.thread_id) lastThreadId = event.thread_id;
          if (event.event === AGENT_EVENTS.stream && event.chunk?.content) {
            emit({ type: 'agentStream/chunk', content: event.chunk.content, threadId: event.thread_id ?? null });
          } else if (event.event === AGENT_EVENTS.end) {
            finish({ type: 'agentStream/ended', threadId: lastThreadId });
            return true;
          } else if (event.event === AGENT_EVENTS.error) {
            finish({ type: 'agentStream/failed', message: errorDetail(event) });
            return true;
          }
          return false;
        }),
      )
      .then(
        () => finish({ type: 'agentStream/ended', threadId: lastThreadId }),
        (error: unknown) => {
          if (!controller.signal.aborted) finish({ type: 'agentStream/failed', message: error instanceof Error ? error.message : String(error) });
        },
      );
    return () => {
      finished = true;
      controller.abort();
    };
  }, buffers.expanding<AgentStreamMessage>(256));
}
