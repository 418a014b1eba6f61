import fs from 'node:fs';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import path from 'node:path';
import fp from 'fastify-plugin';
import { DB_INT_MAX, ID_PATTERN } from '../../shared/api/common';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../errors';
import { isDiskFull } from '../services/health/diskSpace';
import { sessionCookieName } from './session';

/** The landing page prerendered by the client's build (src/client/prerenderLanding.tsx), beside index.html. */
const LANDING_HTML = 'landing.html';

interface AjvIssue {
  instancePath?: string;
  message?: string;
  keyword?: string;
  params?: Record<string, unknown>;
}

/** Turns a schema failure into a message naming the field, e.g. "name must NOT have more than 100 characters". */
export function describeValidation(issues: AjvIssue[], context: string | undefined): string {
  const issue = issues[0];
  if (!issue) return 'Invalid request';
  const field = (issue.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  if (issue.keyword === 'required') {
    const missing = String(issue.params?.missingProperty ?? '');
    return `${field ? `${field}.` : ''}${missing} is required`;
  }
  if (issue.keyword === 'additionalProperties') {
    return `${field ? `${field}.` : ''}${String(issue.params?.additionalProperty)} is not allowed`;
  }
  const where = field || (context === 'body' ? 'body' : context ?? 'request');
  if (issue.keyword === 'pattern' && issue.params?.pattern === ID_PATTERN) return `${where} must be an id from 0 to ${DB_INT_MAX}`;
  return `${where} ${issue.message ?? 'is invalid'}`;
}

/** How long the error handler asks the database whether it is there, before blaming it for a failure. */
const OUTAGE_PING_MS = 300;

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * A failure of a service we call (GitHub through Octokit, the payment provider's SDK, a model API):
 * their errors carry the upstream `status` with the `request`/`response`, or a network error code.
 * The caller did nothing wrong and we are not broken either: 502 with a message that says which.
 */
export function upstreamFailure(error: unknown): string | null {
  if (typeof error !== 'object' || error === null) return null;
  const e = error as { status?: unknown; request?: unknown; response?: unknown; headers?: unknown; code?: unknown; cause?: unknown };
  if (typeof e.status === 'number' && (e.request !== undefined || e.response !== undefined || e.headers !== undefined)) {
    return `An upstream service answered ${e.status}; please try again later`;
  }
  const code = typeof e.code === 'string' ? e.code : (e.cause as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return 'An upstream service could not be reached; please try again later';
  return null;
}

/**
 * Errors Fastify answers before any route or error handler runs (a URL that does not decode, such
 * as `%ED%A0%80`, a lone surrogate in UTF-8): the same `{ detail }` as every other error.
 */
export const frameworkErrors = (error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void => {
  reply.status(error.statusCode ?? 400).send({ detail: error.code === 'FST_ERR_BAD_URL' ? 'The URL is not valid UTF-8 text' : error.message });
};

/** What Node's HTTP parser refused, in the words a client is answered with (status, detail). */
function clientErrorAnswer(code: string | undefined): [number, string] {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return [408, 'The request took too long to arrive'];
  // Node counts the request line with the headers (http.maxHeaderSize, 16 KiB): a long URL lands here.
  if (code === 'HPE_HEADER_OVERFLOW') return [431, `The URL and headers are too large (limit ${http.maxHeaderSize} bytes together)`];
  return [400, 'The request is not valid HTTP'];
}

/**
 * Errors Node's HTTP parser meets before Fastify sees a request (a URL or headers over 16 KiB, a
 * malformed request line): the same `{ detail }` as every other error, written on the socket as
 * Fastify's own handler does, then the connection is closed.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, detail] = clientErrorAnswer(error.code);
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * Every error is JSON `{ detail }`. Client mistakes keep their 4xx status; oversized bodies
 * answer 413 and malformed ones 400 naming the problem; an upstream service's failure answers 502; a
 * full disk 507 in plain words;
 * anything else is logged and answers 500
 * without internals.
 */
export const errorsPlugin = fp(
  async (app) => {
    app.setErrorHandler(async (error: FastifyError & { validationContext?: string }, request, reply) => {
      if (error.validation) {
        return reply.status(400).send({ detail: describeValidation(error.validation as AjvIssue[], error.validationContext) });
      }
      const status = error.statusCode ?? 500;
      if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
        return reply.status(413).send({ detail: `Request body is too large (limit ${app.config.bodyLimit} bytes)` });
      }
      if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError) {
        return reply.status(400).send({ detail: 'Malformed JSON in request body' });
      }
      if (status >= 400 && status < 500) {
        if (status === 429) return reply.status(429).send({ detail: error.message || 'Too many requests' });
        return reply.status(status).send({ detail: error.message });
      }
      // A dependency we run on is down (the sandbox's Docker engine), or the disk is full: the detail says so.
      if ((status === 503 || status === 507) && error instanceof HttpError) return reply.status(status).send({ detail: error.message });
      // A write that failed for want of space, wherever it was (before the database is blamed: PGlite
      // on a full disk stops answering too): 507 in plain words, and not ready until space is back.
      if (isDiskFull(error)) {
        request.log.warn({ err: error }, 'disk full');
        return reply.status(507).send({ detail: app.services.disk.fullError().message });
      }
      // A failure while the database is away (restarting, stopped, frozen) is the database's outage,
      // whatever the driver called it: answer 503 with a detail that says so, and log once as a warning.
      if (await app.database.ping(OUTAGE_PING_MS).then(() => false, () => true)) {
        request.log.warn({ err: error }, 'database not reachable');
        return reply.status(503).header('retry-after', '5').send({ detail: 'The database is not reachable right now; please try again in a moment' });
      }
      const upstream = upstreamFailure(error);
      if (upstream) {
        request.log.warn({ err: error }, 'upstream service failed');
        return reply.status(502).send({ detail: upstream });
      }
      request.log.error({ err: error }, 'request failed');
      return reply.status(500).send({ detail: 'Internal server error' });
    });

    const indexHtml = path.join(app.config.staticDir, 'index.html');
    const landingHtml = path.join(app.config.staticDir, LANDING_HTML);
    const sessionCookie = sessionCookieName(app.config.secureCookies);
    app.setNotFoundHandler((request, reply) => {
      if (request.url.startsWith('/api/') || request.url === '/api' || request.method !== 'GET') {
        return reply.status(404).send({ detail: `Not found: ${request.method} ${request.url.split('?')[0]}` });
      }
      // The landing page prerendered at build, for a browser without a session: a signed-in one is sent
      // on to its projects by the app, and must not see the landing page first.
      if (request.url.split('?')[0] === '/' && !request.cookies[sessionCookie] && fs.existsSync(landingHtml)) {
        return reply.header('cache-control', 'no-cache').sendFile(LANDING_HTML);
      }
      if (fs.existsSync(indexHtml)) {
        return reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8').send(fs.createReadStream(indexHtml));
      }
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The web app is not built yet: run `npm run build` (or `npm start`, which builds first).');
    });
  },
  { name: 'errors', dependencies: ['services'] },
);
