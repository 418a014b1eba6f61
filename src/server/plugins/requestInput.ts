import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../errors';

/** A UTF-16 surrogate without its partner: not a character, and PostgreSQL's text cannot hold it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What is wrong with a string a client sent, or null: NUL bytes and lone surrogates cannot be stored as text. */
function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL bytes';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text (it contains a lone surrogate)';
  return null;
}

/** The first string (key or value) in a parsed input that cannot be stored, with the field's dotted name. */
export function findBadText(value: unknown, field: string): string | null {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? `${field} ${problem}` : null;
  }
  if (Buffer.isBuffer(value)) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = findBadText(value[i], `${field}.${i}`);
      if (found) return found;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    // for…in rather than Object.entries: no array per call (every request's path and query pass here).
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const keyProblem = textProblem(key);
      if (keyProblem) return `a field name in ${field} ${keyProblem}`;
      const found = findBadText((value as Record<string, unknown>)[key], field === 'body' ? key : `${field}.${key}`);
      if (found) return found;
    }
  }
  return null;
}

/**
 * What a client may send, before any schema or handler sees it:
 * - NUL bytes and lone surrogates in path, query or body answer 400 naming the field (they
 *   would otherwise reach PostgreSQL, which refuses them with an error, or be stored mangled);
 * - a JSON-typed empty body is an empty object: the documents' client sends
 *   `Content-Type: application/json` on every call, bodyless POSTs (logout, kill, sandbox
 *   initialise, execution trigger) included.
 */
export const requestInputPlugin = fp(
  async (app) => {
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, {});
      return parseJson(request, text, done);
    });

    // Runs on every request: a plain callback, no promise each.
    app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
      // The query parser keeps escapes it cannot decode as they are; refuse them as the router does in paths.
      const query = request.url.indexOf('?');
      if (query >= 0 && request.url.includes('%', query)) {
        try {
          decodeURIComponent(request.url.slice(query + 1));
        } catch {
          return done(badRequest('The query string is not valid percent-encoded UTF-8 text'));
        }
      }
      const problem =
        findBadText(request.params, 'path') ?? findBadText(request.query, 'query') ?? findBadText(request.body, 'body');
      done(problem ? badRequest(problem.replace(/^(path|query)\./, '')) : undefined);
    });
  },
  { name: 'requestInput' },
);
