import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import WebSocket from 'ws';
import { TERMINAL } from '../../../src/shared/constants';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { processesWith, untilBlocked } from '../helpers/processes';
import { until } from '../helpers/until';
import { TERMINAL_HIGH_WATERMARK as HIGH_WATERMARK } from '../../../src/server/services/terminal/terminalSessions';

const ORIGIN = 'http://app.test';
const CANARY = 'canary-Tm4x9Qw2-terminal';
const DEV_ORIGIN = 'http://127.0.0.1:3000';

/** A terminal client: collects output frames and remembers when the last one came. */
class TerminalClient {
  output = '';
  bytes = 0;
  closed: Promise<{ code: number; reason: string }>;
  constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const frame = JSON.parse(raw.toString()) as { type: string; data: string };
      expect(frame.type).toBe('output');
      this.output += frame.data;
      if (this.output.length > 200_000) this.output = this.output.slice(-100_000);
      this.bytes += frame.data.length;
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
  const open = (options: { user?: TestUser | null; origin?: string | null; project?: number; terminal?: string } = {}): Promise<TerminalClient | number> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {};
      const user = options.user === undefined ? alice : options.user;
      if (user) headers.cookie = user.cookie;
      const origin = options.origin === undefined ? ORIGIN : options.origin;
      const query = options.terminal === undefined ? '' : `?terminal=${encodeURIComponent(options.terminal)}`;
      const ws = new WebSocket(`${base}/api/sandboxes/${options.project ?? projectId}/ws${query}`, { headers, ...(origin ? { origin } : {}) });
      const client = new TerminalClient(ws);
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) => {
        resolve(res.statusCode ?? 0);
        ws.terminate();
      });
      ws.once('error', (err) => reject(err));
    });

  const connect = async (terminal?: string): Promise<TerminalClient> => {
    const client = await open({ terminal });
    if (typeof client === 'number') throw new Error(`refused with ${client}`);
    client.send({ type: 'resize', rows: 24, cols: 80 });
    return client;
  };

  /** The most any of the server's sockets has queued for its browser. */
  const serverQueue = (): number => Math.max(0, ...[...app.websocketServer.clients].map((ws) => ws.bufferedAmount));

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

  // How few frames a flood takes, and how soon an echo after it answers, are timings: `npm run bench`
  // (terminal section) measures them. Here, what holds on any machine however busy.
  it('sends a flood whole and in order, and answers a command after it', async () => {
    const client = await connect();
    try {
      // Whatever the shell still had to say (it may be an earlier test's) has come before this answer.
      client.input('echo ready-$((0+1))\r');
      await client.waitFor(/ready-1\r\n[^]*\$ $/);
      const frames: string[] = [];
      client.ws.on('message', (raw) => frames.push((JSON.parse(raw.toString()) as { data: string }).data));
      client.input('head -c 3000000 /dev/zero | tr "\\0" a; echo; echo flood-$((1+1))\r');
      await client.waitFor(/flood-2\r\n[^]*\$ $/);
      const output = frames.join('');
      expect(output.match(/a+/g)?.reduce((longest, run) => Math.max(longest, run.length), 0)).toBe(3_000_000);
      const flood = output.indexOf('a'.repeat(3_000_000));
      expect(flood).toBeGreaterThan(0);
      expect(output.indexOf('flood-2')).toBeGreaterThan(flood + 3_000_000 - 1);
      client.input('echo quick-$((2+3))\r');
      await client.waitFor(/quick-5/);
    } finally {
      client.close();
    }
  });

  it('closes the socket on a message that is not a terminal message', async () => {
    const client = await connect();
    client.send({ type: 'input', input: 'x', extra: true });
    expect((await client.closed).code).toBe(4002);
  });

  // How soon the flood stops after Ctrl-C is a timing: `npm run bench` (terminal section, budget 100 ms).
  // Here, the order that holds on any machine: `yes` ends, and nothing of it comes after the next answer.
  it('stops a `yes` flood on Ctrl-C: nothing of it follows the next command\'s answer', async () => {
    const client = await connect();
    try {
      const marker = `stop-${process.pid}`;
      let tail = '';
      let answered = false;
      let floodAfterAnswer = 0;
      client.ws.on('message', (raw) => {
        const data = (JSON.parse(raw.toString()) as { data?: string }).data ?? '';
        if (answered && data.includes(marker)) floodAfterAnswer += 1;
        tail = (tail + data).slice(-64);
        if (/after-42\r\n/.test(tail)) answered = true;
      });
      client.input(`yes ${marker}\r`);
      const floodFrom = client.bytes;
      await until(() => client.bytes - floodFrom >= 2_000_000, '2 MB of `yes`');
      client.input('\x03');
      // Everything `yes` wrote reaches the socket before the next command's output does.
      client.input('echo after-$((40+2))\r');
      await client.waitFor(/after-42\r?\n/);
      expect(processesWith(['yes', marker])).toEqual([]);
      // One more round trip, so a late frame of the flood would have arrived.
      client.input('echo again-$((40+3))\r');
      await client.waitFor(/again-43\r?\n/);
      expect({ answered, floodAfterAnswer }).toEqual({ answered: true, floodAfterAnswer: 0 });
    } finally {
      client.close();
    }
  });

  it('keeps server-side buffering bounded while the browser does not read, and Ctrl-C still gets through', async () => {
    const client = await connect();
    try {
      const marker = `flood-${process.pid}-${Date.now()}`;
      client.input(`yes ${marker}\r`);
      await client.waitFor(new RegExp(`${marker}\\r\\n${marker}\\r\\n`));
      const [yes, ...others] = processesWith(['yes', marker]);
      expect(others).toEqual([]);
      const raw = (client.ws as unknown as { _socket: import('node:net').Socket })._socket;
      raw.pause();
      // The browser reads nothing: the server's queue for the socket reaches the high watermark, the
      // pty is paused there and `yes` blocks on its own writes.
      await until(() => serverQueue() >= HIGH_WATERMARK, "the server's queue to reach the high watermark");
      await untilBlocked(yes!);
      // Without flow control the server would have kept reading `yes` (hundreds of MB a second) all along.
      expect(serverQueue()).toBeLessThan(HIGH_WATERMARK + 2 * 1024 * 1024);
      client.input('\x03');
      await until(() => !fs.existsSync(`/proc/${yes}`), 'Ctrl-C to end `yes`');
      const before = client.bytes;
      raw.resume();
      client.input('echo still-alive\r');
      await client.waitFor(/still-alive\r?\n/);
      // The backlog the browser receives is the socket's high watermark plus kernel buffers.
      expect(client.bytes - before).toBeLessThan(16 * 1024 * 1024);
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

    // The grace period (1 s here) runs out and the shell ends.
    await until(() => app.services.terminals.size === 0, 'the shell to end after the grace period');
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

  it('a second terminal (another tab) gets a shell of its own and the first stays open', async () => {
    const first = await connect('tab-a');
    const second = await connect('tab-b');
    try {
      first.input('export MARK=tab-a-only\r');
      await first.waitFor(/\$ $/m);
      second.input('echo "mark=[$MARK]"\r');
      await second.waitFor(/mark=\[\]/);
      first.input('echo "mark=[$MARK]"\r');
      await first.waitFor(/mark=\[tab-a-only\]/);
      expect(first.ws.readyState).toBe(WebSocket.OPEN);
    } finally {
      first.close();
      second.close();
    }
  });

  it(`keeps at most ${TERMINAL.maxSessions} terminals per person and sandbox, closing one more with a clear reason`, async () => {
    // Shells of earlier tests wait out their grace period first.
    await new Promise((r) => setTimeout(r, 1_500));
    const tabs = await Promise.all(Array.from({ length: TERMINAL.maxSessions }, (_v, i) => connect(`limit-${i}`)));
    try {
      const extra = await connect('limit-extra');
      expect(await extra.closed).toEqual({ code: 4003, reason: TERMINAL.tooManySessions });
      // A terminal already open still reconnects (taking its shell over).
      const again = await connect('limit-0');
      expect((await tabs[0]!.closed).code).toBe(4000);
      again.input('echo still-here\r');
      await again.waitFor(/still-here\r?\n/);
      again.close();
    } finally {
      for (const tab of tabs) tab.close();
    }
    expect(await open({ terminal: 'no spaces allowed' })).toBe(400);
  });
});
