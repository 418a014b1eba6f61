import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { tokenUsage } from '../../../src/server/db/schema';
import { TURN_TEXTS } from '../../../src/shared/constants/agents';
import { TOOL_NAMES } from '../../../src/server/agents/toolNames';
import type { StreamEvent } from '../../../src/shared/events';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * The one turn session against an OpenAI-compatible model served over real HTTP: a stream that stalls
 * after its first tokens, a turn killed while it streams, an architect that answers without saving its plan.
 */

/** What the fake model does with one request. */
type Answer =
  | { text: string }
  | { toolCall: { name: string; arguments: Record<string, unknown> } }
  /** Streams these tokens, then sends nothing more and keeps the connection open. */
  | { hangAfter: string[] };

interface FakeModel {
  url: string;
  answers: Answer[];
  /** Every request's messages, in order. */
  requests: Array<Array<{ role: string; content: unknown }>>;
  /** Resolves once a hanging answer has sent its tokens. */
  hung(): Promise<void>;
  close(): Promise<void>;
}

let calls = 0;
const frame = (id: string, delta: object | null, finish: string | null = null, usage: object | null = null): string =>
  `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1731000000, model: 'gpt-4o-mini', choices: delta ? [{ index: 0, delta, logprobs: null, finish_reason: finish }] : [], usage })}\n\n`;

