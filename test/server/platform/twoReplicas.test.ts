import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { startNode, stopChild, waitForUrl } from '../../bench/processes';
import { createPostgresTestDatabase } from '../helpers/testDatabase';
import { freePort } from '../helpers/freePort';
import { startRedis } from '../helpers/redisServer';

/**
 * Two replicas of the real server (two processes) on one PostgreSQL database and one Redis, sharing
 * DATA_DIR as replicas share a volume: what one does, the other sees — through the event bus.
 */
const ORIGIN = 'http://app.test';
const START_MS = 180_000;

interface Replica {
  name: string;
  base: string;
  child: ChildProcess;
}

interface Session {
  cookie: string;
  headers: Record<string, string>;
}

/** A browser of one person: its session is valid on both replicas (one database). */
async function signIn(replica: Replica, login: string): Promise<Session> {
  const response = await fetch(`${replica.base}/api/github/local-login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: ORIGIN },
    body: JSON.stringify({ login }),
  });
  if (response.status !== 200) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0]!;
  const { installation_id } = (await response.json()) as { installation_id: number };
  return { cookie, headers: { cookie, 'installation-id': String(installation_id), origin: ORIGIN } };
}

const call = (replica: Replica, session: Session, method: string, url: string, options: { body?: unknown; headers?: Record<string, string> } = {}): Promise<Response> =>
  fetch(`${replica.base}${url}`, {
    method,
    headers: { ...session.headers, ...(options.body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });

/** Opens a WebSocket with the session's cookie and the app's Origin; resolves once it is open. */
function openSocket(replica: Replica, session: Session, url: string): Promise<{ ws: WebSocket; messages: string[]; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${replica.base.replace(/^http/, 'ws')}${url}`, { headers: { cookie: session.cookie }, origin: ORIGIN });
    const messages: string[] = [];
    ws.on('message', (raw) => messages.push(raw.toString()));
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    ws.once('open', () => resolve({ ws, messages, closed }));
    ws.once('unexpected-response', (_req, res) => reject(new Error(`${url} refused with ${res.statusCode}`)));
    ws.once('error', reject);
  });
}

/** Opens an event stream; `ended` resolves when the server closes it. */
function openStream(replica: Replica, session: Session, url: string, projectId: number): Promise<{ ended: Promise<void>; request: http.ClientRequest }> {
  return new Promise((resolve, reject) => {
    const request = http.get(`${replica.base}${url}`, { headers: { ...session.headers, 'project-id': String(projectId) } }, (response) => {
      if (response.statusCode !== 200) return reject(new Error(`${url} answered ${response.statusCode}`));
      response.resume();
      const ended = new Promise<void>((r) => response.once('close', () => r()));
      resolve({ ended, request });
    });
    request.once('error', (err) => (err.message === 'socket hang up' ? undefined : reject(err)));
  });
}

