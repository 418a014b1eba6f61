import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { BUILT_SERVER } from './coldStart';
import { cpuMicros, mainThreadCpuMicros, rssBytes, startNode, stopChild, waitForUrl } from './processes';

/** What a browser of the app polls, and how often (part 2: progress every 5 s, the rest every 10 s). */
const POLLS = [
  { name: 'progress', everyTicks: 1 },
  { name: 'credits', everyTicks: 2 },
  { name: 'costs', everyTicks: 2 },
  { name: 'status', everyTicks: 2 },
] as const;
type PollName = (typeof POLLS)[number]['name'];
const TICK_MS = 5_000;

interface Client {
  headers: Record<string, string>;
  paths: Record<PollName, string>;
  etags: Map<PollName, string>;
}

export interface ClientsResult {
  name: string;
  clients: number;
  answers: number;
  notModified: number;
  errors: number;
  p50Ms: number;
  p99Ms: number;
  /** Server CPU per answer, from /proc/<pid>/stat of the server's process over the measured window. */
  cpuMicrosPerAnswer: number;
  /** The part of it on the main thread (JavaScript); the rest ran on V8's and libuv's helper threads (GC, JIT). */
  mainThreadCpuMicrosPerAnswer: number;
  rssBytes: number;
  /**
   * RSS at the end of the measured window ÷ clients: an upper bound of what one client costs (the
   * process's own memory included). What the clients add over the process as it started is not usable:
   * a PGlite server's RSS peaks at start and is lower later, whatever it then holds.
   */
  rssPerClientBytes: number;
  /** RSS as the process answered its first request, before any client. */
  rssStartedBytes: number;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

function get(agent: http.Agent, base: URL, pathname: string, headers: Record<string, string>): Promise<{ status: number; etag?: string }> {
  return new Promise((resolve, reject) => {
    const request = http.get({ agent, host: base.hostname, port: base.port, path: pathname, headers, timeout: 10_000 }, (response) => {
      response.resume();
      response.once('end', () => resolve({ status: response.statusCode ?? 0, etag: response.headers.etag }));
    });
    request.once('timeout', () => request.destroy(new Error('timeout')));
    request.once('error', reject);
  });
}

/** One server polled by the browser-like clients: its process, its URL and its clients' paths and sessions. */
interface Target {
  name: string;
  server: ChildProcess;
  base: URL;
  clients: Client[];
  rssStarted: number;
}

/** What one target's polls gathered. */
class Tally {
  readonly agent: http.Agent;
  readonly latencies: number[] = [];
  answers = 0;
  notModified = 0;
  errors = 0;
  readonly statuses = new Map<string, number>();
  cpuBefore = 0;
  mainBefore = 0;

  constructor(readonly target: Target) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: target.clients.length + 10 });
  }

  count(key: string): void {
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
  }
}

/**
 * Runs the browser-like clients against every target at once: each client's polls go to each server
 * at the same moment, for a warm-up (every client gets its ETags), then `seconds` measured: latencies
 * of every answer, and each server's CPU and RSS over the same window. Measured side by side, the
 * servers share whatever else the machine is doing, so their ratio holds on a noisy machine (one after
 * the other, it moved by ±0.3 between runs).
 */
