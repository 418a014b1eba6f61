import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { and, eq } from 'drizzle-orm';
import WebSocket from 'ws';
import { tokenUsage } from '../../../src/server/db/schema';
import type { ApprovalRequestMessage } from '../../../src/shared/events';
import { buildTestApp, PRICED_MODEL_ENV, signIn, spendAllCredits, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const ORIGIN = 'http://app.test';
const CANARY = 'canary-Hx7p2Lq9-helper';

interface Frame {
  event: string;
  data: { thread_id?: string; event?: string; detail?: string; chunk?: { content: string } };
}

/** Parses the helper's named SSE frames (`event:` line, then `data:`). */
const framesOf = (body: string): Frame[] =>
  body
    .split('\n\n')
    .filter((f) => f.trim())
    .map((f) => {
      const event = /^event: (.*)$/m.exec(f)?.[1] ?? 'data';
      const data = /^data: (.*)$/m.exec(f)?.[1] ?? '{}';
      return { event, data: JSON.parse(data) };
    });
const textOf = (frames: Frame[]): string => frames.map((f) => f.data.chunk?.content ?? '').join('');

/** An approval socket client that collects approval requests. */
class ApprovalClient {
  requests: ApprovalRequestMessage[] = [];
  pongs = 0;
  closed: Promise<number>;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const m = JSON.parse(raw.toString()) as ApprovalRequestMessage | { type: 'pong' };
      if (m.type === 'pong') this.pongs++;
      else this.requests.push(m);
    });
    this.closed = new Promise((resolve) => ws.on('close', (code) => resolve(code)));
  }
  /** Resolves once a pong has arrived. */
  async untilPong(): Promise<void> {
    while (this.pongs === 0) await new Promise((r) => setTimeout(r, 10));
  }
  /** The next request after those already seen. */
  next(timeoutMs = 10_000): Promise<ApprovalRequestMessage> {
    return this.nth(this.requests.length, timeoutMs);
  }
  async nth(index: number, timeoutMs = 10_000): Promise<ApprovalRequestMessage> {
    const until = Date.now() + timeoutMs;
    while (this.requests.length <= index) {
      if (Date.now() > until) throw new Error('no approval request arrived');
      await new Promise((r) => setTimeout(r, 10));
    }
    return this.requests[index]!;
  }
}