async function until<T>(what: string, read: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `promise`, or a failure naming `what` after `ms`. */
async function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const describeWithPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;
if (!process.env.TEST_DATABASE_URL) {
  console.warn('two replicas test skipped: it runs on PostgreSQL and TEST_DATABASE_URL is not set (CI sets it, see .ci/run)');
}

describeWithPostgres('two replicas on one PostgreSQL and one Redis (REDIS_URL)', () => {
  let dir: string;
  let dataDir: string;
  let redis: ChildProcess | undefined;
  let dropDatabase: (() => Promise<void>) | undefined;
  const replicas: Replica[] = [];
  let a: Replica;
  let b: Replica;
  let alice: Session;
  let projectId: number;

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-replicas-'));
    const started = await startRedis(dir);
    redis = started.child;
    const database = await createPostgresTestDatabase();
    dropDatabase = database.drop;
    // Its own temporary directory, as the other sandbox tests have it (the sandbox's user must reach it).
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-replicas-data-'));
    const env = {
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      REDIS_URL: started.url,
      DATA_DIR: dataDir,
      STATIC_DIR: path.join(dir, 'no-client'),
      PUBLIC_URL: ORIGIN,
      LOG_LEVEL: 'warn',
      MODEL_PROVIDER: 'offline',
      LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
      // Replicas share their secrets' key as they share the volume.
      ENCRYPTION_KEY: 'a'.repeat(64),
    };
    for (const name of ['a', 'b']) {
      const port = await freePort();
      const child = startNode('src/server/server.ts', { cwd: process.cwd(), env: { ...env, PORT: String(port) }, logFile: path.join(dir, `${name}.log`) });
      replicas.push({ name, base: `http://127.0.0.1:${port}`, child });
    }
    [a, b] = replicas as [Replica, Replica];
    try {
      await Promise.all(replicas.map((r) => waitForUrl(`${r.base}/api/health`, START_MS - 30_000, r.child)));
    } catch (err) {
      for (const r of replicas) process.stderr.write(`--- replica ${r.name} log ---\n${fs.readFileSync(path.join(dir, `${r.name}.log`), 'utf8').slice(-3000)}\n`);
      throw err;
    }
    alice = await signIn(a, 'alice');
    projectId = ((await (await call(a, alice, 'POST', '/api/projects', { body: { name: 'Replicated' } })).json()) as { id: number }).id;
  }, START_MS);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => stopChild(r.child)));
    if (redis?.pid !== undefined && redis.exitCode === null) process.kill(-redis.pid, 'SIGKILL');
    await dropDatabase?.();
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, 60_000);

  it('a write through one replica is seen by a poll through the other within 100 ms', async () => {
    const status = (replica: Replica, etag?: string): Promise<Response> =>
      call(replica, alice, 'GET', `/api/sandboxes/${projectId}/status`, { headers: etag ? { 'if-none-match': etag } : {} });
    // B holds the status in memory: its ETag answers 304 with no query.
    const first = await status(b);
    expect(first.status).toBe(200);
    expect(((await first.json()) as { container_status: string }).container_status).toBe('NotRunning');
    const etag = first.headers.get('etag')!;
    expect((await status(b, etag)).status).toBe(304);
    // The tag names the state, not the replica: a browser sent to A next still gets 304.
    expect((await status(a, etag)).status).toBe(304);

    const init = await call(a, alice, 'POST', `/api/sandbox/initialize/${projectId}`, { body: {} });
    expect(await init.json()).toEqual(expect.objectContaining({ status: 'success' }));
    // The local driver's status snapshot has no age limit (maxAgeMs is for drivers whose status changes
    // outside): only A's event drops B's copy, so B seeing the change at all is the property. How soon is
    // a timing, not asserted here.
    await until('B to see the running sandbox', async () => {
      const poll = await status(b, etag);
      if (poll.status === 304) return undefined;
      expect(((await poll.json()) as { container_status: string }).container_status).toBe('Running');
      return true;
    });
  }, 120_000);

  it('an approval made on one replica runs the command held by the other', async () => {
    const approvals = await openSocket(a, alice, `/api/devops-helper/ws/approval/${projectId}`);
    // The turn runs on B and waits there for the person's answer.
    const reply = call(b, alice, 'POST', '/api/devops-helper/chat', {
      body: { message: 'please run `echo from-replica-b > replicas.txt; cat replicas.txt`' },
      headers: { 'project-id': String(projectId) },
    });
    const request = await until('the approval request on A', async () => {
      const found = approvals.messages.map((m) => JSON.parse(m) as { type: string; id: string; command: string }).find((m) => m.type === 'approval_request');
      return found;
    });
    expect(request.command).toBe('echo from-replica-b > replicas.txt; cat replicas.txt');
    const decision = await call(a, alice, 'POST', '/api/devops-helper/approval', {
      body: { approval_id: request.id, approved: true },
      headers: { 'project-id': String(projectId) },
    });
    expect(await decision.json()).toEqual({ approval_id: request.id, status: 'approved' });
    const body = await (await reply).text();
    expect(body).toContain('from-replica-b');
    expect(body).toContain('exited with code 0');
    // Decided once, everywhere: a replay on the replica that ran it is refused.
    const replay = await call(b, alice, 'POST', '/api/devops-helper/approval', {
      body: { approval_id: request.id, approved: true },
      headers: { 'project-id': String(projectId) },
    });
    expect(replay.status).toBe(409);
    approvals.ws.close();
  }, 120_000);

  it('a logout on one replica closes the sockets and event streams of that session on both', async () => {
    const leaving = await signIn(b, 'alice');
    const terminalOnB = await openSocket(b, leaving, `/api/sandboxes/${projectId}/ws`);
    const approvalsOnA = await openSocket(a, leaving, `/api/devops-helper/ws/approval/${projectId}`);
    const streamOnB = await openStream(b, leaving, '/api/terminal/commands', projectId);
    // Another session of the same person is left alone.
    const staying = await openSocket(b, alice, `/api/devops-helper/ws/approval/${projectId}`);

    const logout = await call(a, leaving, 'POST', '/api/github/logout');
    expect(logout.status).toBe(204);
    await within('the terminal socket on B to close', 20_000, terminalOnB.closed);
    await within('the approval socket on A to close', 20_000, approvalsOnA.closed);
    await within('the event stream on B to end', 20_000, streamOnB.ended);
    expect(staying.ws.readyState).toBe(WebSocket.OPEN);
    expect((await call(b, leaving, 'GET', '/api/github/user')).status).toBe(401);
    staying.ws.close();
  }, 120_000);
});
