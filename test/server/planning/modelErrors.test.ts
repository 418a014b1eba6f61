import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { StreamEvent } from '../../../src/shared/events';
import { startModelWireServer, type ModelWireServer } from '../helpers/modelWireServer';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const framesOf = (body: string): StreamEvent[] =>
  body
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => JSON.parse(frame.slice('data: '.length)) as StreamEvent);

/** A port nothing listens on: one just closed. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('model provider errors in an agent turn (OpenAI-compatible endpoint)', () => {
  let database: TestDatabase;
  let wire: ModelWireServer;
  let dataDir: string;
  let app: FastifyInstance;
  let alice: TestUser;

  const appFor = (baseUrl: string): Promise<FastifyInstance> =>
    buildTestApp(database, { env: { DATA_DIR: dataDir, MODEL_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: baseUrl, OPENAI_MODEL: 'gpt-4o-mini' } });

  async function turn(target: FastifyInstance, projectId: number, message: string): Promise<StreamEvent[]> {
    const response = await target.inject({
      method: 'POST',
      url: '/api/planning/requirements-gatherer',
      headers: { ...alice.headers, 'project-id': String(projectId) },
      payload: { message },
    });
    expect({ status: response.statusCode, body: response.body }).toEqual({ status: 200, body: expect.any(String) });
    if (!response.body) throw new Error(`empty body: ${JSON.stringify(response.headers)}`);
    return framesOf(response.body);
  }

  async function threadOf(target: FastifyInstance, projectId: number): Promise<Array<{ role: string; content: string }>> {
    const response = await target.inject({ method: 'GET', url: '/api/planning/threads/requirements', headers: { ...alice.headers, 'project-id': String(projectId) } });
    return response.json<{ messages: Array<{ role: string; content: string }> }>().messages;
  }

  async function newProject(target: FastifyInstance, name: string): Promise<number> {
    return (await target.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json<{ id: number }>().id;
  }

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-model-errors-'));
    database = await openTestDatabase('pglite');
    wire = await startModelWireServer();
    app = await appFor(`${wire.url}/v1`);
    alice = await signIn(app, 'alice');
  });

  afterAll(async () => {
    await app.close();
    await wire.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  afterEach(() => {
    wire.failure = null;
  });

  test.each([
    [401, { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }, /^OpenAI refused the API key \(401\)\. Check OPENAI_API_KEY/],
    [429, { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } }, /^OpenAI is rate limiting requests \(429\)/],
    [429, { error: { message: 'You exceeded your current quota', type: 'insufficient_quota', code: 'insufficient_quota' } }, /^OpenAI refused the request: the account's quota or credit is used up/],
    [404, { error: { message: 'The model `gpt-4o-mini` does not exist', type: 'invalid_request_error', code: 'model_not_found' } }, /^OpenAI does not know the model "gpt-4o-mini" \(404\)/],
    [503, { error: { message: 'The server is overloaded', type: 'server_error' } }, /^OpenAI is unavailable right now \(503\)/],
  ])('%i %j: says what happened, leaves no trace in the thread, and the message can be sent again', async (status, body, said) => {
    const projectId = await newProject(app, `error ${status}`);
    wire.failure = { status, body };
    const failed = await turn(app, projectId, 'I need n8n');
    expect(failed.at(-1)).toEqual(expect.objectContaining({ event: 'error', data: { detail: expect.stringMatching(said) } }));
    expect(failed.some((frame) => frame.event === 'on_chat_model_end')).toBe(false);
    expect(await threadOf(app, projectId)).toEqual([]);

    wire.failure = null;
    const answered = await turn(app, projectId, 'I need n8n');
    expect(answered.at(-1)!.event).toBe('on_chat_model_end');
    expect((await threadOf(app, projectId)).map((m) => m.role)).toEqual(['user', 'assistant']);
  });

  test('a provider that cannot be reached is named as such', async () => {
    const down = await appFor(`http://127.0.0.1:${await closedPort()}/v1`);
    try {
      const projectId = await newProject(down, 'down');
      const failed = await turn(down, projectId, 'I need n8n');
      expect(failed.at(-1)).toEqual(expect.objectContaining({ event: 'error', data: { detail: expect.stringMatching(/^OpenAI could not be reached/) } }));
      expect(await threadOf(down, projectId)).toEqual([]);
    } finally {
      await down.close();
    }
  });
});
