import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import * as pty from 'node-pty';
import WebSocket, { WebSocketServer } from 'ws';

const END = '__BENCH_END__';
const SIZE_MB = Number(process.env.BENCH_TERMINAL_MB ?? 100);

/** Bytes of output until `END` shows up, and how long that took. */
interface Throughput {
  name: string;
  bytes: number;
  ms: number;
}

const row = (t: Throughput): string =>
  `${t.name.padEnd(52)} ${(t.bytes / 1e6).toFixed(1).padStart(7)} MB in ${t.ms.toFixed(0).padStart(6)} ms   ${((t.bytes / 1e6 / t.ms) * 1000).toFixed(1).padStart(7)} MB/s`;

/** The reference terminal: a plain node-pty running `cat` on the host, read in-process, no socket. */
async function plainPtyCat(file: string): Promise<Throughput> {
  // An interactive shell, as in the sandbox terminal: the shell outlives the cat, so no output is lost at exit.
  const term = pty.spawn('bash', ['--norc', '--noprofile'], { name: 'xterm-256color', cols: 200, rows: 50, cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PS1: '$ ' } });
  term.write('stty -echo\r');
  await new Promise((r) => setTimeout(r, 300));
  let bytes = 0;
  let tail = '';
  let started = 0;
  return new Promise((resolve) => {
    term.onData((d) => {
      if (!started) return;
      bytes += d.length;
      tail = (tail + d).slice(-64);
      if (tail.includes(END)) {
        resolve({ name: 'reference: node-pty cat on the host, no socket', bytes, ms: performance.now() - started });
        term.kill();
      }
    });
    started = performance.now();
    term.write(`cat ${file}; echo ${END.slice(0, 6)}''${END.slice(6)}\r`);
  });
}

/**
 * The reference terminal server: node-pty piped to a bare `ws` server as raw text frames, with no
 * session, JSON, redaction or flow control (what a minimal web terminal does).
 */
async function referenceServerCat(file: string): Promise<Throughput> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (socket) => {
    const term = pty.spawn('bash', ['--norc', '--noprofile'], { name: 'xterm-256color', cols: 200, rows: 50, cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PS1: '$ ' } });
    term.onData((d) => socket.send(d));
    socket.on('message', (m) => term.write(m.toString()));
    socket.on('close', () => term.kill());
  });
  const { port } = wss.address() as { port: number };
  const ws = new WebSocket(`ws://127.0.0.1:${port}`);
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send('stty -echo\r');
  await new Promise((r) => setTimeout(r, 300));
  let bytes = 0;
  let tail = '';
  let started = 0;
  const result = await new Promise<Throughput>((resolve) => {
    ws.on('message', (raw) => {
      if (!started) return;
      const d = raw.toString();
      bytes += d.length;
      tail = (tail + d).slice(-64);
      if (tail.includes(END)) resolve({ name: 'reference: node-pty piped to a bare ws server', bytes, ms: performance.now() - started });
    });
    started = performance.now();
    ws.send(`cat ${file}; echo ${END.slice(0, 6)}''${END.slice(6)}\r`);
  });
  ws.close();
  await new Promise((resolve) => wss.close(resolve));
  return result;
}

