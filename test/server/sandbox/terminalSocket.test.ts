import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const ORIGIN = 'http://app.test';
const CANARY = 'canary-Tm4x9Qw2-terminal';
const DEV_ORIGIN = 'http://127.0.0.1:3000';

/** A terminal client: collects output frames and remembers when the last one came. */
class TerminalClient {
  output = '';
  bytes = 0;
  lastDataAt = 0;
  closed: Promise<{ code: number; reason: string }>;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as { type: string; data: string };
      expect(frame.type).toBe('output');
      this.output += frame.data;
      if (this.output.length > 200_000) this.output = this.output.slice(-100_000);
      this.bytes += frame.data.length;
      this.lastDataAt = Date.now();
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }
  send(message: object): void {
    this.ws.send(JSON.stringify(message));
  }
  input(text: string): void {
    this.send({ type: 'input', input: text });
  }
  async waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (!pattern.test(this.output)) {
      if (Date.now() > until) throw new Error(`timed out waiting for ${pattern}; saw ${JSON.stringify(this.output.slice(-300))}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }
  /** Resolves once no output has arrived for `quietMs`. */
  async quiet(quietMs = 300, timeoutMs = 15_000): Promise<void> {
    const until = Date.now() + timeoutMs;
    while (Date.now() - this.lastDataAt < quietMs) {
      if (Date.now() > until) throw new Error('output never stopped');
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  close(): void {
    this.ws.close();
  }
}

describe('terminal socket /api/sandboxes/{projectId}/ws', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let base: string;
  let alice: TestUser;
  let mallory: TestUser;
  let projectId: number;
  let stoppedProjectId: number;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-terminal-'));
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, {
      env: { DATA_DIR: dataDir, PUBLIC_URL: ORIGIN, ALLOWED_ORIGINS: DEV_ORIGIN, TERMINAL_RECONNECT_GRACE_SECONDS: '1', LOGIN_RATE_LIMIT_PER_MINUTE: '1000' },
    });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    base = address.replace(/^http/, 'ws');
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
    const create = async (name: string) =>
      (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name } })).json().id as number;
    projectId = await create('Terminal');
    stoppedProjectId = await create('Never started');
    await app.services.planning.storeAnalysisSecrets(projectId, {
      environment: [{ name: 'CANARY_TOKEN', description: 'A token the shell may use', value: CANARY }],
    });
    const init = await app.inject({ method: 'POST', url: `/api/sandbox/initialize/${projectId}`, headers: alice.headers, payload: {} });
    expect(init.json().status).toBe('success');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** Opens a socket; answers the client, or the HTTP status the handshake was refused with. */
  const open = (options: { user?: TestUser | null; origin?: string | null; project?: number } = {}): Promise<TerminalClient | number> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      const user = options.user === undefined ? alice : options.user;
      if (user) headers.cookie = user.cookie;
      const origin = options.origin === undefined ? ORIGIN : options.origin;
      const ws = new WebSocket(`${base}/api/sandboxes/${options.project ?? projectId}/ws`, { headers, ...(origin ? { origin } : {}) });
      const client = new TerminalClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.once('error', (err) => reject(err));
    });

  const connect = async (): Promise<TerminalClient> => {
    const client = await open();
    if (typeof client === 'number') throw new Error(`refused with ${client}`);
    client.send({ type: 'resize', rows: 24, cols: 80 });
    return client;
  };

  it('refuses the handshake without a session (401)', async () => {
    expect(await open({ user: null })).toBe(401);
  });

  it('refuses the handshake from another origin, a near miss, or none (403)', async () => {
    for (const origin of ['http://evil.test', 'http://app.test:80', 'https://app.test', 'http://app.test.evil.test', null]) {
      expect({ origin, status: await open({ origin }) }).toEqual({ origin, status: 403 });
    }
  });

  it("refuses another tenant's project (404) and a sandbox that is not running (409)", async () => {
    expect(await open({ user: mallory })).toBe(404);
    expect(await open({ project: stoppedProjectId })).toBe(409);
  });

  it('accepts an origin listed in ALLOWED_ORIGINS', async () => {
    const client = await open({ origin: DEV_ORIGIN });
    expect(client).toBeInstanceOf(TerminalClient);
    (client as TerminalClient).close();
  });

  it('echoes commands through the shell and applies resizes', async () => {
    const client = await connect();
    try {
      client.input('echo hello-$((40+2))\r');
      await client.waitFor(/hello-42/);
      client.send({ type: 'resize', rows: 33, cols: 101 });
      client.input('stty size\r');
      await client.waitFor(/33 101/);
    } finally {
      client.close();
    }
  });

  it("gives the shell the project's secrets as environment variables and blanks them, and their base64, out of its output", async () => {
    const client = await connect();
    try {
      client.input('echo "len=${#CANARY_TOKEN} value=$CANARY_TOKEN b64=$(printf %s "$CANARY_TOKEN" | base64)"; echo done-$((6*7))\r');
      await client.waitFor(/done-42/);
      expect(client.output).toContain(`len=${CANARY.length} value=[REDACTED] b64=[REDACTED]`);
      expect(client.output).not.toContain(CANARY);
      expect(client.output).not.toContain(Buffer.from(CANARY).toString('base64'));
    } finally {
      client.close();
    }
  });

  it('sends a flood in large frames and a quiet echo at once', async () => {
    const client = await connect();
    try {
      await client.quiet(200);
      const sizes: number[] = [];
      client.ws.on('message', (raw) => sizes.push((JSON.parse(raw.toString()) as { data: string }).data.length));
      client.input('head -c 3000000 /dev/zero | tr "\\0" a; echo; echo flood-$((1+1))\r');
      await client.waitFor(/flood-2/);
      // The pty reads about 4 KB at a time; coalesced, 3 MB takes far fewer frames than 3 MB / 4 KB (732).
      expect(sizes.length).toBeLessThan(300);
      await client.quiet(100);
      const sentAt = Date.now();
      client.input('echo quick-$((2+3))\r');
      await client.waitFor(/quick-5/);
      expect(Date.now() - sentAt).toBeLessThan(1_000);
    } finally {
      client.close();
    }
  });

  it('closes the socket on a message that is not a terminal message', async () => {
    const client = await connect();
    client.send({ type: 'input', input: 'x', extra: true });
    expect((await client.closed).code).toBe(4002);
  });

  it('stops a `yes` flood within moments of Ctrl-C', async () => {
    const client = await connect();
    try {
      client.input('yes\r');
      const floodFrom = client.bytes;
      while (client.bytes - floodFrom < 2_000_000) await new Promise((r) => setTimeout(r, 10));
      const interruptAt = Date.now();
      client.input('\x03');
      await client.quiet(300);
      const stopMs = client.lastDataAt - interruptAt;
      expect(stopMs).toBeLessThan(1_000);
      client.input('echo after-flood\r');
      await client.waitFor(/after-flood\r?\n/);
    } finally {
      client.close();
    }
  });

  it('keeps server-side buffering bounded while the browser does not read, and Ctrl-C still gets through', async () => {
    const client = await connect();
    try {
      client.input('yes\r');
      await client.waitFor(/y\r\ny\r\n/);
      const raw = (client.ws as unknown as { _socket: import('node:net').Socket })._socket;
      raw.pause();
      await new Promise((r) => setTimeout(r, 1_500));
      client.input('\x03');
      await new Promise((r) => setTimeout(r, 200));
      const before = client.bytes;
      raw.resume();
      await client.quiet(400);
      // Without flow control `yes` would have queued hundreds of MB in 1.5 s; with it the backlog is the
      // socket's high watermark plus kernel buffers.
      expect(client.bytes - before).toBeLessThan(16 * 1024 * 1024);
      client.input('echo still-alive\r');
      await client.waitFor(/still-alive\r?\n/);
    } finally {
      client.close();
    }
  });

  it('reattaches a reconnecting browser to the same shell within the grace period, and starts a new one after it', async () => {
    const first = await connect();
    first.input('export MARK=same-shell-7\r');
    await first.waitFor(/\$ $/m);
    first.close();
    await first.closed;

    const second = await connect();
    second.input('echo "mark=$MARK"\r');
    await second.waitFor(/mark=same-shell-7/);
    second.close();
    await second.closed;

    await new Promise((r) => setTimeout(r, 1_500));
    const third = await connect();
    try {
      third.input('echo "mark=[$MARK]"\r');
      await third.waitFor(/mark=\[\]/);
    } finally {
      third.close();
    }
  });

  it('a second socket takes the shell over and the first is closed', async () => {
    const first = await connect();
    const second = await connect();
    expect((await first.closed).code).toBe(4000);
    second.input('echo taken-over\r');
    await second.waitFor(/taken-over\r?\n/);
    second.close();
  });

  it('closes the terminal socket when its session signs out, and refuses that session afterwards', async () => {
    const leaving = await signIn(app, 'alice');
    const client = await open({ user: leaving });
    if (typeof client === 'number') throw new Error(`socket refused with ${client}`);
    client.input('echo still-here\r');
    await client.waitFor(/still-here\r?\n/);
    const logout = await app.inject({ method: 'POST', url: '/api/github/logout', headers: leaving.headers });
    expect(logout.statusCode).toBe(204);
    // Closed by the server (its TCP socket destroyed: no close frame, 1006), not by the client.
    expect((await client.closed).code).toBe(1006);
    expect(await open({ user: leaving })).toBe(401);
  });
});