async function drive(targets: Target[], seconds: number): Promise<ClientsResult[]> {
  const tallies = targets.map((target) => new Tally(target));
  let measuring = false;
  const timers: NodeJS.Timeout[] = [];

  const pollOnce = async (tally: Tally, client: Client, poll: PollName): Promise<void> => {
    const etag = client.etags.get(poll);
    const started = process.hrtime.bigint();
    try {
      const answer = await get(tally.agent, tally.target.base, client.paths[poll], etag ? { ...client.headers, 'if-none-match': etag } : client.headers);
      if (answer.etag) client.etags.set(poll, answer.etag);
      if (!measuring) return;
      if (answer.status !== 200 && answer.status !== 304) {
        tally.errors += 1;
        tally.count(`${poll} ${answer.status}`);
      }
      if (answer.status === 200) tally.count(`${poll} 200`);
      tally.answers += 1;
      if (answer.status === 304) tally.notModified += 1;
      tally.latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    } catch (err) {
      if (measuring) {
        tally.errors += 1;
        tally.count(`${poll} ${(err as Error).message}`);
      }
    }
  };

  const clientCount = Math.min(...targets.map((target) => target.clients.length));
  for (let i = 0; i < clientCount; i += 1) {
    let tick = 0;
    const run = (): void => {
      for (const poll of POLLS) {
        if (tick % poll.everyTicks !== 0) continue;
        for (const tally of tallies) void pollOnce(tally, tally.target.clients[i]!, poll.name);
      }
      tick += 1;
    };
    // Browsers opened at random moments: their polls are spread over the tick.
    timers.push(
      setTimeout(() => {
        run();
        timers.push(setInterval(run, TICK_MS));
      }, Math.random() * TICK_MS),
    );
  }
  // Steady state: every client holds the ETag of each of its polls (or the warm-up has taken too long).
  const warmUntil = Date.now() + Number(process.env.BENCH_WARMUP_SECONDS ?? 120) * 1000;
  await new Promise((resolve) => setTimeout(resolve, 2 * TICK_MS + 500));
  const warm = (): boolean => targets.every((target) => target.clients.every((client) => client.etags.size >= POLLS.length));
  while (Date.now() < warmUntil && !warm()) await new Promise((resolve) => setTimeout(resolve, 1_000));
  await new Promise((resolve) => setTimeout(resolve, 2 * TICK_MS));
  measuring = true;
  for (const tally of tallies) {
    tally.cpuBefore = cpuMicros(tally.target.server.pid!);
    tally.mainBefore = mainThreadCpuMicros(tally.target.server.pid!);
  }
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const results = tallies.map((tally): ClientsResult => {
    const { name, server, clients, rssStarted } = tally.target;
    const cpu = cpuMicros(server.pid!) - tally.cpuBefore;
    const main = mainThreadCpuMicros(server.pid!) - tally.mainBefore;
    const rss = rssBytes(server.pid!);
    return {
      name,
      clients: clients.length,
      answers: tally.answers,
      notModified: tally.notModified,
      errors: tally.errors,
      p50Ms: 0,
      p99Ms: 0,
      cpuMicrosPerAnswer: tally.answers ? cpu / tally.answers : Infinity,
      mainThreadCpuMicrosPerAnswer: tally.answers ? main / tally.answers : Infinity,
      rssBytes: rss,
      rssPerClientBytes: rss / clients.length,
      rssStartedBytes: rssStarted,
    };
  });
  measuring = false;
  for (const timer of timers) clearTimeout(timer);
  for (const [i, tally] of tallies.entries()) {
    tally.agent.destroy();
    tally.latencies.sort((a, b) => a - b);
    results[i]!.p50Ms = percentile(tally.latencies, 50);
    results[i]!.p99Ms = percentile(tally.latencies, 99);
    if (tally.statuses.size) console.log(`${tally.target.name}: answers other than 304: ${[...tally.statuses].map(([k, v]) => `${k} ×${v}`).join(', ')}`);
  }
  return results;
}

/** Signs `count` users in (each its own installation and session) and gives each a project. */
async function signInClients(base: URL, count: number): Promise<Client[]> {
  const clients: Client[] = [];
  const one = async (i: number): Promise<Client> => {
    const login = await fetch(new URL('/api/github/local-login', base), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: `bench-${i}` }),
    });
    if (!login.ok) throw new Error(`sign-in ${i}: ${login.status} ${await login.text()}`);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const { installation_id } = (await login.json()) as { installation_id: number };
    const headers = { cookie, 'installation-id': String(installation_id) };
    const created = await fetch(new URL('/api/projects', base), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `bench ${i}` }),
    });
    if (!created.ok) throw new Error(`project ${i}: ${created.status} ${await created.text()}`);
    const { id } = (await created.json()) as { id: number };
    return {
      headers: { ...headers, 'project-id': String(id) },
      paths: { progress: '/api/execution/progress', credits: '/api/user/credits', costs: `/api/projects/${id}/costs`, status: `/api/sandboxes/${id}/status` },
      etags: new Map(),
    };
  };
  for (let i = 0; i < count; i += 16) {
    clients.push(...(await Promise.all(Array.from({ length: Math.min(16, count - i) }, (_, j) => one(i + j)))));
  }
  return clients;
}