describe('DevOps Helper', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let base: string;
  let alice: TestUser;
  let mallory: TestUser;
  let projectId: number;
  let socket: ApprovalClient;

  const headersOf = (user: TestUser, project = projectId): Record<string, string> => ({ ...user.headers, 'project-id': String(project) });
  const chat = (message: string, user = alice, project = projectId): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'POST', url: '/api/devops-helper/chat', headers: headersOf(user, project), payload: { message } });
  const decide = (approval_id: string, approved: boolean, user = alice, project = projectId): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'POST', url: '/api/devops-helper/approval', headers: headersOf(user, project), payload: { approval_id, approved } });
  /** Runs one more approved command to its end: a command a refused answer had started would have run before it. */
  const runAnotherCommand = async (): Promise<void> => {
    const reply = chat('run `true`');
    await decide((await socket.next()).id, true);
    expect((await reply).statusCode).toBe(200);
  };
  const workspaceFile = (name: string): string => path.join(dataDir, 'sandboxes', String(projectId), 'workspace', name);

  const open = (options: { user?: TestUser | null; origin?: string | null; project?: number } = {}): Promise<ApprovalClient | number> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      const user = options.user === undefined ? alice : options.user;
      if (user) headers.cookie = user.cookie;
      const origin = options.origin === undefined ? ORIGIN : options.origin;
      const ws = new WebSocket(`${base}/api/devops-helper/ws/approval/${options.project ?? projectId}`, { headers, ...(origin ? { origin } : {}) });
      const client = new ApprovalClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.once('error', reject);
    });

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-helper-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, PUBLIC_URL: ORIGIN, LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    base = (await app.listen({ host: '127.0.0.1', port: 0 })).replace(/^http/, 'ws');
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Helper' } })).json().id;
    await app.services.planning.storeAnalysisSecrets(projectId, { environment: [{ name: 'CANARY_TOKEN', description: 'token', value: CANARY }] });
    const init = await app.inject({ method: 'POST', url: `/api/sandbox/initialize/${projectId}`, headers: alice.headers, payload: {} });
    expect(init.json().status).toBe('success');
    const client = await open();
    if (typeof client === 'number') throw new Error(`socket refused with ${client}`);
    socket = client;
  });
  afterAll(async () => {
    socket?.ws.close();
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses the socket handshake without a session (401), from a wrong origin (403), for another tenant (404)', async () => {
    expect(await open({ user: null })).toBe(401);
    for (const origin of ['http://evil.test', 'https://app.test', 'http://app.test.evil.test', null]) {
      expect({ origin, status: await open({ origin }) }).toEqual({ origin, status: 403 });
    }
    expect(await open({ user: mallory })).toBe(404);
  });

  it('answers a ping with a pong and closes on a frame that is not one', async () => {
    socket.ws.send(JSON.stringify({ type: 'ping' }));
    await socket.untilPong();
    const other = (await open()) as ApprovalClient;
    other.ws.send(JSON.stringify({ type: 'ping', extra: 1 }));
    expect(await other.closed).toBe(4400);
  });

  it('runs an approved command once, streams its output into the chat and meters the turn', async () => {
    const reply = chat('please run `echo hello-helper > approved.txt; cat approved.txt`');
    const request = await socket.next();
    expect(request).toEqual({ type: 'approval_request', id: expect.any(String), command: 'echo hello-helper > approved.txt; cat approved.txt', runs_on: { kind: 'sandbox' } });
    expect(fs.existsSync(workspaceFile('approved.txt'))).toBe(false);
    const decision = await decide(request.id, true);
    expect(decision.json()).toEqual({ approval_id: request.id, status: 'approved' });
    const response = await reply;
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/event-stream/);
    const frames = framesOf(response.body);
    expect(frames[0]).toEqual({ event: 'id', data: { thread_id: expect.any(String) } });
    expect(frames.at(-1)).toEqual({ event: 'message', data: expect.objectContaining({ event: 'on_chat_model_end' }) });
    expect(textOf(frames)).toContain('hello-helper');
    expect(textOf(frames)).toContain('exited with code 0');
    expect(fs.readFileSync(workspaceFile('approved.txt'), 'utf8')).toBe('hello-helper\n');

    // Replaying the same approval id is refused and runs nothing again.
    fs.rmSync(workspaceFile('approved.txt'));
    expect((await decide(request.id, true)).statusCode).toBe(409);
    await runAnotherCommand();
    expect(fs.existsSync(workspaceFile('approved.txt'))).toBe(false);

    const usage = await database.db.select().from(tokenUsage).where(and(eq(tokenUsage.projectId, projectId), eq(tokenUsage.agent, 'devopsHelperAgent')));
    expect(usage.length).toBeGreaterThan(0);
  });

  it('never runs a denied command', async () => {
    const reply = chat('run `touch denied.txt`');
    const request = await socket.next();
    expect((await decide(request.id, false)).json()).toEqual({ approval_id: request.id, status: 'denied' });
    const frames = framesOf((await reply).body);
    expect(textOf(frames)).toContain('The command was denied; it did not run.');
    expect(fs.existsSync(workspaceFile('denied.txt'))).toBe(false);
    expect((await decide(request.id, true)).statusCode).toBe(409);
    await runAnotherCommand();
    expect(fs.existsSync(workspaceFile('denied.txt'))).toBe(false);
  });

  it("refuses another tenant's decision (404) and an unknown id (404); the request still waits for its owner", async () => {
    const malloryProject = (await app.inject({ method: 'POST', url: '/api/projects', headers: mallory.headers, payload: { name: 'Other' } })).json().id as number;
    const otherAliceProject = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Second' } })).json().id as number;
    const reply = chat('run `touch tenant.txt`');
    const request = await socket.next();
    expect((await decide(request.id, true, mallory, malloryProject)).statusCode).toBe(404);
    expect((await decide(request.id, true, mallory, projectId)).statusCode).toBe(404);
    expect((await decide(request.id, true, alice, otherAliceProject)).statusCode).toBe(404);
    expect((await decide('no-such-approval', true)).statusCode).toBe(404);
    expect(fs.existsSync(workspaceFile('tenant.txt'))).toBe(false);
    expect((await decide(request.id, false)).statusCode).toBe(200);
    await reply;
    expect(fs.existsSync(workspaceFile('tenant.txt'))).toBe(false);
  });

  it('flags a dangerous command in its approval request', async () => {
    const reply = chat('run `rm -rf /`');
    const request = await socket.next();
    expect(request.dangerous_reason).toEqual(expect.any(String));
    await decide(request.id, false);
    await reply;
  });

  it("redacts the project's secrets from the command output in the chat and from what the model reads", async () => {
    const reply = chat('run `echo "token=$CANARY_TOKEN"; echo "$CANARY_TOKEN" | base64`');
    const request = await socket.next();
    await decide(request.id, true);
    const { body } = await reply;
    expect(textOf(framesOf(body))).toContain('token=[REDACTED]');
    expect(body).not.toContain(CANARY);
    expect(body).not.toContain(Buffer.from(CANARY).toString('base64').slice(0, 20));
  });

  it('kill stops a turn waiting for approval: the request is cancelled and never runs', async () => {
    const reply = chat('run `touch killed.txt`');
    const request = await socket.next();
    const kill = await app.inject({ method: 'POST', url: '/api/devops-helper/kill', headers: headersOf(alice) });
    expect(kill.json()).toEqual({ status: 'stopped' });
    const response = await reply;
    expect(framesOf(response.body).some((f) => f.event === 'error')).toBe(false);
    expect((await decide(request.id, true)).statusCode).toBe(404);
    expect((await app.inject({ method: 'POST', url: '/api/devops-helper/kill', headers: headersOf(alice) })).json()).toEqual({ status: 'idle' });

    // The conversation goes on: the stopped call is answered as not run, and the next command works.
    const next = chat('run `echo after-kill`');
    await decide((await socket.next()).id, true);
    expect(textOf(framesOf((await next).body))).toContain('after-kill');
    // The late approval ran nothing, by the time a later command has run.
    expect(fs.existsSync(workspaceFile('killed.txt'))).toBe(false);
  });

  it('announces a waiting request again to a socket that connects later', async () => {
    const reply = chat('run `true`');
    const request = await socket.next();
    const late = (await open()) as ApprovalClient;
    expect((await late.nth(0)).id).toBe(request.id);
    late.ws.close();
    await decide(request.id, false);
    await reply;
  });

  it('scopes the chat and the kill to the caller: 404 for another tenant, 400 without Project-Id', async () => {
    expect((await chat('hello', mallory)).statusCode).toBe(404);
    expect((await app.inject({ method: 'POST', url: '/api/devops-helper/kill', headers: headersOf(mallory) })).statusCode).toBe(404);
    expect((await app.inject({ method: 'POST', url: '/api/devops-helper/chat', headers: alice.headers, payload: { message: 'hi' } })).statusCode).toBe(400);
  });

  it('answers without a command when none is asked for', async () => {
    const frames = framesOf((await chat('hello')).body);
    expect(textOf(frames)).toContain("I'm the DevOps Helper");
    expect(frames.at(-1)?.data.event).toBe('on_chat_model_end');
  });

  it("works on the project's server: asked in words, it proposes a command over the SSH configuration the steps wrote, and the approval says where it runs", async () => {
    // What the first execution step writes (offline/remoteShell.ts connectCommands), and the stack's compose file.
    fs.mkdirSync(workspaceFile('ssh-keys'), { recursive: true });
    fs.mkdirSync(workspaceFile('stack'), { recursive: true });
    fs.writeFileSync(workspaceFile('ssh-keys/config'), 'Host da-server\n  HostName 203.0.113.7\n  Port 2222\n  User deploy\n  IdentityFile /x/ssh-keys/id\n');
    fs.writeFileSync(workspaceFile('stack/docker-compose.yml'), 'services:\n  redis:\n    image: redis:7\n  proxy:\n    image: nginx:1.27\n');
    try {
      const cases: Array<[string, RegExp]> = [
        ['show me the running containers on my server and their disk usage', /docker ps -a --size[\s\S]*docker system df/],
        ['show me the logs of redis', /compose logs --no-color --timestamps --tail 100 redis/],
        ['please restart the proxy service', /compose restart proxy/],
        ['update the images', /compose pull\ncompose up -d/],
        ['when does the certificate expire?', /openssl x509 -noout -subject -issuer -enddate/],
        ['how much disk and memory is left?', /df -h[\s\S]*free -m/],
      ];
      for (const [question, command] of cases) {
        const reply = chat(question);
        const request = await socket.next();
        expect(request.command).toMatch(/^ssh -F ssh-keys\/config da-server 'bash -s' <<'REMOTE'\n/);
        expect(request.command).toMatch(command);
        expect(request.runs_on).toEqual({ kind: 'server', name: 'da-server', address: 'deploy@203.0.113.7:2222' });
        // Denied here: the address is a documentation one (the deploy journey runs them on a real server).
        await decide(request.id, false);
        expect(textOf(framesOf((await reply).body))).toContain('on da-server (deploy@203.0.113.7), over SSH from the sandbox');
      }
      // What changed since the deploy: compared from the sandbox, each ssh call to the server.
      const reply = chat('what changed since the deploy?');
      const request = await socket.next();
      expect(request.command).toContain('diff -u --label "deployed: $f"');
      expect(request.runs_on).toMatchObject({ kind: 'server', name: 'da-server' });
      await decide(request.id, false);
      await reply;
      // A question about the sandbox stays there.
      const local = chat('how much disk space is left in the sandbox?');
      const inSandbox = await socket.next();
      expect(inSandbox.command).toMatch(/^df -h/);
      expect(inSandbox.runs_on).toEqual({ kind: 'sandbox' });
      await decide(inSandbox.id, false);
      await local;
    } finally {
      fs.rmSync(workspaceFile('ssh-keys'), { recursive: true, force: true });
      fs.rmSync(workspaceFile('stack'), { recursive: true, force: true });
    }
  });

  it('tells a project without a server that a server question needs one', async () => {
    const frames = framesOf((await chat('list the containers on my server')).body);
    expect(textOf(frames)).toContain('this project has none configured yet');
  });

  it('reads the conversation back for a reloaded chat: messages, command notes, secrets redacted; scoped to the caller', async () => {
    const typed = `please run \`echo typed ${CANARY} > /dev/null; echo "note=$CANARY_TOKEN"\``;
    const reply = chat(typed);
    await decide((await socket.next()).id, true);
    const live = textOf(framesOf((await reply).body));
    const response = await app.inject({ method: 'GET', url: '/api/devops-helper/thread', headers: headersOf(alice) });
    expect(response.statusCode).toBe(200);
    const thread = response.json<{ thread_id: string; model: string; messages: Array<{ role: string; content: string }> }>();
    expect(thread.thread_id).toEqual(expect.any(String));
    expect(response.body).not.toContain(CANARY);
    // The last turn as it streamed: the person's message (its secret redacted), then one reply with the command's note.
    expect(thread.messages.at(-2)).toEqual({ role: 'user', content: typed.replace(CANARY, '[REDACTED]') });
    expect(thread.messages.at(-1)).toEqual({ role: 'assistant', content: live });
    expect(live).toContain('note=[REDACTED]');
    // Earlier turns are there too: the denied command's note.
    expect(thread.messages.some((m) => m.role === 'assistant' && m.content.includes('The command was denied; it did not run.'))).toBe(true);

    expect((await app.inject({ method: 'GET', url: '/api/devops-helper/thread', headers: headersOf(mallory) })).statusCode).toBe(404);
    const fresh = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Quiet' } })).json().id as number;
    expect((await app.inject({ method: 'GET', url: '/api/devops-helper/thread', headers: headersOf(alice, fresh) })).json()).toEqual({
      thread_id: null,
      model: expect.any(String),
      messages: [],
    });
  });

  it("refuses a priced model's turn with 402 once the balance is spent; the offline planner's is free and runs", async () => {
    const priced = await buildTestApp(database, { env: { DATA_DIR: dataDir, PUBLIC_URL: ORIGIN, LOGIN_RATE_LIMIT_PER_MINUTE: '1000', ...PRICED_MODEL_ENV } });
    try {
      const broke = await signIn(priced, 'broke');
      const project = (await priced.inject({ method: 'POST', url: '/api/projects', headers: broke.headers, payload: { name: 'no credit' } })).json();
      await spendAllCredits(priced, broke, project.id, 'devopsHelperAgent');
      const response = await priced.inject({ method: 'POST', url: '/api/devops-helper/chat', headers: headersOf(broke, project.id), payload: { message: 'what can you do?' } });
      expect(response.statusCode).toBe(402);
      expect(response.headers['content-type']).toMatch(/json/);
      const free = await chat('what can you do?', broke, project.id);
      expect(free.statusCode).toBe(200);
    } finally {
      await priced.close();
    }
  });
});
