import { once } from 'node:events';
import http from 'node:http';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { HumanMessage, SystemMessage } from '@langchain/core/messages';
import { buildApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/config';
import type { Database } from '../../src/server/db/client';
import { REQUIREMENTS_TOOLS } from '../../src/server/services/planning/agents/requirementsAgent';
import { OfflineChatModel, messageText } from '../../src/server/agents/offline/offlineChatModel';

/** The same request every turn: its answer is a few hundred tokens of the requirements agent. */
const PROMPT =
  'I want n8n behind a reverse proxy with SSL at n8n.example.com, with PostgreSQL, Redis and Prometheus with Grafana, on a Hetzner server in Frankfurt, about 50 workflows and 20 GB of data';
const PROJECT_NAME = 'stream bench';
const TURNS = Number(process.env.BENCH_STREAM_TURNS ?? 40);
const WARMUP = 5;

/** A clock that threads share: milliseconds since the epoch, sub-millisecond resolution. */
const clock = (): number => performance.timeOrigin + performance.now();

/**
 * When the offline model yielded each token. The bench wraps the model's stream (here, not in src) so
 * that every token's trip can be timed from the model to its reader, on both paths.
 */
const emitted: number[] = [];
const original = OfflineChatModel.prototype._streamResponseChunks;
OfflineChatModel.prototype._streamResponseChunks = async function* (this: OfflineChatModel, ...args: Parameters<typeof original>) {
  for await (const chunk of original.apply(this, args)) {
    if (chunk.text) emitted.push(clock());
    yield chunk;
  }
};

/** When the server wrote each token's SSE frame to its socket (the server's part of the trip ends there). */
const written: number[] = [];
const originalWrite = http.ServerResponse.prototype.write;
http.ServerResponse.prototype.write = function (this: http.ServerResponse, chunk: unknown, ...rest: unknown[]): boolean {
  if (typeof chunk === 'string' && chunk.startsWith('data: {"event":"on_chat_model_stream"')) written.push(clock());
  return (originalWrite as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
} as typeof originalWrite;

/** One turn as its reader saw it: when it asked, when each token left the model and when it arrived. */
interface Turn {
  text: string;
  startedAt: number;
  emittedAt: number[];
  /** HTTP turns: when the server wrote each token to the socket. */
  writtenAt: number[];
  arrivedAt: number[];
  endedAt: number;
}

const latencies = (t: Turn): number[] => t.arrivedAt.map((a, i) => a - t.emittedAt[i]!);
/** Tokens per second from the first token leaving the model to the last one arriving. */
const tokensPerSecond = (t: Turn): number => (t.arrivedAt.length / Math.max(1e-6, t.arrivedAt.at(-1)! - t.emittedAt[0]!)) * 1000;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function finish(text: string, startedAt: number, arrivedAt: number[]): Turn {
  const emittedAt = emitted.splice(0);
  const writtenAt = written.splice(0);
  if (emittedAt.length !== arrivedAt.length) throw new Error(`${emittedAt.length} tokens left the model, ${arrivedAt.length} arrived`);
  return { text, startedAt, emittedAt, writtenAt, arrivedAt, endedAt: clock() };
}

/**
 * The reference: the offline model's stream consumed in-process, with the messages the requirements
 * graph gives it for this prompt in a fresh project (its system prompt names the role and the project)
 * and the same tools bound.
 */
async function rawTurn(): Promise<Turn> {
  const model = new OfflineChatModel({ tokenDelayMs: 0 }).bindTools(REQUIREMENTS_TOOLS);
  const messages = [new SystemMessage(`Role: requirements\n\n<project_name>\n${PROJECT_NAME}\n</project_name>`), new HumanMessage(PROMPT)];
  emitted.length = 0;
  const startedAt = clock();
  const arrivedAt: number[] = [];
  let text = '';
  for await (const chunk of await model.stream(messages)) {
    const content = messageText(chunk);
    if (!content) continue;
    arrivedAt.push(clock());
    text += content;
  }
  return finish(text, startedAt, arrivedAt);
}

/**
 * The browser's side of the HTTP turn, in a worker thread with its own event loop (as a browser has its
 * own process): POST, then SSE frames read with fetch, each token timestamped as it is parsed.
 */
const READER = `
const { parentPort } = require('node:worker_threads');
const clock = () => performance.timeOrigin + performance.now();
parentPort.on('message', async ({ url, headers, body }) => {
  try {
    const startedAt = clock();
    const res = await fetch(url, { method: 'POST', headers, body });
    if (res.status !== 200) throw new Error('stream answered ' + res.status + ': ' + (await res.text()));
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    const arrivedAt = [];
    let buffer = '';
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf('\\n\\n')) >= 0) {
        const event = JSON.parse(buffer.slice('data: '.length, end));
        buffer = buffer.slice(end + 2);
        if (event.event === 'on_chat_model_stream' && event.chunk && event.chunk.content) {
          arrivedAt.push(clock());
          text += event.chunk.content;
        }
      }
    }
    parentPort.postMessage({ startedAt, arrivedAt, text });
  } catch (err) {
    parentPort.postMessage({ error: String(err && err.message || err) });
  }
});
`;

/** The same turn through the real route, read by the worker; each HTTP turn in a new project (a fresh thread). */
async function httpTurn(reader: Worker, base: string, headers: Record<string, string>): Promise<Turn> {
  const created = await fetch(`${base}/api/projects`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ name: PROJECT_NAME }) });
  const { id } = (await created.json()) as { id: number };
  emitted.length = 0;
  written.length = 0;
  reader.postMessage({
    url: `${base}/api/planning/requirements-gatherer`,
    headers: { ...headers, 'project-id': String(id), 'content-type': 'application/json' },
    body: JSON.stringify({ message: PROMPT }),
  });
  const [answer] = (await once(reader, 'message')) as [{ startedAt: number; arrivedAt: number[]; text: string; error?: string }];
  if (answer.error) throw new Error(answer.error);
  return finish(answer.text, answer.startedAt, answer.arrivedAt);
}