export interface ClientsOptions {
  clients: number;
  seconds: number;
  /** A PostgreSQL URL for the server (a fresh database is the caller's business); PGlite when absent. */
  databaseUrl?: string;
  /** The checkout whose server is measured (another worktree measures "before"). */
  serverDir: string;
  /** Poll one server, then the other, rather than both at once (for client counts the generator cannot drive twice). */
  apart?: boolean;
}

/**
 * The browser-like section: the app's server (built, as `npm run serve` starts it, else its sources
 * through tsx; default LOG_LEVEL) and a bare
 * Fastify server, each in its own process, polled by the same clients the same way at the same time.
 */
export async function benchClients(options: ClientsOptions): Promise<{ app: ClientsResult; bare: ClientsResult }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-bench-clients-'));
  const log = path.join(dataDir, 'server.log');
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const env: Record<string, string> = {
    PORT: String(port),
    DATA_DIR: dataDir,
    STATIC_DIR: path.join(dataDir, 'no-client'),
    LOGIN_RATE_LIMIT_PER_MINUTE: '100000',
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
  };
  // BENCH_CPU_PROF_DIR: both servers write a V8 CPU profile there when they stop (open it in Chrome's DevTools).
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir)}`] : [];
  // The built server when there is one (`npm run build:server`), started as `npm run serve` starts it.
  const built = fs.existsSync(path.join(options.serverDir, BUILT_SERVER));
  const server = startNode(built ? BUILT_SERVER : 'src/server/server.ts', { cwd: options.serverDir, env, logFile: log, nodeArgs, tsx: !built });
  const bareLog = path.join(dataDir, 'bare.log');
  const bare = startNode(path.resolve('test/bench/bareServer.ts'), { cwd: process.cwd(), env: {}, logFile: bareLog, nodeArgs });
  try {
    const base = new URL(`http://127.0.0.1:${port}`);
    await waitForUrl(new URL('/api/health', base).toString(), 120_000, server);
    // Memory before any client: what the clients add is measured against it (sessions, snapshots, sockets).
    const appStarted = rssBytes(server.pid!);
    let bareUrl = '';
    for (let i = 0; i < 600 && !bareUrl; i += 1) {
      bareUrl = fs.readFileSync(bareLog, 'utf8').trim().split('\n')[0] ?? '';
      if (!bareUrl) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const bareStarted = rssBytes(bare.pid!);
    const clients = await signInClients(base, options.clients);
    const bareClients = clients.map((client, i) => ({
      headers: client.headers,
      paths: { progress: `/bare/progress/${i}`, credits: `/bare/credits/${i}`, costs: `/bare/costs/${i}`, status: `/bare/status/${i}` },
      etags: new Map<PollName, string>(),
    }));
    const targets: Target[] = [
      { name: 'this project (own process)', server, base, clients, rssStarted: appStarted },
      { name: 'bare Fastify (own process)', server: bare, base: new URL(bareUrl), clients: bareClients, rssStarted: bareStarted },
    ];
    // Side by side by default. Apart (one server, then the other) when the clients alone would fill
    // the load generator: at 5,000 side by side, both servers answered with the same p99, its own.
    const [app, reference] = options.apart
      ? [...(await drive([targets[0]!], options.seconds)), ...(await drive([targets[1]!], options.seconds))]
      : await drive(targets, options.seconds);
    return { app: app!, bare: reference! };
  } finally {
    await Promise.all([stopChild(server), stopChild(bare)]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
