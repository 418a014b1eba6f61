import { CALL_ERRORS } from '../../shared/constants';
import { getInstallationId } from '../common/session';
import { API_BASE, callProjectId, endSession, httpErrorText, setCallHeaders } from './callConventions';
import { readSseBody, type SseFrame } from './sseParser';

/** An event stream to open: a path under /api, GET (the message in `query`) or POST (a JSON `body`). */
export interface EventStreamRequest {
  path: string;
  method?: 'GET' | 'POST';
  /** GET: the query string's parameters. */
  query?: Record<string, string>;
  /** POST: the JSON body. */
  body?: unknown;
  /** The project the stream is about; the address's when absent. */
  projectId?: number;
}

/** The fetch a stream uses; tests hand in one that answers a ReadableStream they build. */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

const defaultFetch: FetchLike = (input, init) => fetch(input, init);

/** A stream the server refused (or that could not start): `status` is null when no answer came. */
export class EventStreamRefused extends Error {
  constructor(
    message: string,
    readonly status: number | null,
  ) {
    super(message);
  }
}

/**
 * Opens an event stream with fetch (so that the call conventions' headers travel, ARCHITECTURE.md; never
 * EventSource) and calls `onOpen`, then `onFrame` for every SSE frame until the body ends or `onFrame`
 * answers true (the answer is whether it did). A 401 ends the session; a refusal rejects with
 * `EventStreamRefused` carrying the server's detail.
 */
export async function readEventStream(
  request: EventStreamRequest,
  signal: AbortSignal,
  onFrame: (frame: SseFrame) => boolean | void,
  options: { fetch?: FetchLike; onOpen?: () => void } = {},
): Promise<boolean> {
  if (!getInstallationId()) throw new EventStreamRefused(CALL_ERRORS.noInstallationId, null);
  const projectId = callProjectId(request.projectId);
  if (!projectId) throw new EventStreamRefused(CALL_ERRORS.noProjectIdInUrl, null);
  const headers = setCallHeaders(new Headers({ Accept: 'text/event-stream' }), projectId);
  const post = request.method !== 'GET';
  if (post) headers.set('Content-Type', 'application/json');
  const query = request.query ? `?${new URLSearchParams(request.query).toString()}` : '';
  const response = await (options.fetch ?? defaultFetch)(`${API_BASE}${request.path}${query}`, {
    method: post ? 'POST' : 'GET',
    credentials: 'same-origin',
    headers: Object.fromEntries(headers.entries()),
    ...(post ? { body: JSON.stringify(request.body ?? {}) } : {}),
    signal,
  });
  if (response.status === 401) endSession();
  if (!response.ok) throw new EventStreamRefused(await httpErrorText(response), response.status);
  if (!response.body) throw new EventStreamRefused('The server sent no stream', response.status);
  options.onOpen?.();
  return readSseBody(response.body, onFrame);
}
