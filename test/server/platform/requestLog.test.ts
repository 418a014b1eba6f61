import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/** The lines the app writes, parsed, as pino writes them to its stream. */
function capture(): { stream: Writable; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { stream, lines };
}

/**
 * ARCHITECTURE.md's logging budget: no line for a 2xx/304 at the default level, a line for what says
 * something (a refusal, an error, a slow request), each with its request's id; every request at debug.
 */
describe.each(['info', 'debug'])('request log at %s', (level) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let alice: TestUser;
  let log: ReturnType<typeof capture>;

  beforeAll(async () => {
    database = await openTestDatabase('pglite');
    log = capture();
    app = await buildTestApp(database, { logger: { level, stream: log.stream } });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
  });

  const requestLines = () => log.lines.filter((line) => typeof line.msg === 'string' && /^request /.test(line.msg));

  it('writes a refusal with its request id and the query without its values', async () => {
    log.lines.length = 0;
    const refused = await app.inject({ method: 'GET', url: '/api/projects/12345/costs?token=hunter2', headers: alice.headers });
    expect(refused.statusCode).toBe(404);
    const [line] = requestLines();
    expect(line).toMatchObject({ msg: 'request refused', level: 30, res: { statusCode: 404 }, req: { url: '/api/projects/12345/costs?token=…' } });
    expect(line!.reqId).toEqual(expect.any(String));
    expect(JSON.stringify(log.lines)).not.toContain('hunter2');
  });

  it(level === 'info' ? 'writes nothing for a poll answered 200 or 304' : 'writes every request at debug, with its id', async () => {
    log.lines.length = 0;
    const first = await app.inject({ method: 'GET', url: '/api/user/credits', headers: alice.headers });
    const again = await app.inject({ method: 'GET', url: '/api/user/credits', headers: { ...alice.headers, 'if-none-match': String(first.headers.etag) } });
    expect([first.statusCode, again.statusCode]).toEqual([200, 304]);
    const lines = requestLines();
    if (level === 'info') {
      expect(lines).toEqual([]);
    } else {
      expect(lines.map((line) => [line.msg, (line.res as { statusCode: number }).statusCode])).toEqual([
        ['request completed', 200],
        ['request completed', 304],
      ]);
      expect(new Set(lines.map((line) => line.reqId)).size).toBe(2);
    }
  });
});
