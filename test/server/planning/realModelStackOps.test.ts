import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { StackResponse } from '../../../src/shared/api/stack';
import { BASE_REQUEST, CORRECTIONS, publishedBy } from '../helpers/corrections';
import { startStackOpsModel, type StackOpsModel } from '../helpers/stackOpsModel';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * The requirements agent with a real-model configuration (an OpenAI-compatible endpoint) takes the same
 * path as the offline planner: the model answers with stack operations as tool calls, the server applies
 * them to the project's stack model and renders the requirements from it, and the architect (offline here)
 * plans from that model. The same corrections as in words reach the architecture plan; an operation that
 * cannot be done goes back to the model as an error it reads.
 */
describe.each(databaseKinds())('a real model edits the stack with tool calls (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let model: StackOpsModel;
  let alice: TestUser;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-stackops-'));
    database = await openTestDatabase(kind);
    model = await startStackOpsModel();
    app = await buildTestApp(database, {
      env: {
        DATA_DIR: dataDir,
        SIGNUP_CREDIT_USD: '50',
        MODEL_PROVIDER: 'openai',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: `${model.url}/v1`,
        ARCHITECT_MODEL: 'offline:',
        IMPLEMENTATION_MODEL: 'offline:',
      },
    });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await model.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (projectId: number, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.inject({ method, url, headers: { ...alice.headers, 'project-id': String(projectId) }, payload: payload as Record<string, unknown> | undefined });
  async function newProject(name: string): Promise<number> {
    return (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json<{ id: number }>().id;
  }
  async function say(projectId: number, message: string): Promise<string> {
    const r = await call(projectId, 'POST', '/api/planning/requirements-gatherer', { message });
    expect(r.statusCode).toBe(200);
    return r.body;
  }
  /** The tool answers the model read in a request: those after its last tool-calling message. */
  const toolAnswers = (messages: StackOpsModel['requests'][number]['messages']): string[] =>
    messages.slice(messages.map((m) => m.role).lastIndexOf('assistant') + 1).map((m) => m.content ?? '');
  async function architecture(projectId: number): Promise<string> {
    expect((await call(projectId, 'POST', '/api/planning/cloud-architect', { message: 'Generate architecture plan' })).statusCode).toBe(200);
    return (await call(projectId, 'GET', '/api/planning/architecture-plan')).json<{ plan: string }>().plan;
  }

  test('the first request becomes stack operations; the requirements are rendered from the model', async () => {
    const projectId = await newProject('first');
    const before = model.requests.length;
    await say(projectId, BASE_REQUEST);
    const asked = model.requests.slice(before);
    expect(asked[0]!.tools).toEqual(expect.arrayContaining(['update_requirements', 'addComponent', 'exclude', 'setDomain', 'makePrivate', 'setTarget']));
    const calls = (asked[1]!.messages.find((m) => m.role === 'assistant')?.tool_calls ?? []).map((c) => c.function.name);
    expect(calls).toEqual(expect.arrayContaining(['addComponent', 'setDomain']));
    const answers = toolAnswers(asked[1]!.messages);
    expect(answers.length).toBe(calls.length);
    expect(answers.every((a) => a.startsWith('Applied '))).toBe(true);
    expect(answers.at(-1)).toContain('The requirements are complete.');
    const stack = (await call(projectId, 'GET', '/api/planning/stack')).json<StackResponse>();
    expect(stack.model.components.map((c) => c.name)).toEqual(expect.arrayContaining(['nextcloud', 'mariadb', 'redis', 'adminer', 'caddy']));
    expect(stack.model.components.map((c) => c.name)).not.toContain('postgres');
    expect(stack.requirements).toContain('cloud.example.org');
    expect(stack.ready_to_continue).toBe(true);
  });

  test.each(CORRECTIONS)('%s: "%s" reaches the architecture plan', async (name, said, check) => {
    const projectId = await newProject(name);
    await say(projectId, BASE_REQUEST);
    await say(projectId, said);
    check(publishedBy(await architecture(projectId)));
  });

  test('an operation that cannot be done goes back to the model as an error, and the rest still applies', async () => {
    const projectId = await newProject('bad op');
    await say(projectId, BASE_REQUEST);
    model.inject.push({ name: 'setPort', arguments: { component: 'nonesuch', hostPort: 8080 } }, { name: 'addComponent', arguments: { product: 'redis', colour: 'blue' } });
    const before = model.requests.length;
    const stream = await say(projectId, 'also add Uptime Kuma');
    const answers = toolAnswers(model.requests.slice(before)[1]!.messages);
    expect(answers[0]).toMatch(/^Error: operation 1 \(setPort\): nonesuch is not in the stack \(it has .*nextcloud/);
    expect(answers[1]).toMatch(/^Error: operation 1 \(addComponent\): it must not have additional properties \(colour\)/);
    expect(answers[2]).toMatch(/^Applied addComponent\./);
    expect(stream).toContain('Some changes could not be made');
    const stack = (await call(projectId, 'GET', '/api/planning/stack')).json<StackResponse>();
    expect(stack.model.components.some((c) => c.name.startsWith('uptime'))).toBe(true);
  });
});
