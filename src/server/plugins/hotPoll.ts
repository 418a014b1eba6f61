import type { IncomingMessage, ServerResponse } from 'node:http';
import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { Type } from 'typebox';
import type { SessionInfo } from '../services/auth/sessionStore';
import type { Snapshot, SnapshotSource } from '../services/snapshots/versionedSnapshots';
import { hotPollPaths } from './hotPollPaths';
import { logsEveryRequest } from './requestLog';
import { hookList } from './routeHooks';

/** What a hot poll's `snapshotInMemory` reads of its request: the hot polls answer some before Fastify has made one. */
export type HotPollRequest = Pick<FastifyRequest, 'headers' | 'params' | 'server'>;
type SnapshotInMemory = (request: HotPollRequest, auth: SessionInfo) => Snapshot<unknown> | undefined;

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * A hot poll's snapshot for the signed-in caller from memory alone, the caller's access to it
     * checked from memory too (`ownedProjectInMemory`); undefined whenever memory cannot tell, and the
     * route then runs as usual. It must never query, and never answer for a key the caller may not read.
     */
    snapshotInMemory?: SnapshotInMemory;
  }
}

/** For `snapshotInMemory`: the project's snapshot when memory holds it and the project is known to be the caller's. */
export function peekOwned(source: SnapshotSource<number, unknown>, projectId: number | undefined): Snapshot<unknown> | undefined {
  return projectId === undefined ? undefined : source.peek(projectId);
}

/** How a hot poll's answer may be cached: by the browser, revalidated on every use. */
const CACHE_CONTROL = 'private, no-cache';

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
  reply.header('etag', etag).header('cache-control', CACHE_CONTROL);
  if (!etagMatches(request.headers['if-none-match'], etag)) return false;
  // No payload at all: `null` would be serialised and announced as 4 bytes a 304 never carries.
  reply.code(304).send();
  return true;
}

/** A 304 as both short ways write it: the route's own 304 carries these two headers and no others of ours. */
function writeNotModified(response: ServerResponse, etag: string): void {
  response.writeHead(304, ['etag', etag, 'cache-control', CACHE_CONTROL]).end();
}

/**
 * Puts `answer` before Fastify on the server's requests: a request it answers (true) never reaches
 * Fastify. The listener Fastify gave `http.createServer` is the server's only one; were there others,
 * nothing is put before them (every request then takes Fastify's way, as it may).
 */
function answerBeforeFastify(app: FastifyInstance, answer: (request: IncomingMessage, response: ServerResponse) => boolean): void {
  const listeners = app.server.listeners('request');
  if (listeners.length !== 1) {
    app.log.warn(`the server has ${listeners.length} request listeners: hot polls take Fastify's way`);
    return;
  }
  const fastify = listeners[0] as (request: IncomingMessage, response: ServerResponse) => void;
  app.server.removeListener('request', fastify);
  app.server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (!answer(request, response)) fastify(request, response);
  });
}

/**
 * The hot polls' short ways: a poll whose If-None-Match is current is answered 304 from memory — the
 * session (`sessionFromMemory`) and the route's `snapshotInMemory` — with the headers the route's own
 * 304 carries (its ETag and Cache-Control), and nothing else runs: no authentication hook, no
 * validation, no handler, no promise, no onSend hooks. It is what nearly every poll of an open tab is.
 *
 * - Before Fastify, on the server's connections: the GET of a hot poll's path in its plainest form
 *   (`hotPollPaths`) is answered before Fastify makes a request and a reply, routes it and runs the
 *   app-wide hooks, which for such a poll decide nothing: the cookie parser (here only the session
 *   cookie is read, as that parser reads it: \`cookieValue\`), the cross-origin check (never for a GET), the WebSocket flag, and the request log (it
 *   writes nothing for a 304 unless its level logs every request, and then this way is not taken).
 *   That work was half of a poll's CPU on the server (ARCHITECTURE.md, "Performance budgets").
 *   Once the server closes, every request takes Fastify's way, which answers 503.
 * - As the route's first hook, for what reaches Fastify (`app.inject`, other spellings of the path).
 *
 * Anything memory cannot tell (a session, an ownership or a snapshot not held here, no If-None-Match, a
 * stale ETag, a query string) goes on to the route, whose answer is the same one and whose checks answer
 * errors. The inputs it reads are checked as strictly as the route checks them (the session and
 * Installation-Id as `authenticate` does, a project id by its pattern), so it never answers what the
 * route would refuse; a failure of its own leaves the request to Fastify's way, which fails alike.
 */
export const hotPollPlugin = fp(
  async (app) => {
    const paths = hotPollPaths<SnapshotInMemory>();
    // Runs after the session plugin's onRoute, so this hook comes before `authenticate`.
    app.addHook('onRoute', (route) => {
      const isGet = route.method === 'GET' || (Array.isArray(route.method) && route.method.includes('GET'));
      const snapshotInMemory = route.config?.snapshotInMemory;
      if (isGet && !(snapshotInMemory && paths.add(route.url, snapshotInMemory))) paths.see(route.url);
      if (!snapshotInMemory) return;
      const answerFromMemory: onRequestHookHandler = (request, reply, done) => {
        const ifNoneMatch = request.headers['if-none-match'];
        // A query string (no poll sends one) takes the route's way, where every input is checked.
        if (ifNoneMatch === undefined || request.url.includes('?')) return done();
        const auth = app.sessionFromMemory(request);
        const snapshot = auth === null ? undefined : snapshotInMemory(request, auth);
        if (snapshot === undefined || !etagMatches(ifNoneMatch, snapshot.etag)) return done();
        // Answered here: the hooks after this one, and Fastify's sending, are skipped (onResponse still runs).
        reply.hijack();
        writeNotModified(reply.raw, snapshot.etag);
      };
      route.onRequest = [answerFromMemory, ...hookList(route.onRequest)];
    });

    let closing = false;
    app.addHook('preClose', (done) => {
      closing = true;
      done();
    });
    // Taken once: read through the server on every poll, each is a lookup among its many properties.
    const sessionFromCookieHeader = app.sessionFromCookieHeader;
    const log = app.log;
    const answer = (request: IncomingMessage, response: ServerResponse): boolean => {
      const headers = request.headers;
      const ifNoneMatch = headers['if-none-match'];
      if (closing || request.method !== 'GET' || ifNoneMatch === undefined || request.url === undefined) return false;
      const found = paths.find(request.url);
      if (!found || logsEveryRequest(log.level)) return false;
      let snapshot: Snapshot<unknown> | undefined;
      try {
        const auth = sessionFromCookieHeader(headers.cookie, headers);
        snapshot = auth === null ? undefined : found.route({ headers, params: found.params, server: app }, auth);
      } catch {
        return false;
      }
      if (snapshot === undefined || !etagMatches(ifNoneMatch, snapshot.etag)) return false;
      writeNotModified(response, snapshot.etag);
      return true;
    };
    app.addHook('onReady', (done) => {
      paths.checkRoutedAlike();
      answerBeforeFastify(app, answer);
      done();
    });
  },
  { name: 'hot-poll', dependencies: ['session'] },
);
