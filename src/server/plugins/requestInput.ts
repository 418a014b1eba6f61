import fp from 'fastify-plugin';
import type { FastifyRequest } from 'fastify';
import { badRequest } from '../errors';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../jsonDepth';

/** A UTF-16 surrogate without its partner: not a character, and PostgreSQL's text cannot hold it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** What is wrong with a string a client sent, or null: NUL bytes and lone surrogates cannot be stored as text. */
function textProblem(value: string): string | null {
  if (value.includes('\u0000')) return 'must not contain NUL bytes';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text (it contains a lone surrogate)';
  return null;
}

/**
 * The first string (key or value) in a parsed input that cannot be stored, with the field's dotted name.
 * A walk with its own stack, not recursion: however deep the input, it cannot exhaust the call stack
 * (the JSON parser refuses deep bodies first; a query string's parser may still nest).
 */
export function findBadText(input: unknown, root: string): string | null {
  const pending: { value: unknown; field: string }[] = [{ value: input, field: root }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { value, field } = next;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return `${field} ${problem}`;
      continue;
    }
    if (typeof value !== 'object' || value === null || Buffer.isBuffer(value)) continue;
    // Pushed in reverse, so that the first field is looked at first and named when several are bad.
    const children: { value: unknown; field: string }[] = [];
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i += 1) children.push({ value: value[i], field: `${field}.${i}` });
    } else {
      // for…in rather than Object.entries: no array per call (every request's path and query pass here).
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const keyProblem = textProblem(key);
        if (keyProblem) return `a field name in ${field} ${keyProblem}`;
        children.push({ value: (value as Record<string, unknown>)[key], field: field === 'body' ? key : `${field}.${key}` });
      }
    }
    for (let i = children.length - 1; i >= 0; i -= 1) pending.push(children[i]!);
  }
  return null;
}

/**
 * What a client may send, before any schema or handler sees it:
 * - NUL bytes and lone surrogates in path, query or body answer 400 naming the field (they
 *   would otherwise reach PostgreSQL, which refuses them with an error, or be stored mangled);
 * - a JSON-typed empty body is an empty object: the documents' client sends
 *   `Content-Type: application/json` on every call, bodyless POSTs (logout, kill, sandbox
 *   initialise, execution trigger) included;
 * - JSON nested deeper than MAX_JSON_DEPTH answers 400 before it is parsed: nothing after the parser
 *   (schema validation, serialisation, redaction) has to survive a body thousands of levels deep.
 */
export const requestInputPlugin = fp(
  async (app) => {
    const parseJson = app.getDefaultJsonParser('error', 'error');
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, {});
      if (nestsDeeperThan(text, MAX_JSON_DEPTH)) return done(badRequest(`The JSON body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
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
