import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { ID_PATTERN } from '../../../src/shared/api/common';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * Walks every route of the OpenAPI document with what a hostile client sends: ids beyond the
 * database's integer range, NUL bytes, lone surrogates, empty/malformed/oversized/mistyped bodies.
 * A try holds when the answer is not a 5xx, every error carries `{detail}`, and a hostile value is
 * refused with a 4xx. Set HOSTILE_TABLE=1 to print the table (test → tries → held → failed).
 */

interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  minimum?: number;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  pattern?: string;
}
interface Operation {
  parameters?: { in: 'path' | 'query' | 'header'; name: string; schema?: JsonSchema }[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
}
interface Try {
  category: string;
  request: InjectOptions;
  /** The value is hostile: only a 4xx refusal holds. */
  mustRefuse: boolean;
  /** The answer must not complain about the (empty) body. */
  emptyBodyAccepted?: boolean;
  /** The refusal's status, when only one is right. */
  status?: number;
  /** The refusal's detail must name this field. */
  names?: string;
}

const ID_VALUES = ['2147483648', '99999999999999', '1%00', '%00', '%ED%A0%80'];
const STRING_VALUES = ['a%00b', '%ED%A0%80'];
const BODY_STRINGS = ['a\u0000b', 'x\ud800y', '\udc00'];
const BODY_INTEGERS = [2_147_483_648, 999_999_999_999_999];

/** A plausible valid value for a schema, so that one hostile field is what a try varies. */
function sample(schema: JsonSchema | undefined): unknown {
  if (!schema) return 'x';
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.anyOf) return sample(schema.anyOf[0]);
  switch (schema.type) {
    case 'integer':
    case 'number':
      return schema.minimum ?? 1;
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return Object.fromEntries((schema.required ?? []).map((key) => [key, sample(schema.properties?.[key])]));
    default:
      return schema.pattern?.includes('[0-9]') ? '1' : 'x';
  }
}

function isIntegerSchema(schema: JsonSchema | undefined): boolean {
  return schema?.type === 'integer' || (schema?.anyOf ?? []).some((s) => s.type === 'integer');
}

