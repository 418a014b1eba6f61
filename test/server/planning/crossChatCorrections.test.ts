import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readStackModel } from '../../../src/server/agents/offline/documents';
import type { StackResponse } from '../../../src/shared/api/stack';
import { BASE_REQUEST, CORRECTIONS, publishedBy } from '../helpers/corrections';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * A correction made in any chat is an operation on the project's one stack model, and every later rebuild
 * starts from that model: said in the implementation chat, it holds when the person then talks to the
 * architecture assistant (and the other way round, and with the requirements chat), in the plan that
 * turn leaves and in the plans made again afterwards. Checked for every typical correction, every chat it
 * is said in, and every other chat spoken to next.
 */

type Chat = 'requirements' | 'architecture' | 'implementation';
const CHATS: Chat[] = ['requirements', 'architecture', 'implementation'];
const ROUTES: Record<Chat, string> = {
  requirements: '/api/planning/requirements-gatherer',
  architecture: '/api/planning/cloud-architect',
  implementation: '/api/planning/implementation-planner',
};
/** Something a person says that corrects nothing. */
const ORDINARY: Record<Chat, string> = {
  requirements: 'thanks, that looks right',
  architecture: 'looks good to me, thanks',
  implementation: 'looks good to me, thanks',
};

/** The reply's text, joined from the stream's chunks. */
const replyText = (body: string): string =>
  body
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as { chunk?: { content?: string } })
    .map((e) => e.chunk?.content ?? '')
    .join('');

describe.each(databaseKinds())('corrections across chats (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-crosschat-'));
    database = await openTestDatabase(kind);
    // Dozens of turns a minute from one person: more than the agents' rate limit lets through.
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, AGENT_RATE_LIMIT_PER_MINUTE: '100000' } });
    alice = await signIn(app, 'alice');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const call = (projectId: number, method: 'GET' | 'POST', url: string, payload?: unknown) =>
    app.inject({ method, url, headers: { ...alice.headers, 'project-id': String(projectId) }, payload: payload as Record<string, unknown> | undefined });
  async function newProject(name: string): Promise<number> {
    return (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json<{ id: number }>().id;
  }
  async function say(projectId: number, chat: Chat, message: string): Promise<string> {
    const r = await call(projectId, 'POST', ROUTES[chat], { message });
    expect({ chat, message, status: r.statusCode }).toEqual({ chat, message, status: 200 });
    expect(r.body).not.toContain('"event":"error"');
    return replyText(r.body);
  }
  const plans = async (projectId: number): Promise<{ architecture: string; implementation: string }> => ({
    architecture: (await call(projectId, 'GET', '/api/planning/architecture-plan')).json<{ plan: string }>().plan,
    implementation: (await call(projectId, 'GET', '/api/planning/implementation-plan')).json<{ plan: string }>().plan,
  });
  async function planned(projectId: number): Promise<void> {
    await say(projectId, 'requirements', BASE_REQUEST);
    await say(projectId, 'architecture', 'Generate architecture plan');
    await say(projectId, 'implementation', 'Generate implementation plan');
  }
  /** A correction as a person says it in a chat: a plan's chat gets each sentence as a message of its own. */
  async function correct(projectId: number, chat: Chat, said: string): Promise<void> {
    for (const message of chat === 'requirements' ? [said] : said.split(/(?<=\.) /)) await say(projectId, chat, message);
  }
  async function regenerate(projectId: number): Promise<{ architecture: string; implementation: string }> {
    await say(projectId, 'architecture', 'Generate architecture plan');
    await say(projectId, 'implementation', 'Generate implementation plan');
    return plans(projectId);
  }
  /** The steps deploy the stack the architecture shows: both are rendered from one model. */
  const sameStack = (p: { architecture: string; implementation: string }): void => {
    expect(readStackModel(p.implementation)).toEqual(readStackModel(p.architecture));
    for (const service of publishedBy(p.architecture).services) expect(p.implementation).toContain(service);
  };

  test('removed Redis and moved a port in the implementation chat; an ordinary message to the architect keeps both', async () => {
    const projectId = await newProject('impl then architect');
    await planned(projectId);
    const reply = await say(projectId, 'implementation', 'Please remove Redis');
    expect(reply).toContain('I changed the architecture and the steps');
    await say(projectId, 'implementation', 'publish Adminer on port 8090');
    const stack = (await call(projectId, 'GET', '/api/planning/stack')).json<StackResponse>();
    expect(stack.model.components.map((c) => c.name)).not.toContain('redis');
    expect(stack.model.exposures).toContainEqual(expect.objectContaining({ component: 'adminer', via: 'port', hostPort: 8090 }));

    const answer = await say(projectId, 'architecture', ORDINARY.architecture);
    expect(answer).not.toContain('I changed the architecture');
    const kept = await plans(projectId);
    expect(publishedBy(kept.architecture).services).not.toContain('redis');
    expect(publishedBy(kept.architecture).open.adminer).toEqual(['8090:8080']);

    // A correction about something else in the architect's chat rebuilds from the model: the earlier ones hold.
    await say(projectId, 'architecture', 'also add Uptime Kuma');
    const after = await plans(projectId);
    expect(publishedBy(after.architecture).services.some((s) => s.startsWith('uptime'))).toBe(true);
    expect(publishedBy(after.architecture).services).not.toContain('redis');
    expect(publishedBy(after.architecture).open.adminer).toEqual(['8090:8080']);
    const again = await regenerate(projectId);
    expect(publishedBy(again.architecture).services).not.toContain('redis');
    expect(publishedBy(again.architecture).open.adminer).toEqual(['8090:8080']);
    sameStack(again);
  });

  test('a later correction in another chat wins over an earlier one about the same thing', async () => {
    const projectId = await newProject('order');
    await planned(projectId);
    await say(projectId, 'architecture', 'Please remove Redis');
    await say(projectId, 'implementation', 'add Redis again');
    await say(projectId, 'architecture', ORDINARY.architecture);
    expect(publishedBy((await regenerate(projectId)).architecture).services).toContain('redis');
    await say(projectId, 'requirements', 'I do NOT want Redis');
    expect(publishedBy((await regenerate(projectId)).architecture).services).not.toContain('redis');
  });

  // Every correction × the chat it is said in × another chat spoken to next (48 cases, about eight turns
  // each): a seeded sample of them by default, every one with CROSS_CHAT_CASES=all.
  const every = CORRECTIONS.flatMap(([name, said, check]) =>
    CHATS.flatMap((madeIn) => CHATS.filter((c) => c !== madeIn).map((later) => [`${name} in ${madeIn}, then ${later}`, said, check, madeIn, later] as const)),
  );
  const size = process.env.CROSS_CHAT_CASES === 'all' ? every.length : 8;
  const cases = fc.sample(fc.shuffledSubarray(every, { minLength: size, maxLength: size }), { seed: 25, numRuns: 1 })[0]!;
  test.each(cases)('%s', async (_title, said, check, madeIn, later) => {
    const projectId = await newProject(`${madeIn}-${later}`);
    await planned(projectId);
    await correct(projectId, madeIn, said);
    await say(projectId, later, ORDINARY[later]);
    // The plan that turn left: a plan's chat brings it in line with the model; the requirements chat leaves the corrected one.
    check(publishedBy((await plans(projectId)).architecture));
    const again = await regenerate(projectId);
    check(publishedBy(again.architecture));
    sameStack(again);
  });
});
