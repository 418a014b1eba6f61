import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { StreamEvent } from '../../shared/events';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
  'x-content-type-options': 'nosniff',
} as const;

/**
 * Takes the reply over as a server-sent event stream (ARCHITECTURE.md, "The wire contract") and
 * sends the headers at once, so the browser's fetch resolves before the first event.
 */
export function openEventStream(reply: FastifyReply): ServerResponse {
  reply.hijack();
  reply.server.holdUntilSignOut(reply.request, reply.raw);
  const raw = reply.raw;
  raw.writeHead(200, SSE_HEADERS);
  raw.flushHeaders();
  return raw;
}

/** One frame of an event stream: `data: {json}`, after `event: <name>` when it is named. */
export interface EventFrame {
  event?: string;
  data: unknown;
}

/** Writes text to the stream and sends it now. */
function send(raw: ServerResponse, text: string): void {
  raw.write(text);
  // res.write corks the socket until process.nextTick, which a burst of events chained on promises
  // (a fast model, a database on this thread) starves for the whole burst: send each frame now.
  raw.socket?.uncork();
}

/** Writes one frame: a `data: {json}` line, preceded by `event: <name>` for a named event (the DevOps Helper's). */
export function writeEvent(raw: ServerResponse, frame: EventFrame): void {
  send(raw, `${frame.event === undefined ? '' : `event: ${frame.event}\n`}data: ${JSON.stringify(frame.data)}\n\n`);
}

/** Writes a comment line (`: text`), which clients skip: a stream's greeting and its keep-alives. */
export function writeComment(raw: ServerResponse, text: string): void {
  send(raw, `: ${text}\n\n`);
}

/** How a turn's events are framed: an opening frame, one frame per event, and what a failure logs. */
export interface StreamFraming {
  opening?: EventFrame;
  frame(event: StreamEvent): EventFrame;
  failure: string;
}

/** The agents' streams: every event as it is, one unnamed `data: {json}` frame each. */
const AGENT_FRAMING: StreamFraming = { frame: (data) => ({ data }), failure: 'agent turn failed' };

/**
 * Writes an agent turn as server-sent events and closes the connection after `on_chat_model_end`
 * (ARCHITECTURE.md, "The wire contract"). A client that goes away aborts the generation.
 */
export async function sendStream(
  request: FastifyRequest,
  reply: FastifyReply,
  turn: { events: AsyncIterable<StreamEvent> },
  onGone: () => void,
  framing: StreamFraming = AGENT_FRAMING,
): Promise<void> {
  const raw = openEventStream(reply);
  let finished = false;
  raw.on('close', () => {
    if (!finished) onGone();
  });
  try {
    if (framing.opening) writeEvent(raw, framing.opening);
    for await (const event of turn.events) {
      if (raw.destroyed) break;
      writeEvent(raw, framing.frame(event));
    }
  } catch (err) {
    request.log.error({ err }, framing.failure);
  } finally {
    finished = true;
    raw.end();
  }
}
