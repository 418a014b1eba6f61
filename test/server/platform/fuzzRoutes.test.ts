import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { MAX_JSON_DEPTH } from '../../../src/server/jsonDepth';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * A property-based fuzzer over the OpenAPI document the server publishes (`/api/docs/json`): for every
 * route, generated requests — path and query parameters, headers, bodies valid-ish (drawn from the
 * route's own schema) and hostile (nesting thousands of levels deep, huge strings, wrong types,
 * prototype keys, broken JSON, other content types) — with the person's session, another's, a forged
 * one or none. The property: never a 5xx, and every 4xx answers `{ detail: string }`.
 *
 * Seeded, so that a failure replays: FUZZ_SEED and FUZZ_RUNS (runs per route) override the defaults;
 * FUZZ_TABLE=1 prints tries and held per route; FUZZ_TRACE=<file> appends each request before it is sent
 * (to find one that never answers).
 */

const SEED = Number(process.env.FUZZ_SEED ?? 31);
const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 20);
const BODY_LIMIT = 64 * 1024;

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  maxItems?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
}
interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required?: boolean;
  schema?: JsonSchema;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}

/** A value shaped like the schema asks: what a client that read the documentation would send. */
function validish(schema: JsonSchema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => validish(s, depth + 1)));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 2 ** 31 - 1, 2 ** 31 - 1) });
    case 'number':
      return fc.double({ noNaN: true, min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6 });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(validish(schema.items, depth + 1), { maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case 'object': {
      const properties = schema.properties ?? {};
      const record = Object.fromEntries(Object.entries(properties).map(([k, s]) => [k, validish(s, depth + 1)]));
      return fc.record(record, { requiredKeys: (schema.required ?? []).filter((k) => k in properties) });
    }
    default: {
      const maxLength = Math.min(schema.maxLength ?? 40, 40);
      if (schema.pattern) {
        try {
          return fc.oneof(fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? Infinity)), fc.string({ maxLength }));
        } catch {
          // A pattern JavaScript's RegExp cannot take: plain strings only.
        }
      }
      return fc.string({ minLength: Math.min(schema.minLength ?? 0, maxLength), maxLength });
    }
  }
}

/** JSON text nested `levels` deep, in one of the shapes a hostile client builds. */
const nested = (levels: number, shape: 'array' | 'object'): string =>
  shape === 'array' ? '['.repeat(levels) + ']'.repeat(levels) : '{"a":'.repeat(levels) + '1' + '}'.repeat(levels);

/** A request body as raw text with its content type: what reaches the server's parser. */
interface Body {
  contentType?: string;
  payload?: string;
}

const json = (value: unknown): Body => ({ contentType: 'application/json', payload: JSON.stringify(value) ?? 'null' });

/** Bodies no schema asks for. */
const hostileBody: fc.Arbitrary<Body> = fc.oneof(
  // Deep: around the limit and far past it (9,000 levels is 18 KB, the size that crashed every route).
  {
    arbitrary: fc
      .record({ levels: fc.constantFrom(MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH + 1, 9_000, 20_000, 30_000), shape: fc.constantFrom('array' as const, 'object' as const) })
      .map(({ levels, shape }) => ({ contentType: 'application/json', payload: nested(levels, shape) })),
    weight: 3,
  },
  // Deep under a field the schema knows, so that validation rather than the parser meets it.
  {
    arbitrary: fc
      .record({ key: fc.constantFrom('message', 'name', 'login', 'step_id', 'project_id'), levels: fc.constantFrom(5_000, 15_000) })
      .map(({ key, levels }) => ({ contentType: 'application/json', payload: `{"${key}":${nested(levels, 'array')}}` })),
    weight: 2,
  },
  // Huge strings: inside the body limit and past it.
  fc.constantFrom(10_000, BODY_LIMIT + 1).map((size) => json({ message: 'x'.repeat(size), name: 'y'.repeat(size) })),
  // Wrong types anywhere.
  fc.jsonValue({ maxDepth: 4 }).map(json),
  // Prototype keys, as text (JSON.stringify would drop a real __proto__).
  fc.constantFrom('{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"admin":true}}}', '{"a":{"__proto__":{"x":1}}}').map((payload) => ({ contentType: 'application/json', payload })),
  // Text that is not JSON, lone surrogates and NUL escaped inside JSON.
  fc.constantFrom('{"a":', '[', '"\\ud800"', '{"message":"a\\u0000b"}', '{"message":"\\udfff"}', 'null', '1e999').map((payload) => ({ contentType: 'application/json', payload })),
  // Other content types, and none.
  fc.record({ contentType: fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=latin1', 'application/evil'), payload: fc.string({ maxLength: 50 }) }),
  fc.constant<Body>({}),
);

/** A path or query value: valid ids, ids out of range, text, percent-encoding that does not decode, very long text. */
function parameterValue(schema: JsonSchema | undefined, validId: () => string): fc.Arbitrary<string> {
  const typed = validish(schema).map((v) => encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v) ?? ''));
  return fc.oneof(
    { arbitrary: fc.constant(null).map(() => validId()), weight: 3 },
    { arbitrary: typed.filter((s) => s.length > 0), weight: 3 },
    fc.constantFrom('0', '-1', '2147483648', '99999999999999999999', '1e3', '0x10', '%00', '1%00', '%ED%A0%80', '%E0%A4%A', '..', '%2e%2e%2f', '__proto__', 'constructor'),
    fc.constantFrom(200, 5_000, 15_000).map((n) => 'a'.repeat(n)),
    fc.string({ unit: 'binary', maxLength: 20 }).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, ''))).filter((s) => s.length > 0),
  );
}

