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

/** Writes one event as a single `data: {json}` line and sends it now. */
export function writeEvent(raw: ServerResponse, data: unknown): void {
  raw.write(`data: ${JSON.stringify(data)}\n\n`);
  // res.write corks the socket until process.nextTick, which a burst of events chained on promises
  // (a fast model, a database on this thread) starves for the whole burst: send each event now.
  raw.socket?.uncork();
}

/** Writes one named event (`event: <name>` then `data: {json}`), as the DevOps Helper stream frames them. */
export function writeNamedEvent(raw: ServerResponse, event: string, data: unknown): void {
  raw.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  raw.socket?.uncork();
}

/**
 * Writes an agent turn as server-sent events, one `data: {json}` line each, and closes the connection
 * after `on_chat_model_end` (ARCHITECTURE.md, "The wire contract"). A client that goes away aborts the
 * generation.
 */
export async function sendStream(request: FastifyRequest, reply: FastifyReply, turn: { events: AsyncIterable<StreamEvent> }, onGone: () => void): Promise<void> {
  const raw = openEventStream(reply);
  let finished = false;
  raw.on('close', () => {
    if (!finished) onGone();
  });
  try {
    for await (const event of turn.events) {
      if (raw.destroyed) break;
      writeEvent(raw, event);
    }
  } catch (err) {
    request.log.error({ err }, 'agent turn failed');
  } finally {
    finished = true;
    raw.end();
  }
}
