import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import * as pty from 'node-pty';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';
import WebSocket, { WebSocketServer } from 'ws';

const END = '__BENCH_END__';
const SIZE_MB = Number(process.env.BENCH_TERMINAL_MB ?? 100);
const ROUNDS = Number(process.env.BENCH_TERMINAL_ROUNDS ?? 3);

/** Bytes of output until `END` shows up, and how long that took. */
interface Throughput {
  name: string;
  bytes: number;
  ms: number;
  /** Time the server's event loop was busy meanwhile: the server's own cost, robust to a loaded machine. */
  busyMs?: number;
}

const row = (t: Throughput): string =>
  `${t.name.padEnd(52)} ${(t.bytes / 1e6).toFixed(1).padStart(7)} MB in ${t.ms.toFixed(0).padStart(6)} ms   ${((t.bytes / 1e6 / t.ms) * 1000).toFixed(1).padStart(7)} MB/s` +
  (t.busyMs === undefined ? '' : `   server loop busy ${t.busyMs.toFixed(0).padStart(5)} ms`);

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
 * The browser's side of a terminal, in a worker thread with its own event loop (a browser parses frames
 * in its own process, not in the server's): connects, disables echo, then counts the bytes of output
 * until the end marker. `json` selects the frame shape: the product's `{type,input}`/`{type,output,data}`
 * or a bare terminal server's raw text.
 */
const READER = `
const { parentPort } = require('node:worker_threads');
const WebSocket = require('ws');
parentPort.on('message', async ({ url, cookie, origin, json, command, end }) => {
  try {
    const ws = new WebSocket(url, { headers: cookie ? { cookie } : {}, origin });
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('unexpected-response', (_q, res) => reject(new Error('refused: ' + res.statusCode))); });
    const send = (text) => ws.send(json ? JSON.stringify({ type: 'input', input: text }) : text);
    let counting = false, bytes = 0, tail = '', started = 0, lastAt = performance.now();
    const done = new Promise((resolve) => {
      ws.on('message', (raw) => {
        const data = json ? JSON.parse(raw.toString()).data : raw.toString();
        lastAt = performance.now();
        if (!counting) return;
        bytes += data.length;
        tail = (tail + data).slice(-64);
        if (tail.includes(end)) resolve();
      });
    });
    if (json) ws.send(JSON.stringify({ type: 'resize', rows: 50, cols: 200 }));
    send('stty -echo\\r');
    await new Promise((r) => setTimeout(r, 300));
    while (performance.now() - lastAt < 100) await new Promise((r) => setTimeout(r, 5));
    counting = true;
    started = performance.now();
    send(command);
    await done;
    const ms = performance.now() - started;
    ws.close();
    parentPort.postMessage({ bytes, ms });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
});
`;

interface ReadRequest {
  url: string;
  cookie?: string;
  origin?: string;
  json: boolean;
}

/** One `cat` of `file` read by the worker through a terminal socket. */
async function readCat(reader: Worker, name: string, request: ReadRequest, file: string): Promise<Throughput> {
  const before = performance.eventLoopUtilization();
  reader.postMessage({ ...request, command: `cat ${file}; echo ${END.slice(0, 6)}''${END.slice(6)}\r`, end: END });
  const [answer] = (await once(reader, 'message')) as [{ bytes: number; ms: number; error?: string }];
  if (answer.error) throw new Error(`${name}: ${answer.error}`);
  return { name, bytes: answer.bytes, ms: answer.ms, busyMs: performance.eventLoopUtilization(before).active };
}

/**
 * The reference terminal servers: node-pty piped to a bare `ws` server, a frame per pty read, with no
 * session, redaction or flow control (what a minimal web terminal does). `json` speaks the documents'
 * protocol (`{type:'output',data}` frames, `{type:'input',input}` messages), which is the budget's
 * comparison; raw text frames are shown for what the protocol itself costs.
 */
async function referenceServerCat(reader: Worker, file: string, json: boolean): Promise<Throughput> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  wss.on('connection', (socket) => {
    const term = pty.spawn('bash', ['--norc', '--noprofile'], { name: 'xterm-256color', cols: 200, rows: 50, cwd: '/', env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PS1: '$ ' } });
    term.onData((d) => socket.send(json ? JSON.stringify({ type: 'output', data: d }) : d));
    socket.on('message', (m) => {
      const text = m.toString();
      if (!json) term.write(text);
      else {
        const message = JSON.parse(text) as { type: string; input?: string };
        if (message.type === 'input' && message.input) term.write(message.input);
      }
    });
    socket.on('close', () => term.kill());
  });
  const { port } = wss.address() as { port: number };
  const name = json ? 'reference: node-pty to a bare ws server, JSON frames' : 'reference: node-pty to a bare ws server, raw frames';
  try {
    return await readCat(reader, name, { url: `ws://127.0.0.1:${port}`, json }, file);
  } finally {
    for (const client of wss.clients) client.terminate();
    await new Promise((resolve) => wss.close(resolve));
  }
}

