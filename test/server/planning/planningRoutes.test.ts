import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { and, eq } from 'drizzle-orm';
import { planningSecrets, tokenUsage } from '../../../src/server/db/schema';
import { KEY_FILE_NAME } from '../../../src/server/services/userSecrets/secretBox';
import type { StreamEvent } from '../../../src/shared/events';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/** Parses an SSE body, checking the framing: every frame is one `data: {json}` line. */
function framesOf(body: string): StreamEvent[] {
  const frames = body.split('\n\n');
  expect(frames.pop()).toBe('');
  return frames.map((f) => {
    expect(f).toMatch(/^data: \{.*\}$/);
    expect(f.includes('\n')).toBe(false);
    return JSON.parse(f.slice('data: '.length)) as StreamEvent;
  });
}

const textOf = (events: StreamEvent[]): string => events.filter((e) => e.event === 'on_chat_model_stream').map((e) => e.chunk!.content).join('');

describe.each(databaseKinds())('planning routes (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;
  let bob: TestUser;
  let logLines: string[];
  const seen: string[] = [];

  const env = (): Record<string, string> => ({ DATA_DIR: dataDir });
  const logger = () => ({
    level: 'trace',
    stream: new Writable({
      write(chunk: Buffer, _enc, cb) {
        logLines.push(chunk.toString('utf8'));
        cb();
      },
    }),
  });

  async function newProject(user: TestUser, name: string): Promise<number> {
    const r = await app.inject({ method: 'POST', url: '/api/projects', headers: user.headers, payload: { name } });
    return r.json<{ id: number }>().id;
  }

  async function call(user: TestUser, projectId: number | string | undefined, method: 'GET' | 'POST', url: string, payload?: unknown) {
    const headers: Record<string, string> = { ...user.headers };
    if (projectId !== undefined) headers['project-id'] = String(projectId);
    const r = await app.inject({ method, url, headers, payload: payload as Record<string, unknown> | undefined });
    seen.push(r.body, JSON.stringify(r.headers));
    return r;
  }

  async function chat(user: TestUser, projectId: number, agentPath: string, message: string, threadId?: string) {
    const r = await call(user, projectId, 'POST', `/api/planning/${agentPath}`, { message, ...(threadId ? { thread_id: threadId } : {}) });
    expect(r.statusCode).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/event-stream/);
    return framesOf(r.body);
  }

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-planning-'));
    database = await openTestDatabase(kind);
    logLines = [];
    app = await buildTestApp(database, { env: env(), logger: logger() });
    alice = await signIn(app, 'alice');
    bob = await signIn(app, 'bob');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  test('a requirements turn streams `data:` lines with the model and thread, ends with one on_chat_model_end and closes', async () => {
    const projectId = await newProject(alice, 'framing');
    const events = await chat(alice, projectId, 'requirements-gatherer', 'I want n8n with postgres');
    expect(events.length).toBeGreaterThan(10);
    expect(events.filter((e) => e.event === 'on_chat_model_end')).toHaveLength(1);
    expect(events.at(-1)!.event).toBe('on_chat_model_end');
    const threadId = events[0]!.thread_id;
    expect(threadId).toMatch(/^[0-9a-f-]{36}$/);
    for (const e of events) expect(e).toMatchObject({ thread_id: threadId, model: 'offline-planner' });
    expect(textOf(events)).toContain('Where should it run');

    const requirements = await call(alice, projectId, 'GET', '/api/planning/requirements');
    expect(requirements.statusCode).toBe(200);
    expect(requirements.json()).toMatchObject({ ready_to_continue: false });
    expect(requirements.json<{ content: string }>().content).toMatch(/^Summary:/);

    const usage = await database.db.select().from(tokenUsage).where(eq(tokenUsage.projectId, projectId));
    expect(usage).toHaveLength(1);
    expect(usage[0]).toMatchObject({ agent: 'requirementsAgent', model: 'offline-planner', cost: expect.stringMatching(/^0\.\d{8}$/) });
    // The offline planner is free (FREE_MODELS): recorded, at no cost.
    expect(Number(usage[0]!.cost)).toBe(0);
    expect(usage[0]!.inputTokens).toBeGreaterThan(0);
    expect(usage[0]!.outputTokens).toBeGreaterThan(0);
  });

  test('a second message on the same thread continues it; the plans follow; the thread reads back', async () => {
    const projectId = await newProject(alice, 'journey');
    const first = await chat(alice, projectId, 'requirements-gatherer', 'n8n behind a reverse proxy with SSL at n8n.example.com');
    const threadId = first[0]!.thread_id;
    const second = await chat(alice, projectId, 'requirements-gatherer', 'my own VPS, about 30 workflows', threadId);
    expect(second[0]!.thread_id).toBe(threadId);
    expect(textOf(second)).toContain('The requirements are complete');
    expect((await call(alice, projectId, 'GET', '/api/planning/requirements')).json()).toMatchObject({ ready_to_continue: true });

    const thread = await call(alice, projectId, 'GET', '/api/planning/threads/requirements');
    expect(thread.json()).toMatchObject({ thread_id: threadId, model: 'offline-planner' });
    expect(thread.json<{ messages: Array<{ role: string }> }>().messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);

    expect((await call(alice, projectId, 'GET', '/api/planning/architecture-plan')).json()).toEqual({ plan: '' });
    const arch = await chat(alice, projectId, 'cloud-architect', 'Generate architecture plan');
    expect(arch.at(-1)!.event).toBe('on_chat_model_end');
    const plan = (await call(alice, projectId, 'GET', '/api/planning/architecture-plan')).json<{ plan: string }>().plan;
    expect(plan).toContain('```mermaid');
    expect(plan).toContain('n8nio/n8n:1.64.3');

    await chat(alice, projectId, 'implementation-planner', 'Generate implementation plan');
    const implAnswer = (await call(alice, projectId, 'GET', '/api/planning/implementation-plan')).json<{ plan: string; outdated: boolean }>();
    const impl = implAnswer.plan;
    expect(impl).toMatch(/## Step 1: /);
    expect(impl).toContain('compose up -d');
    expect(implAnswer.outdated).toBe(false);

    // The architecture changed after the implementation was planned: the plan says it is outdated until generated again.
    const updatedAt = async (): Promise<string> => (await call(alice, projectId, 'GET', `/api/projects/${projectId}`)).json<{ updated_at: string }>().updated_at;
    const before = await updatedAt();
    await chat(alice, projectId, 'cloud-architect', 'Please also add Redis');
    expect((await call(alice, projectId, 'GET', '/api/planning/implementation-plan')).json()).toMatchObject({ plan: impl, outdated: true });
    // …and the project's Last Updated moved with it.
    expect(Date.parse(await updatedAt())).toBeGreaterThan(Date.parse(before));
    await chat(alice, projectId, 'implementation-planner', 'Generate implementation plan');
    expect((await call(alice, projectId, 'GET', '/api/planning/implementation-plan')).json()).toMatchObject({ outdated: false });
    // A correction said to the implementation assistant reaches the architecture plan too, and the steps stay current.
    expect((await call(alice, projectId, 'GET', '/api/planning/architecture-plan')).json<{ plan: string }>().plan).toMatch(/^\s+redis:$/m);
    expect(textOf(await chat(alice, projectId, 'implementation-planner', 'Please remove Redis'))).toMatch(/^I changed the architecture and the steps:\n- removed redis/);
    expect((await call(alice, projectId, 'GET', '/api/planning/architecture-plan')).json<{ plan: string }>().plan).not.toMatch(/^\s+redis:$/m);
    const corrected = (await call(alice, projectId, 'GET', '/api/planning/implementation-plan')).json<{ plan: string; outdated: boolean }>();
    expect(corrected.outdated).toBe(false);
    expect(corrected.plan).not.toMatch(/^\s+redis:$/m);
    expect(corrected.plan).toContain('Left out: redis');
    const agents = (await database.db.select().from(tokenUsage).where(eq(tokenUsage.projectId, projectId))).map((u) => u.agent);
    expect(new Set(agents)).toEqual(new Set(['requirementsAgent', 'cloudArchitectAgent', 'implementationPlanningAgent']));
  });

  test('user secrets: declared by the agent, stored encrypted, never returned, logged or streamed', async () => {
    const projectId = await newProject(alice, 'secrets');
    await chat(alice, projectId, 'requirements-gatherer', 'A VPS with PostgreSQL, my own server, light load');
    const listed = await call(alice, projectId, 'GET', '/api/planning/requirements/user-secrets');
    const secrets = listed.json<{ secrets: Array<{ name: string; provided: boolean; secret_type: string }> }>().secrets;
    expect(secrets.find((s) => s.name === 'POSTGRES_PASSWORD')).toMatchObject({ provided: false, secret_type: 'password' });

    const canary = 'canary-7f3a9c1e-do-not-leak';
    const saved = await call(alice, projectId, 'POST', '/api/planning/requirements/user-secrets', { name: 'POSTGRES_PASSWORD', value: canary });
    expect(saved.statusCode).toBe(200);
    expect(saved.json<{ secrets_status: Array<{ name: string; provided: boolean }> }>().secrets_status.find((s) => s.name === 'POSTGRES_PASSWORD')).toMatchObject({ provided: true });

    const [row] = await database.db.select().from(planningSecrets).where(and(eq(planningSecrets.projectId, projectId), eq(planningSecrets.name, 'POSTGRES_PASSWORD')));
    expect(row!.ciphertext).toBeTruthy();
    expect(Buffer.from(row!.ciphertext!, 'base64').toString('latin1')).not.toContain(canary);
    expect(Buffer.from(row!.iv!, 'base64')).toHaveLength(12);
    expect(await app.services.planning.secretValues(projectId)).toMatchObject({ POSTGRES_PASSWORD: canary });
    expect(fs.statSync(path.join(dataDir, KEY_FILE_NAME)).mode & 0o777).toBe(0o600);

    // The agents keep working with the secret stored, and never see or say it.
    const more = await chat(alice, projectId, 'requirements-gatherer', 'add redis please');
    seen.push(JSON.stringify(more));
    await chat(alice, projectId, 'cloud-architect', 'Generate architecture plan');
    await call(alice, projectId, 'GET', '/api/planning/requirements/user-secrets');
    await call(alice, projectId, 'GET', '/api/planning/architecture-plan');
    await call(alice, projectId, 'GET', '/api/planning/threads/requirements');
    expect(logLines.length).toBeGreaterThan(0);
    for (const text of [...seen, ...logLines]) expect(text).not.toContain(canary);
    expect(JSON.stringify(await database.db.select().from(tokenUsage))).not.toContain(canary);
  });

  test('secrets: GITHUB_TOKEN is not editable, undeclared names 404, blank values 400', async () => {
    const projectId = await newProject(alice, 'secret rules');
    await chat(alice, projectId, 'requirements-gatherer', 'mysql on my vps');
    const post = (payload: unknown) => call(alice, projectId, 'POST', '/api/planning/requirements/user-secrets', payload);
    expect((await post({ name: 'GITHUB_TOKEN', value: 'x' })).statusCode).toBe(400);
    expect((await post({ name: 'NOT_DECLARED', value: 'x' })).statusCode).toBe(404);
    const blank = await post({ name: 'MYSQL_PASSWORD', value: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.json<{ detail: string }>().detail).toMatch(/value/);
    expect((await post({ name: 'bad name', value: 'x' })).statusCode).toBe(400);
  });

  test('an SSH private key secret: its own type, checked when saved, never returned', async () => {
    const projectId = await newProject(alice, 'ssh key');
    await chat(alice, projectId, 'requirements-gatherer', 'PostgreSQL on my existing server deploy@203.0.113.7 port 2222');
    const secrets = (await call(alice, projectId, 'GET', '/api/planning/requirements/user-secrets')).json<{ secrets: Array<{ name: string; secret_type: string }> }>().secrets;
    expect(secrets.find((s) => s.name === 'SSH_PRIVATE_KEY')).toMatchObject({ secret_type: 'ssh_private_key' });
    expect(secrets.map((s) => s.name)).not.toContain('SERVER_HOST');

    const post = (value: string) => call(alice, projectId, 'POST', '/api/planning/requirements/user-secrets', { name: 'SSH_PRIVATE_KEY', value });
    const notAKey = await post('hunter2');
    expect(notAKey.statusCode).toBe(400);
    expect(notAKey.json<{ detail: string }>().detail).toMatch(/^SSH_PRIVATE_KEY is not a private SSH key/);
    const broken = await post('-----BEGIN OPENSSH PRIVATE KEY-----\nbm90IGEga2V5\n-----END OPENSSH PRIVATE KEY-----');
    expect(broken.statusCode).toBe(400);
    expect(broken.json<{ detail: string }>().detail).not.toContain('bm90IGEga2V5');

    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-key-test-'));
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', path.join(dir, 'k')]);
    const key = fs.readFileSync(path.join(dir, 'k'), 'utf8');
    fs.rmSync(dir, { recursive: true, force: true });
    const saved = await post(key.replace(/\n/g, '\r\n').trimEnd());
    expect(saved.statusCode).toBe(200);
    expect(JSON.stringify(saved.json())).not.toContain('PRIVATE KEY');
    // Stored as ssh reads it: LF line endings and a final newline.
    expect((await app.services.planning.secretValues(projectId)).SSH_PRIVATE_KEY).toBe(key);
    expect(JSON.stringify((await call(alice, projectId, 'GET', '/api/planning/requirements/user-secrets')).json())).not.toContain('PRIVATE KEY');
  });

  test('Project-Id: missing or malformed answers 400, another tenant\'s 404 on every planning call', async () => {
    const bobs = await newProject(bob, 'bob private');
    const routes: Array<['GET' | 'POST', string, unknown?]> = [
      ['POST', '/api/planning/requirements-gatherer', { message: 'hi' }],
      ['POST', '/api/planning/cloud-architect', { message: 'hi' }],
      ['POST', '/api/planning/implementation-planner', { message: 'hi' }],
      ['POST', '/api/planning/requirements-gatherer/kill'],
      ['GET', '/api/planning/requirements'],
      ['GET', '/api/planning/analysis'],
      ['GET', '/api/planning/requirements/user-secrets'],
      ['POST', '/api/planning/requirements/user-secrets', { name: 'A', value: 'b' }],
      ['GET', '/api/planning/architecture-plan'],
      ['GET', '/api/planning/implementation-plan'],
      ['GET', '/api/planning/threads/requirements'],
    ];
    for (const [method, url, payload] of routes) {
      expect([url, (await call(alice, bobs, method, url, payload)).statusCode]).toEqual([url, 404]);
      expect([url, (await call(alice, undefined, method, url, payload)).statusCode]).toEqual([url, 400]);
      expect([url, (await call(alice, 'abc', method, url, payload)).statusCode]).toEqual([url, 400]);
    }
    const mine = await newProject(alice, 'mine');
    expect((await call(alice, mine, 'GET', '/api/planning/analysis')).json()).toEqual({ message: 'No analysis found for this project' });
  });

  test('a thread of another project, or of another agent, answers 404; bad bodies answer 400', async () => {
    const a = await newProject(alice, 'a');
    const b = await newProject(alice, 'b');
    const threadId = (await chat(alice, a, 'requirements-gatherer', 'postgres'))[0]!.thread_id;
    expect((await call(alice, b, 'POST', '/api/planning/requirements-gatherer', { message: 'x', thread_id: threadId })).statusCode).toBe(404);
    expect((await call(alice, a, 'POST', '/api/planning/cloud-architect', { message: 'x', thread_id: threadId })).statusCode).toBe(404);
    expect((await call(alice, a, 'POST', '/api/planning/requirements-gatherer', {})).statusCode).toBe(400);
    expect((await call(alice, a, 'POST', '/api/planning/requirements-gatherer', { message: 'x'.repeat(20_001) })).statusCode).toBe(400);
    expect((await call(alice, a, 'GET', '/api/planning/threads/nobody')).statusCode).toBe(400);
  });

  test('kill stops the running generation at once and keeps what was said', async () => {
    const slow = await buildTestApp(database, { env: { ...env(), OFFLINE_TOKEN_DELAY_MS: '25' } });
    try {
      const projectId = (await slow.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'kill' } })).json<{ id: number }>().id;
      const headers = { ...alice.headers, 'project-id': String(projectId) };
      expect((await slow.inject({ method: 'POST', url: '/api/planning/requirements-gatherer/kill', headers })).json()).toEqual({ status: 'idle' });
      const message = 'n8n with postgres and redis on aws';
      // The whole reply, from the same (deterministic) planner in a project of its own.
      const otherProject = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'whole' } })).json<{ id: number }>().id;
      const whole = textOf(await chat(alice, otherProject, 'requirements-gatherer', message));

      // Over a real socket, so the kill comes once the first words have arrived, however loaded the machine.
      const base = await slow.listen({ port: 0, host: '127.0.0.1' });
      const streaming = await fetch(`${base}/api/planning/requirements-gatherer`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ message }),
      });
      const reader = streaming.body!.getReader();
      let body = '';
      while (!body.includes('on_chat_model_stream')) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the reply ended before its first words: ${body}`);
        body += new TextDecoder().decode(value);
      }
      const killed = await slow.inject({ method: 'POST', url: '/api/planning/requirements-gatherer/kill', headers });
      expect(killed.json()).toEqual({ status: 'stopped' });
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) body += new TextDecoder().decode(chunk.value);
      const events = framesOf(body);
      expect(events.at(-1)!.event).toBe('on_chat_model_end');
      const said = textOf(events);
      expect(said.length).toBeGreaterThan(0);
      // It stopped: what was said is the start of the reply, not all of it.
      expect(whole.startsWith(said)).toBe(true);
      expect(said.length).toBeLessThan(whole.length);
      const thread = (await slow.inject({ method: 'GET', url: '/api/planning/threads/requirements', headers })).json<{ messages: Array<{ role: string; content: string }> }>();
      expect(thread.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(thread.messages[1]!.content).toBe(said);
      // The conversation goes on after a kill.
      const next = await slow.inject({ method: 'POST', url: '/api/planning/requirements-gatherer', headers, payload: { message: 'hello again' } });
      expect(framesOf(next.body).at(-1)!.event).toBe('on_chat_model_end');
    } finally {
      await slow.close();
    }
  });

  test('a thread continues after the app is rebuilt on the same database', async () => {
    const projectId = await newProject(alice, 'restart');
    const threadId = (await chat(alice, projectId, 'requirements-gatherer', 'Prometheus with Grafana on Hetzner'))[0]!.thread_id;
    await app.close();
    app = await buildTestApp(database, { env: env(), logger: logger() });
    const events = await chat(alice, projectId, 'requirements-gatherer', 'nbg1, a team of 10, no domain', threadId);
    expect(events[0]!.thread_id).toBe(threadId);
    expect(textOf(events)).toContain('The requirements are complete');
    const thread = await call(alice, projectId, 'GET', '/api/planning/threads/requirements');
    expect(thread.json<{ messages: unknown[] }>().messages).toHaveLength(4);
  });
});
