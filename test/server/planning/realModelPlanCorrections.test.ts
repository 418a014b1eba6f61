import fc from 'fast-check';
import { readStackModel } from '../../../src/server/agents/offline/documents';
import type { StackResponse } from '../../../src/shared/api/stack';
import { BASE_REQUEST, CORRECTIONS, publishedBy } from '../helpers/corrections';
import { startStackOpsApp, toolAnswers, type StackOpsApp } from '../helpers/stackOpsApp';
import { databaseKinds } from '../helpers/testDatabase';

/**
 * The architecture and implementation agents with a real-model configuration (an OpenAI-compatible
 * endpoint) take corrections the way the offline planner does: the model answers with stack operations as
 * tool calls, the server applies them to the project's one stack model (kept in its history with the
 * other chats' corrections), and the model then saves the plans made from the model as it stands. The
 * same typical corrections reach both plans, hold when the other plan chat is spoken to next, and an
 * operation that cannot be done goes back to the model as an error it reads.
 */
describe.each(databaseKinds())('a real model corrects the plans with tool calls (%s)', (kind) => {
  let ops: StackOpsApp;
  beforeAll(async () => {
    ops = await startStackOpsApp(kind, {
      REQUIREMENTS_MODEL: 'offline:',
      // Dozens of turns a minute from one person: more than the agents' rate limit lets through.
      AGENT_RATE_LIMIT_PER_MINUTE: '100000',
    });
  });
  afterAll(() => ops.close());

  const ROUTES = { requirements: '/api/planning/requirements-gatherer', architecture: '/api/planning/cloud-architect', implementation: '/api/planning/implementation-planner' } as const;
  type Chat = keyof typeof ROUTES;
  async function say(projectId: number, chat: Chat, message: string): Promise<string> {
    const r = await ops.call(projectId, 'POST', ROUTES[chat], { message });
    expect({ chat, message, status: r.statusCode }).toEqual({ chat, message, status: 200 });
    expect(r.body).not.toContain('"event":"error"');
    return r.body;
  }
  const plans = async (projectId: number): Promise<{ architecture: string; implementation: string }> => ({
    architecture: (await ops.call(projectId, 'GET', '/api/planning/architecture-plan')).json<{ plan: string }>().plan,
    implementation: (await ops.call(projectId, 'GET', '/api/planning/implementation-plan')).json<{ plan: string }>().plan,
  });
  async function planned(projectId: number): Promise<void> {
    await say(projectId, 'requirements', BASE_REQUEST);
    await say(projectId, 'architecture', 'Generate architecture plan');
    await say(projectId, 'implementation', 'Generate implementation plan');
  }
  const sameStack = (p: { architecture: string; implementation: string }): void => {
    expect(readStackModel(p.implementation)).toEqual(readStackModel(p.architecture));
    for (const service of publishedBy(p.architecture).services) expect(p.implementation).toContain(service);
  };

  test('the plan agents are offered the stack operations and read the stack model', async () => {
    const projectId = await ops.newProject('tools');
    const before = ops.model.requests.length;
    await planned(projectId);
    const asked = ops.model.requests.slice(before);
    expect(asked.length).toBeGreaterThanOrEqual(4);
    for (const r of asked) expect(r.tools).toEqual(expect.arrayContaining(['save_architecture_plan', 'removeComponent', 'exclude', 'replaceComponent', 'setPort', 'setDomain', 'makePrivate', 'expose']));
    expect(asked.some((r) => r.tools.includes('save_implementation_plan'))).toBe(true);
    expect(asked[0]!.messages[0]!.content).toContain('<stack_model>');
    sameStack(await plans(projectId));
  });

  // Each typical correction, said to each plan chat through the model, reaches both plans and the stored
  // model, and holds when the other plan chat is spoken to and the plans are made again.
  // Every correction in the implementation chat; in the architecture chat a seeded sample (every one with
  // FAKE_PLAN_CASES=all): each case is about eight turns.
  const inArchitecture = CORRECTIONS.map(([name, said, check]) => [`${name} in the architecture chat`, said, check, 'architecture'] as const);
  const cases = [
    ...CORRECTIONS.map(([name, said, check]) => [`${name} in the implementation chat`, said, check, 'implementation'] as const),
    ...(process.env.FAKE_PLAN_CASES === 'all' ? inArchitecture : fc.sample(fc.shuffledSubarray(inArchitecture, { minLength: 3, maxLength: 3 }), { seed: 25, numRuns: 1 })[0]!),
  ];
  test.each(cases)('%s: operations, then both plans; it holds in the other chat', async (_title, said, check, chat) => {
    const projectId = await ops.newProject(`${chat} ${said}`);
    await planned(projectId);
    const before = ops.model.requests.length;
    for (const message of said.split(/(?<=\.) /)) await say(projectId, chat, message);
    const asked = ops.model.requests.slice(before);
    const opAnswers = asked.flatMap((r) => toolAnswers(r.messages)).filter((a) => /^(Applied|Error)/.test(a));
    expect(opAnswers.length).toBeGreaterThan(0);
    expect(opAnswers.filter((a) => a.startsWith('Error:'))).toEqual([]);
    const now = await plans(projectId);
    check(publishedBy(now.architecture));
    if (chat === 'implementation') sameStack(now);

    const other = chat === 'implementation' ? 'architecture' : 'implementation';
    await say(projectId, other, 'looks good to me, thanks');
    await say(projectId, 'architecture', 'Generate architecture plan');
    await say(projectId, 'implementation', 'Generate implementation plan');
    const again = await plans(projectId);
    check(publishedBy(again.architecture));
    sameStack(again);
  });

  test('an operation that cannot be done goes back to the model as an error it tells the person; the rest applies', async () => {
    const projectId = await ops.newProject('bad op');
    await planned(projectId);
    ops.model.inject.push({ name: 'setPort', arguments: { component: 'nonesuch', hostPort: 8080 } });
    const before = ops.model.requests.length;
    const stream = await say(projectId, 'implementation', 'Please remove Redis');
    const answers = toolAnswers(ops.model.requests.slice(before)[1]!.messages);
    expect(answers[0]).toMatch(/^Error: operation 1 \(setPort\): nonesuch is not in the stack/);
    // Nextcloud takes Valkey where Redis is removed: the operation applied is the replacement, named with the need it fills.
    expect(answers[1]).toMatch(/^Applied replaceComponent\. Changed: put valkey \(.+\) in place of redis: nextcloud needs one of Redis 7\.4, Valkey/);
    expect(stream).toContain('Some changes could not be made');
    const stack = (await ops.call(projectId, 'GET', '/api/planning/stack')).json<StackResponse>();
    expect(stack.model.components.map((c) => c.name)).not.toContain('redis');
    expect(publishedBy((await plans(projectId)).architecture).services).not.toContain('redis');
  });

  test('the tool answer names what was put in place of a removed component', async () => {
    const projectId = await ops.newProject('replacement');
    await planned(projectId);
    const before = ops.model.requests.length;
    await say(projectId, 'implementation', 'remove MariaDB');
    const answers = ops.model.requests.slice(before).flatMap((r) => toolAnswers(r.messages));
    expect(answers.join('\n')).toMatch(/put postgres \(PostgreSQL 16\) in place of mariadb: nextcloud needs one of /);
    expect(publishedBy((await plans(projectId)).architecture).services).toEqual(expect.arrayContaining(['postgres']));
  });
});