/** How long an event stream is read before the client goes away (the terminal's commands never end). */
const STREAM_READ_MS = 2_000;

/** An answer's body; an event stream's first STREAM_READ_MS, after which the client hangs up, as a browser tab closed would. */
async function readAnswer(stream: Readable, contentType: string): Promise<string> {
  let body = '';
  const timer = contentType.startsWith('text/event-stream') ? setTimeout(() => stream.destroy(), STREAM_READ_MS) : undefined;
  try {
    for await (const chunk of stream) body += String(chunk);
  } catch {
    // Destroyed by the timer: what arrived is the answer.
  } finally {
    clearTimeout(timer);
  }
  return body;
}

describe('every route of the OpenAPI document, fuzzed', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;
  let bob: TestUser;
  let aliceProject: number;
  let bobProject: number;
  let doc: { paths: Record<string, Record<string, Operation>> };

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-fuzz-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, {
      env: {
        DATA_DIR: dataDir,
        BODY_LIMIT_BYTES: String(BODY_LIMIT),
        LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
        AGENT_RATE_LIMIT_PER_MINUTE: '100000',
        PAYMENT_RATE_LIMIT_PER_MINUTE: '100000',
        SANDBOX_NETWORK: 'false',
      },
    });
    alice = await signIn(app, 'fuzz-alice');
    bob = await signIn(app, 'fuzz-bob');
    aliceProject = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'A' } })).json<{ id: number }>().id;
    bobProject = (await app.inject({ method: 'POST', url: '/api/projects', headers: bob.headers, payload: { name: 'B' } })).json<{ id: number }>().id;
    const published = await app.inject('/api/docs/json');
    expect(published.statusCode).toBe(200);
    doc = published.json();
  }, 60_000);
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers no 5xx, and `{detail}` with every 4xx, whatever a client sends', async () => {
    const routes = Object.entries(doc.paths).flatMap(([route, operations]) => Object.entries(operations).map(([method, operation]) => ({ route, method, operation })));
    expect(routes.length).toBeGreaterThan(60);
    const validId = (): string => String(aliceProject);
    const table: string[] = [];
    const failures: string[] = [];
    let total = 0;

    for (const [index, { route, method, operation }] of routes.entries()) {
      const params = operation.parameters ?? [];
      const pathParams = params.filter((p) => p.in === 'path');
      const queryParams = params.filter((p) => p.in === 'query');
      const bodySchema = operation.requestBody?.content['application/json']?.schema;

      const request = fc.record({
        path: fc.record(Object.fromEntries(pathParams.map((p) => [p.name, parameterValue(p.schema, validId)]))),
        query: fc.array(
          fc.oneof(
            ...(queryParams.length ? [fc.constantFrom(...queryParams).chain((p) => parameterValue(p.schema, validId).map((v) => `${p.name}=${v}`))] : []),
            fc.constantFrom('a[b][c]=1', '__proto__=1', 'x=%ZZ', '%00=1', `q=${'z'.repeat(4_000)}`),
          ),
          { maxLength: 3 },
        ),
        session: fc.constantFrom('alice', 'bob', 'forged', 'none'),
        projectHeader: fc.constantFrom(String(aliceProject), String(bobProject), '2147483648', 'abc', '', undefined),
        installationHeader: fc.constantFrom('own', '1', '-1', 'x'.repeat(300), undefined),
        body: bodySchema
          ? fc.oneof({ arbitrary: validish(bodySchema).map(json), weight: 2 }, { arbitrary: hostileBody, weight: 3 })
          : fc.oneof(fc.constant<Body>({}), hostileBody),
      });

      let tries = 0;
      let held = 0;
      await fc.assert(
        fc.asyncProperty(request, async (r) => {
          const url =
            route.replace(/\{(\w+)\}/g, (_m, name: string) => r.path[name] ?? validId()) + (r.query.length ? `?${r.query.join('&')}` : '');
          const user = r.session === 'alice' ? alice : r.session === 'bob' ? bob : undefined;
          const headers: Record<string, string> = { origin: alice.headers.origin! };
          if (user) headers.cookie = user.cookie;
          if (r.session === 'forged') headers.cookie = 'da_session=forged-session-id';
          if (r.installationHeader === 'own') headers['installation-id'] = String((user ?? alice).installationId);
          else if (r.installationHeader !== undefined) headers['installation-id'] = r.installationHeader;
          if (r.projectHeader !== undefined) headers['project-id'] = r.projectHeader;
          if (r.body.contentType) headers['content-type'] = r.body.contentType;
          const options: InjectOptions = { method: method.toUpperCase() as InjectOptions['method'], url, headers };
          if (r.body.payload !== undefined && method !== 'get') options.payload = r.body.payload;

          if (process.env.FUZZ_TRACE) fs.appendFileSync(process.env.FUZZ_TRACE, `${Date.now()} ${options.method} ${url.slice(0, 100)} ${(r.body.payload ?? '').slice(0, 100)}\n`);
          const response = await app.inject({ ...options, payloadAsStream: true });
          const body = await readAnswer(response.stream(), String(response.headers['content-type'] ?? ''));
          tries += 1;
          let detail: unknown;
          try {
            detail = (JSON.parse(body) as { detail?: unknown }).detail;
          } catch {
            detail = undefined;
          }
          const problems: string[] = [];
          if (response.statusCode >= 500) problems.push(`answered ${response.statusCode}`);
          if (response.statusCode >= 400 && typeof detail !== 'string') problems.push('no {detail}');
          if (problems.length === 0) held += 1;
          else if (failures.length < 20) {
            failures.push(`${method.toUpperCase()} ${url.slice(0, 120)} [${r.session}] ${(r.body.payload ?? '').slice(0, 80)} → ${problems.join(', ')}: ${body.slice(0, 160)}`);
          }
          // A try that signed the person out: sign in again, so that later tries carry a live session.
          if (route === '/api/github/logout' && response.statusCode < 400 && user) Object.assign(user, await signIn(app, user.login));
          return problems.length === 0;
        }),
        { seed: SEED + index, numRuns: RUNS_PER_ROUTE, endOnFailure: true },
      ).catch(() => undefined); // The failures, with their requests, are reported below (all routes, not the first).
      total += tries;
      table.push(`${method.toUpperCase()} ${route} | ${tries} | ${held}`);
    }
    if (process.env.FUZZ_TABLE) process.stdout.write(`route | tries | held\n${table.join('\n')}\ntotal tries: ${total}\n${failures.join('\n')}\n`);
    expect(failures).toEqual([]);
  }, 300_000);

  it('answers `{detail}` for what Node\'s HTTP parser refuses: a URL or headers over 16 KiB (431), a request that is not HTTP (400)', async () => {
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = new URL(address);
    const raw = (request: string): Promise<string> =>
      new Promise((resolve, reject) => {
        const socket = net.connect({ host: '127.0.0.1', port: Number(port) }, () => socket.end(request));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString()));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    const answers = [
      await raw(`GET /api/projects?q=${'a'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      await raw(`GET /api/projects/${'1'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`),
      await raw(`GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(17_000)}\r\n\r\n`),
      await raw('NOT HTTP AT ALL\r\n\r\n'),
    ];
    const parsed = answers.map((answer) => {
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      return { status: Number(head.split(' ')[1]), detail: (JSON.parse(body) as { detail?: unknown }).detail };
    });
    expect(parsed.map((p) => p.status)).toEqual([431, 431, 431, 400]);
    for (const p of parsed) expect(typeof p.detail).toBe('string');
    expect(parsed[0]!.detail).toMatch(/URL and headers are too large/);
  });
});
