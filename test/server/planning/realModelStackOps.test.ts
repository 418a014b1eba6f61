import type { StackResponse } from '../../../src/shared/api/stack';
import { BASE_REQUEST, CORRECTIONS, publishedBy } from '../helpers/corrections';
import { startStackOpsApp, toolAnswers, type StackOpsApp } from '../helpers/stackOpsApp';
import { databaseKinds } from '../helpers/testDatabase';

/**
 * The requirements agent with a real-model configuration (an OpenAI-compatible endpoint) takes the same
 * path as the offline planner: the model answers with stack operations as tool calls, the server applies
 * them to the project's stack model and renders the requirements from it, and the architect (offline here)
 * plans from that model. The same corrections as in words reach the architecture plan; an operation that
 * cannot be done goes back to the model as an error it reads.
 */
describe.each(databaseKinds())('a real model edits the stack with tool calls (%s)', (kind) => {
  let ops: StackOpsApp;
  beforeAll(async () => {
    ops = await startStackOpsApp(kind, { ARCHITECT_MODEL: 'offline:', IMPLEMENTATION_MODEL: 'offline:' });
  });
  afterAll(() => ops.close());

  async function say(projectId: number, message: string): Promise<string> {
    const r = await ops.call(projectId, 'POST', '/api/planning/requirements-gatherer', { message });
    expect(r.statusCode).toBe(200);
    return r.body;
  }
  async function architecture(projectId: number): Promise<string> {
    expect((await ops.call(projectId, 'POST', '/api/planning/cloud-architect', { message: 'Generate architecture plan' })).statusCode).toBe(200);
    return (await ops.call(projectId, 'GET', '/api/planning/architecture-plan')).json<{ plan: string }>().plan;
  }

  test('the first request becomes stack operations; the requirements are rendered from the model', async () => {
    const projectId = await ops.newProject('first');
    const before = ops.model.requests.length;
    await say(projectId, BASE_REQUEST);
    const asked = ops.model.requests.slice(before);
    expect(asked[0]!.tools).toEqual(expect.arrayContaining(['update_requirements', 'addComponent', 'exclude', 'setDomain', 'makePrivate', 'setTarget']));
    const calls = (asked[1]!.messages.find((m) => m.role === 'assistant')?.tool_calls ?? []).map((c) => c.function.name);
    expect(calls).toEqual(expect.arrayContaining(['addComponent', 'setDomain']));
    const answers = toolAnswers(asked[1]!.messages);
    expect(answers.length).toBe(calls.length);
    expect(answers.every((a) => a.startsWith('Applied '))).toBe(true);
    expect(answers.at(-1)).toContain('The requirements are complete.');
    const stack = (await ops.call(projectId, 'GET', '/api/planning/stack')).json<StackResponse>();
    expect(stack.model.components.map((c) => c.name)).toEqual(expect.arrayContaining(['nextcloud', 'mariadb', 'redis', 'adminer', 'caddy']));
    expect(stack.model.components.map((c) => c.name)).not.toContain('postgres');
    expect(stack.requirements).toContain('cloud.example.org');
    expect(stack.ready_to_continue).toBe(true);
  });

  test.each(CORRECTIONS)('%s: "%s" reaches the architecture plan', async (name, said, check) => {
    const projectId = await ops.newProject(name);
    await say(projectId, BASE_REQUEST);
    await say(projectId, said);
    check(publishedBy(await architecture(projectId)));
  });

  test('an operation that cannot be done goes back to the model as an error, and the rest still applies', async () => {
    const projectId = await ops.newProject('bad op');
    await say(projectId, BASE_REQUEST);
    ops.model.inject.push({ name: 'setPort', arguments: { component: 'nonesuch', hostPort: 8080 } }, { name: 'addComponent', arguments: { product: 'redis', colour: 'blue' } });
    const before = ops.model.requests.length;
    const stream = await say(projectId, 'also add Uptime Kuma');
    const answers = toolAnswers(ops.model.requests.slice(before)[1]!.messages);
    expect(answers[0]).toMatch(/^Error: operation 1 \(setPort\): nonesuch is not in the stack \(it has .*nextcloud/);
    expect(answers[1]).toMatch(/^Error: operation 1 \(addComponent\): it must not have additional properties \(colour\)/);
    expect(answers[2]).toMatch(/^Applied addComponent\./);
    expect(stream).toContain('Some changes could not be made');
    const stack = (await ops.call(projectId, 'GET', '/api/planning/stack')).json<StackResponse>();
    expect(stack.model.components.some((c) => c.name.startsWith('uptime'))).toBe(true);
  });
});