class Client {
  bytes = 0;
  frames = 0;
  lastDataAt = 0;
  private tail = '';
  private waiters: Array<{ text: string; resolve: () => void }> = [];
  constructor(readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const { data } = JSON.parse(raw.toString()) as { data: string };
      this.bytes += data.length;
      this.frames += 1;
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

  const wsUrl = `${base.replace(/^http/, 'ws')}/api/sandboxes/${id}/ws`;
  const reader = new Worker(READER, { eval: true });
  let ws: WebSocket | undefined;
  try {
    console.log(`Terminal: ${SIZE_MB} MB cat (${ROUNDS} alternating rounds, medians), then Ctrl-C during \`yes\`\n`);
    const reference = await plainPtyCat(tmpCopy);
    console.log(row(reference));
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const sockets: Throughput[] = [];
    const referenceServers: Throughput[] = [];
    const rawServers: Throughput[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 20);
      sockets.push(await readCat(reader, 'sandbox terminal over the WebSocket (JSON frames)', { url: wsUrl, cookie: headers.cookie!, origin: app.config.publicUrl, json: true }, 'big.txt'));
      clearInterval(sampler);
      referenceServers.push(await referenceServerCat(reader, tmpCopy, true));
      rawServers.push(await referenceServerCat(reader, tmpCopy, false));
    }
    const speed = (t: Throughput): number => t.bytes / t.ms;
    const middle = (runs: Throughput[]): Throughput => [...runs].sort((a, b) => speed(a) - speed(b))[Math.floor(runs.length / 2)]!;
    const referenceServer = middle(referenceServers);
    const rawServer = middle(rawServers);
    const socket = middle(sockets);
    console.log(row(rawServer));
    console.log(row(referenceServer));
    console.log(row(socket));
    console.log(`ratio socket / plain node-pty: ${((speed(socket) / speed(reference)) * 100).toFixed(1)}%`);
    const ratio = speed(socket) / speed(referenceServer);
    console.log(`ratio socket / reference server with raw frames: ${((speed(socket) / speed(rawServer)) * 100).toFixed(1)}%`);
    console.log(`ratio socket / reference terminal server (same protocol): ${(ratio * 100).toFixed(1)}%  (budget ≥ 100%: ${ratio >= 1 ? 'met' : 'NOT met'})`);
    console.log(`server RSS during the product's cats: ${(rssBefore / 1e6).toFixed(0)} MB before, ${(rssPeak / 1e6).toFixed(0)} MB peak (+${((rssPeak - rssBefore) / 1e6).toFixed(0)} MB)\n`);

    // Ctrl-C is timed in-process: the clock that sends \x03 is the one that sees the last frame.
    ws = new WebSocket(wsUrl, { headers: { cookie: headers.cookie! }, origin: app.config.publicUrl });
    const opened = ws;
    await new Promise<void>((resolve, reject) => {
      opened.once('open', () => resolve());
      opened.once('unexpected-response', (_q, res) => reject(new Error(`terminal socket refused: ${res.statusCode}`)));
    });
    const client = new Client(ws);
    await client.quiet(200);
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

    // Coalescing (terminalSessions.ts): a 3 MB flood in far fewer frames than one per pty read (about
    // 4 KB: 732), and a command right after it answered at once. Timings, so here and not in the unit test.
    const flood: { frames: number; echoMs: number }[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      await client.quiet(200);
      const framesFrom = client.frames;
      const marker = `flood-${i}-done`;
      client.input(`head -c 3000000 /dev/zero | tr "\\0" a; echo; echo ${marker.slice(0, 6)}''${marker.slice(6)}\r`);
      await client.waitFor(marker);
      const frames = client.frames - framesFrom;
      await client.quiet(100);
      const sentAt = performance.now();
      client.input(`echo quick-${i}''-answered\r`);
      await client.waitFor(`quick-${i}-answered`);
      flood.push({ frames, echoMs: performance.now() - sentAt });
    }
    const frames = median(flood.map((f) => f.frames));
    console.log(
      `3 MB flood: ${frames} frames (median of ${flood.length}; one per 4 KB pty read would be 732; at most 300 expected), ` +
        `then an echo answered in ${median(flood.map((f) => f.echoMs)).toFixed(1)} ms (median)  (${frames < 300 ? 'met' : 'NOT met'})\n`,
    );
  } finally {
    ws?.close();
    await reader.terminate();
    fs.rmSync(tmpCopy, { force: true });
  }
}