describe('every route against hostile input', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let user: TestUser;
  let projectId: number;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-hostile-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, {
      env: { DATA_DIR: dataDir, LOGIN_RATE_LIMIT_PER_MINUTE: '100000', BODY_LIMIT_BYTES: '4096', SANDBOX_NETWORK: 'false' },
    });
    user = await signIn(app, 'hostile');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: user.headers, payload: { name: 'Target' } })).json().id;
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  function triesOf(method: string, route: string, operation: Operation): Try[] {
    const params = operation.parameters ?? [];
    const pathParams = params.filter((p) => p.in === 'path');
    const queryParams = params.filter((p) => p.in === 'query');
    const bodySchema = operation.requestBody?.content['application/json']?.schema;
    const baseUrl = (values: Record<string, string>) =>
      route.replace(/\{(\w+)\}/g, (_m, name: string) => values[name] ?? (/id$/i.test(name) ? String(projectId) : 'requirements'));
    const baseQuery = Object.fromEntries(queryParams.filter((p) => p.name !== 'path').map((p) => [p.name, String(sample(p.schema))]));
    const headers = { ...user.headers, 'project-id': String(projectId) };
    const body = bodySchema ? sample(bodySchema) : undefined;
    const base = (): InjectOptions => ({
      method: method.toUpperCase() as InjectOptions['method'],
      url: baseUrl({}),
      headers,
      ...(body !== undefined ? { payload: body as object } : {}),
    });
    const tries: Try[] = [];

    for (const param of pathParams) {
      for (const value of param.schema?.pattern === ID_PATTERN ? ID_VALUES : STRING_VALUES) {
        tries.push({ category: 'path parameter', mustRefuse: true, status: 400, request: { ...base(), url: baseUrl({ [param.name]: value }) } });
      }
    }
    for (const param of queryParams) {
      const values = isIntegerSchema(param.schema) ? ID_VALUES.slice(0, 2) : STRING_VALUES;
      for (const value of values) {
        const query = Object.entries({ ...baseQuery, [param.name]: value }).map(([k, v]) => `${k}=${v}`).join('&');
        tries.push({ category: 'query parameter', mustRefuse: true, status: 400, names: value.includes('%00') ? param.name : undefined, request: { ...base(), url: `${base().url}?${query}` } });
      }
    }
    for (const value of ['2147483648', '999999999999999']) {
      tries.push({ category: 'Project-Id header', mustRefuse: false, request: { ...base(), headers: { ...headers, 'project-id': value } } });
    }
    if (bodySchema?.properties) {
      for (const [name, schema] of Object.entries(bodySchema.properties)) {
        const values: unknown[] = isIntegerSchema(schema) ? BODY_INTEGERS : schema.type === 'string' || schema.anyOf ? BODY_STRINGS : [];
        for (const value of values) {
          tries.push({ category: 'body field', mustRefuse: true, status: 400, names: name, request: { ...base(), payload: { ...(body as object), [name]: value } } });
        }
      }
    }
    if (method !== 'get') {
      const json = { ...headers, 'content-type': 'application/json' };
      tries.push({
        category: 'empty JSON body',
        mustRefuse: false,
        emptyBodyAccepted: !bodySchema?.required?.length,
        request: { ...base(), headers: json, payload: '' },
      });
      tries.push({ category: 'malformed JSON', mustRefuse: true, status: 400, request: { ...base(), headers: json, payload: '{"a":' } });
      tries.push({ category: 'oversized body', mustRefuse: true, status: 413, request: { ...base(), headers: json, payload: JSON.stringify({ a: 'x'.repeat(8192) }) } });
      tries.push({
        category: 'unsupported content type',
        mustRefuse: true,
        status: 415,
        request: { ...base(), headers: { ...headers, 'content-type': 'application/x-evil' }, payload: 'x' },
      });
    }
    return tries;
  }

  it('answers no 5xx, `{detail}` on every error and a 4xx for every hostile value', async () => {
    const doc = app.swagger() as { paths: Record<string, Record<string, Operation>> };
    const tries: Try[] = [];
    for (const [route, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) tries.push(...triesOf(method, route, operation));
    }
    tries.push({ category: 'unknown route', mustRefuse: true, request: { method: 'GET', url: '/api/no-such-route', headers: user.headers } });
    tries.push({ category: 'unknown route', mustRefuse: true, request: { method: 'DELETE', url: '/api/projects', headers: user.headers } });
    tries.push({ category: 'unknown route', mustRefuse: true, request: { method: 'GET', url: '/api/projects/%ED%A0%80', headers: user.headers } });

    const table = new Map<string, { tries: number; held: number }>();
    const failures: string[] = [];
    for (const t of tries) {
      // Signed in again after a logout try: every try carries the current session.
      const signedIn = t.request.headers?.cookie ? { cookie: user.headers.cookie, 'installation-id': user.headers['installation-id'] } : {};
      const response = await app.inject({ ...t.request, headers: { ...t.request.headers, ...signedIn } });
      if (t.request.url === '/api/github/logout' || String(t.request.url).startsWith('/api/github/logout')) {
        user = await signIn(app, 'hostile'); // the try signed us out: carry on signed in
      }
      let detail: unknown;
      try {
        detail = response.json<{ detail?: unknown }>().detail;
      } catch {
        detail = undefined;
      }
      const problems: string[] = [];
      if (response.statusCode >= 500) problems.push(`answered ${response.statusCode}`);
      if (response.statusCode >= 400 && typeof detail !== 'string') problems.push('no {detail}');
      if (t.mustRefuse && (response.statusCode < 400 || response.statusCode >= 500)) problems.push(`not refused (${response.statusCode})`);
      if (t.mustRefuse && t.status && response.statusCode !== t.status) problems.push(`answered ${response.statusCode}, not ${t.status}`);
      if (t.names && response.statusCode === 400 && !String(detail).includes(t.names)) problems.push(`detail does not name ${t.names}`);
      if (t.emptyBodyAccepted && response.statusCode === 400 && /body/i.test(String(detail))) problems.push(`empty body refused: ${String(detail)}`);
      const row = table.get(t.category) ?? { tries: 0, held: 0 };
      row.tries += 1;
      if (problems.length === 0) row.held += 1;
      else failures.push(`${t.category}: ${t.request.method} ${String(t.request.url)} ${JSON.stringify(t.request.payload ?? '').slice(0, 100)} → ${problems.join(', ')} ${response.body.slice(0, 120)}`);
      table.set(t.category, row);
    }
    if (process.env.HOSTILE_TABLE) {
      const lines = [...table].map(([category, r]) => `${category} | ${r.tries} | ${r.held} | ${r.tries - r.held}`);
      process.stdout.write(`test | tries | held | failed\n${lines.join('\n')}\n${failures.join('\n')}\n`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
