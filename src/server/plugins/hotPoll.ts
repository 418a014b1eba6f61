import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Snapshot } from '../services/shared/versionedSnapshots';

/** The 304 of a hot poll's response schema. */
export const NotModified = Type.Null({ description: 'Not modified: the If-None-Match ETag is current' });

/** Whether an If-None-Match header names `etag` (weak comparison, lists and `*` included). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header === etag) return true; // what browsers send back: the one ETag they were given
  const opaque = etag.startsWith('W/') ? etag.slice(2) : etag;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || (t.startsWith('W/') ? t.slice(2) : t) === opaque;
  });
}

/**
 * Answers a hot poll from its snapshot: the ETag always, 304 with no payload when the caller's copy is
 * current (checked before any body exists), else the snapshot's JSON, built once per version. Call it
 * after the caller's access to the key has been checked: a valid ETag is no proof of access.
 */
export function sendSnapshot(request: FastifyRequest, reply: FastifyReply, snapshot: Snapshot<unknown>): FastifyReply {
  if (answeredNotModified(request, reply, snapshot.etag)) return reply;
  // Fastify sends a string as is: the route's response schema documents the shape, it does not serialise.
  return reply.type('application/json; charset=utf-8').send(snapshot.body());
}

/**
 * Sets `etag` (revalidated on every use) and, when the caller's If-None-Match names it, answers 304:
 * true then, and the handler answers nothing more. Check the caller's access first.
 */
export function answeredNotModified(request: FastifyRequest, reply: FastifyReply, etag: string): boolean {
  reply.header('etag', etag).header('cache-control', 'private, no-cache');
  if (!etagMatches(request.headers['if-none-match'], etag)) return false;
  // No payload at all: `null` would be serialised and announced as 4 bytes a 304 never carries.
  reply.code(304).send();
  return true;
}