const ms = (n: number): string => `${n.toFixed(3)} ms`;

/**
 * What the server adds per model token on the SSE path (ARCHITECTURE.md budget: ≤ 1 ms p50): the
 * offline model (no delay between tokens) streamed raw in-process against the same prompt through
 * `POST /api/planning/requirements-gatherer` on a real socket, each HTTP turn on a fresh thread (a new
 * project). Turns alternate so both see the same machine. Each token is timed from the moment the
 * model yields it to the moment the server writes its frame to the socket (the server's part, which the
 * budget is about) and to the moment the reader — a worker thread, as a browser has its own process —
 * has parsed it (which adds loopback and the reader's scheduling). The fixed per-turn costs (session, project
 * lookup, thread, system prompt, checkpoint and token-usage writes) fall before the first token leaves
 * the model or after the last one and are reported apart, not spread over the tokens.
 */
export async function benchStream(database: Database, dataDir: string): Promise<boolean> {
  const app = await buildApp({
    config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', MODEL_PROVIDER: 'offline', OFFLINE_TOKEN_DELAY_MS: '0' }),
    database,
    logger: false,
  });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const reader = new Worker(READER, { eval: true });
  try {
    const login = await fetch(`${base}/api/github/local-login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'stream-bench' }) });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const { installation_id } = (await login.json()) as { installation_id: number };
    const headers = { cookie, 'installation-id': String(installation_id) };

    const raw: Turn[] = [];
    const http: Turn[] = [];
    for (let i = 0; i < WARMUP + TURNS; i += 1) {
      const r = await rawTurn();
      const h = await httpTurn(reader, base, headers);
      if (r.text !== h.text) throw new Error(`the raw and HTTP streams differ: ${r.arrivedAt.length} vs ${h.arrivedAt.length} tokens`);
      if (i >= WARMUP) {
        raw.push(r);
        http.push(h);
      }
    }
    const rawLatency = raw.flatMap(latencies);
    const httpLatency = http.flatMap(latencies);
    const serverLatency = http.flatMap((t) => t.writtenAt.map((w, i) => w - t.emittedAt[i]!));
    const p50Added = percentile(serverLatency, 50) - percentile(rawLatency, 50);
    const p50EndToEnd = percentile(httpLatency, 50) - percentile(rawLatency, 50);
    const firstEmission = (turns: Turn[]): number => percentile(turns.map((t) => t.emittedAt[0]! - t.startedAt), 50);
    const row = (name: string, turns: Turn[], lat: number[]): string =>
      `${name.padEnd(46)} ${String(turns[0]!.arrivedAt.length).padStart(4)} tokens/turn   model→reader p50 ${ms(percentile(lat, 50)).padStart(9)} p90 ${ms(percentile(lat, 90)).padStart(9)}   ` +
      `${percentile(turns.map(tokensPerSecond), 50).toFixed(0).padStart(7)} tokens/s (p50)`;
    console.log(`Streams — load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores; ${TURNS} turns each (after ${WARMUP} warm-up), offline model with no delay between tokens, same prompt, a fresh thread each HTTP turn`);
    console.log(row('raw: offline model stream, in-process', raw, rawLatency));
    console.log(row('SSE: POST /api/planning/requirements-gatherer', http, httpLatency));
    const met = p50Added <= 1;
    console.log(
      `added by the server per token, model → its socket write: p50 ${ms(p50Added)} p90 ${ms(percentile(serverLatency, 90))}  (budget ≤ 1 ms p50: ${met ? 'met' : 'NOT met'})`,
    );
    console.log(`model → reader through loopback and the reader's thread: p50 ${ms(p50EndToEnd)} more than raw`);
    console.log(
      `fixed per turn, apart: request → first token out of the model p50 ${ms(firstEmission(http))} (raw ${ms(firstEmission(raw))}); ` +
        `last token → stream closed p50 ${ms(percentile(http.map((t) => t.endedAt - t.arrivedAt.at(-1)!), 50))}\n`,
    );
    return met;
  } finally {
    await reader.terminate();
    await app.close();
  }
}