class Client {
  bytes = 0;
  lastDataAt = 0;
  private tail = '';
  private waiters: Array<{ text: string; resolve: () => void }> = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const { data } = JSON.parse(raw.toString()) as { data: string };
      this.bytes += data.length;
      this.lastDataAt = performance.now();
      this.tail = (this.tail + data).slice(-256);
      this.waiters = this.waiters.filter((w) => (this.tail.includes(w.text) ? (w.resolve(), false) : true));
    });
  }
  input(text: string): void {
    this.ws.send(JSON.stringify({ type: 'input', input: text }));
  }
  waitFor(text: string): Promise<void> {
    return new Promise((resolve) => this.waiters.push({ text, resolve }));
  }
  async quiet(ms: number): Promise<void> {
    while (performance.now() - this.lastDataAt < ms) await new Promise((r) => setTimeout(r, 5));
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/**
 * Terminal section of `npm run bench`: a 100 MB `cat` through the sandbox terminal socket against a
 * plain node-pty `cat` of the same file, server memory during it, and Ctrl-C latency during `yes`
 * (time from sending \x03 to the last output frame). ARCHITECTURE.md: at least the reference's
 * throughput, bounded memory, Ctrl-C under 100 ms.
 */
export async function benchTerminal(app: FastifyInstance, base: string, headers: Record<string, string>): Promise<void> {
  const create = await fetch(`${base}/api/projects`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'terminal bench' }),
  });
  const { id } = (await create.json()) as { id: number };
  const init = await fetch(`${base}/api/sandbox/initialize/${id}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' });
  const { status } = (await init.json()) as { status: string };
  if (status !== 'success') throw new Error(`sandbox initialisation answered ${status}`);

  const lines = Math.round((SIZE_MB * 1e6) / 100);
  // The file is written inside the sandbox, and read from the host path for the reference.
  const statusRes = await fetch(`${base}/api/sandboxes/${id}/status`, { headers });
  const { username } = (await statusRes.json()) as { username: string };
  const installationId = Number(username.split('_')[1]);
  const made = await app.services.sandbox.exec({ id, installationId }, `yes 'abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvw' | head -n ${lines} > big.txt`);
  if (made.exitCode !== 0) throw new Error(`could not write the bench file: ${made.output}`);
  const hostFile = path.join(app.config.sandbox.root, String(id), 'workspace', 'big.txt');
  const tmpCopy = path.join(os.tmpdir(), `da-bench-${process.pid}.txt`);
  fs.copyFileSync(hostFile, tmpCopy);

  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/sandboxes/${id}/ws`, { headers: { cookie: headers.cookie! }, origin: app.config.publicUrl });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_q, res) => reject(new Error(`terminal socket refused: ${res.statusCode}`)));
  });
  const client = new Client(ws);
  ws.send(JSON.stringify({ type: 'resize', rows: 50, cols: 200 }));
  client.input('stty -echo\r');
  await new Promise((r) => setTimeout(r, 300));
  await client.quiet(100);

  try {
    console.log(`Terminal: ${SIZE_MB} MB cat, then Ctrl-C during \`yes\`\n`);
    const reference = await plainPtyCat(tmpCopy);
    console.log(row(reference));
    const referenceServer = await referenceServerCat(tmpCopy);
    console.log(row(referenceServer));

    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
    const from = client.bytes;
    const started = performance.now();
    client.input(`cat big.txt; echo ${END.slice(0, 6)}''${END.slice(6)}\r`);
    await client.waitFor(END);
    const socket: Throughput = { name: 'sandbox terminal over the WebSocket (JSON frames)', bytes: client.bytes - from, ms: performance.now() - started };
    clearInterval(sampler);
    console.log(row(socket));
    const speed = (t: Throughput): number => t.bytes / t.ms;
    console.log(`ratio socket / plain node-pty: ${((speed(socket) / speed(reference)) * 100).toFixed(1)}%`);
    const ratio = speed(socket) / speed(referenceServer);
    console.log(`ratio socket / reference terminal server: ${(ratio * 100).toFixed(1)}%  (budget ≥ 100%: ${ratio >= 1 ? 'met' : 'NOT met'})`);
    console.log(`server RSS during the cat: ${(rssBefore / 1e6).toFixed(0)} MB before, ${(rssPeak / 1e6).toFixed(0)} MB peak (+${((rssPeak - rssBefore) / 1e6).toFixed(0)} MB)\n`);

    const latencies: number[] = [];
    for (let i = 0; i < 5; i++) {
      await client.quiet(200);
      const floodFrom = client.bytes;
      client.input('yes\r');
      while (client.bytes - floodFrom < 4_000_000) await new Promise((r) => setTimeout(r, 2));
      const sentAt = performance.now();
      client.input('\x03');
      await client.quiet(300);
      latencies.push(client.lastDataAt - sentAt);
    }
    const worst = Math.max(...latencies);
    console.log(`Ctrl-C during yes, last output frame after \\x03: median ${median(latencies).toFixed(1)} ms, max ${worst.toFixed(1)} ms over ${latencies.length} runs  (budget < 100 ms: ${worst < 100 ? 'met' : 'NOT met'})\n`);
  } finally {
    ws.close();
    fs.rmSync(tmpCopy, { force: true });
  }
}