async function startFakeModel(): Promise<FakeModel> {
  const open = new Set<http.ServerResponse>();
  let onHung: () => void = () => undefined;
  const model: FakeModel = {
    url: '',
    answers: [],
    requests: [],
    hung: () => new Promise((resolve) => (onHung = resolve)),
    close: () =>
      new Promise((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      model.requests.push((JSON.parse(raw) as { messages: Array<{ role: string; content: unknown }> }).messages);
      const answer = model.answers.shift();
      if (!answer) {
        res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"no answer scripted"}}');
        return;
      }
      const id = `chatcmpl-fake-${(calls += 1)}`;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      if ('hangAfter' in answer) {
        open.add(res);
        res.on('close', () => open.delete(res));
        res.write(frame(id, { role: 'assistant', content: '' }));
        for (const token of answer.hangAfter) res.write(frame(id, { content: token }));
        onHung();
        return;
      }
      const body =
        'toolCall' in answer
          ? frame(id, { role: 'assistant', content: null, tool_calls: [{ index: 0, id: `call_${id}`, type: 'function', function: { name: answer.toolCall.name, arguments: JSON.stringify(answer.toolCall.arguments) } }] }) +
            frame(id, {}, 'tool_calls')
          : frame(id, { role: 'assistant', content: answer.text }) + frame(id, {}, 'stop');
      res.end(`${body}${frame(id, null, null, { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 })}data: [DONE]\n\n`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  model.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return model;
}

const eventsOf = (body: string): StreamEvent[] =>
  body
    .split('\n\n')
    .filter((f) => f.startsWith('data: '))
    .map((f) => JSON.parse(f.slice('data: '.length)) as StreamEvent);

const ARCHITECTURE_PLAN = '# Architecture\n\nOne server running the stack with Docker Compose.';

describe('the one turn session, against an OpenAI-compatible model over HTTP', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let model: FakeModel;
  let alice: TestUser;

  beforeAll(async () => {
    database = await openTestDatabase('pglite');
    model = await startFakeModel();
    app = await buildTestApp(database, {
      env: { MODEL_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${model.url}/v1`, OPENAI_MODEL: 'gpt-4o-mini', MODEL_TIMEOUT_SECONDS: '3' },
    });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await model.close();
    await database.destroy();
  });
  beforeEach(() => {
    model.answers.length = 0;
    model.requests.length = 0;
  });

  async function newProject(name: string): Promise<{ id: number; headers: Record<string, string> }> {
    const id = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json<{ id: number }>().id;
    return { id, headers: { ...alice.headers, 'project-id': String(id) } };
  }

  const usageOf = (projectId: number, agent: string) =>
    database.db.select().from(tokenUsage).where(and(eq(tokenUsage.projectId, projectId), eq(tokenUsage.agent, agent)));

  it('a stream that stalls after its first tokens ends with an error saying the model sent nothing, and its tokens are metered', async () => {
    const project = await newProject('Stall');
    model.answers.push({ hangAfter: ['Let', ' me', ' think'] });
    const response = await app.inject({ method: 'POST', url: '/api/planning/requirements-gatherer', headers: project.headers, payload: { message: 'A blog' } });
    expect(response.statusCode).toBe(200);
    const events = eventsOf(response.body);
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { detail: TURN_TEXTS.stalled(3) } });
    const [usage] = await usageOf(project.id, 'requirementsAgent');
    expect(usage?.outputTokens).toBeGreaterThanOrEqual(3);
    expect(usage?.inputTokens).toBeGreaterThan(0);
  });

  it('tokens streamed before a kill are metered, and the turn ends', async () => {
    const project = await newProject('Kill');
    model.answers.push({ hangAfter: ['One', ' two', ' three', ' four'] });
    // Read over a real socket, so that the kill comes once the person has seen the tokens.
    const base = await app.listen({ host: '127.0.0.1', port: 0 });
    const request = http.request(new URL('/api/planning/requirements-gatherer', base), { method: 'POST', headers: { ...project.headers, 'content-type': 'application/json' } });
    request.end(JSON.stringify({ message: 'A shop' }));
    const response = await new Promise<http.IncomingMessage>((resolve) => request.on('response', resolve));
    let body = '';
    const ended = new Promise<void>((resolve) => response.on('end', resolve));
    await new Promise<void>((resolve) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        body += chunk;
        if (body.includes(' four')) resolve();
      });
    });
    const kill = await app.inject({ method: 'POST', url: '/api/planning/requirements-gatherer/kill', headers: project.headers });
    expect(kill.json()).toEqual({ status: 'stopped' });
    await ended;
    expect(eventsOf(body).at(-1)).toMatchObject({ event: 'on_chat_model_end' });
    const rows = await usageOf(project.id, 'requirementsAgent');
    expect(rows).toHaveLength(1);
    expect(rows[0]!.outputTokens).toBeGreaterThanOrEqual(4);
    expect(rows[0]!.inputTokens).toBeGreaterThan(0);
  });

  it('an architect that answers without saving is nudged once; saving then ends the turn, and the nudge is not in the chat read back', async () => {
    const project = await newProject('Nudged');
    model.answers.push({ text: 'I would run it on one server.' }, { toolCall: { name: TOOL_NAMES.architecture, arguments: { plan: ARCHITECTURE_PLAN } } }, { text: 'Saved.' });
    const response = await app.inject({ method: 'POST', url: '/api/planning/cloud-architect', headers: project.headers, payload: { message: 'Design it' } });
    expect(eventsOf(response.body).at(-1)).toMatchObject({ event: 'on_chat_model_end' });
    expect(JSON.stringify(model.requests[1]!.at(-1))).toContain(TURN_TEXTS.nudge(TOOL_NAMES.architecture));
    expect((await app.inject({ method: 'GET', url: '/api/planning/architecture-plan', headers: project.headers })).json<{ plan: string }>().plan).toBe(ARCHITECTURE_PLAN);
    const thread = (await app.inject({ method: 'GET', url: '/api/planning/threads/architect', headers: project.headers })).json<{ messages: Array<{ content: string }> }>();
    expect(thread.messages.map((m) => m.content).join('\n')).not.toContain(TOOL_NAMES.architecture);
  });

  it('an architect that answers twice without saving ends with a clear error and no plan', async () => {
    const project = await newProject('Unsaved');
    model.answers.push({ text: 'I would run it on one server.' }, { text: 'Still thinking.' });
    const response = await app.inject({ method: 'POST', url: '/api/planning/cloud-architect', headers: project.headers, payload: { message: 'Design it' } });
    const events = eventsOf(response.body);
    expect(events.at(-1)).toMatchObject({ event: 'error', data: { detail: TURN_TEXTS.notSaved('no architecture plan was saved') } });
    expect(events.filter((e) => e.event === 'on_chat_model_end')).toHaveLength(0);
    expect(model.requests).toHaveLength(2);
    expect((await app.inject({ method: 'GET', url: '/api/planning/architecture-plan', headers: project.headers })).json<{ plan: string }>().plan).toBe('');
  });

  it('the implementation planner refuses to start without an architecture plan (409 with the reason), and asks no model', async () => {
    const project = await newProject('No architecture');
    const response = await app.inject({ method: 'POST', url: '/api/planning/implementation-planner', headers: project.headers, payload: { message: 'Plan it' } });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({ detail: TURN_TEXTS.noArchitecture });
    expect(model.requests).toHaveLength(0);
  });
});
