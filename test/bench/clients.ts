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

/**
 * Runs `clients` browser-like clients against one server process for a warm-up tick pair (every client
 * gets its ETags), then `seconds` measured: latencies of every answer, and the server's CPU and RSS.
 */
async function drive(name: string, server: ChildProcess, base: URL, clients: Client[], seconds: number, rssStarted: number): Promise<ClientsResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients.length + 10 });
  const latencies: number[] = [];
  let measuring = false;
  let answers = 0;
  let notModified = 0;
  let errors = 0;
  const timers: NodeJS.Timeout[] = [];
  const statuses = new Map<string, number>();

  const pollOnce = async (client: Client, poll: PollName): Promise<void> => {
    const etag = client.etags.get(poll);
    const started = process.hrtime.bigint();
    try {
      const answer = await get(agent, base, client.paths[poll], etag ? { ...client.headers, 'if-none-match': etag } : client.headers);
      if (answer.etag) client.etags.set(poll, answer.etag);
      if (!measuring) return;
      if (answer.status !== 200 && answer.status !== 304) {
        errors += 1;
        statuses.set(`${poll} ${answer.status}`, (statuses.get(`${poll} ${answer.status}`) ?? 0) + 1);
      }
      if (answer.status === 200) statuses.set(`${poll} 200`, (statuses.get(`${poll} 200`) ?? 0) + 1);
      answers += 1;
      if (answer.status === 304) notModified += 1;
      latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
    } catch (err) {
      if (measuring) {
        errors += 1;
        statuses.set(`${poll} ${(err as Error).message}`, (statuses.get(`${poll} ${(err as Error).message}`) ?? 0) + 1);
      }
    }
  };

  for (const client of clients) {
    let tick = 0;
    const run = (): void => {
      for (const poll of POLLS) if (tick % poll.everyTicks === 0) void pollOnce(client, poll.name);
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
  while (Date.now() < warmUntil && clients.some((client) => client.etags.size < POLLS.length)) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  await new Promise((resolve) => setTimeout(resolve, 2 * TICK_MS));
  measuring = true;
  const cpuBefore = cpuMicros(server.pid!);
  const mainBefore = mainThreadCpuMicros(server.pid!);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const cpuAfter = cpuMicros(server.pid!);
  const mainAfter = mainThreadCpuMicros(server.pid!);
  measuring = false;
  const rss = rssBytes(server.pid!);
  for (const timer of timers) clearTimeout(timer);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  if (statuses.size) console.log(`${name}: answers other than 304: ${[...statuses].map(([k, v]) => `${k} ×${v}`).join(', ')}`);
  return {
    name,
    clients: clients.length,
    answers,
    notModified,
    errors,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    cpuMicrosPerAnswer: answers ? (cpuAfter - cpuBefore) / answers : Infinity,
    mainThreadCpuMicrosPerAnswer: answers ? (mainAfter - mainBefore) / answers : Infinity,
    rssBytes: rss,
    rssPerClientBytes: rss / clients.length,
    rssStartedBytes: rssStarted,
  };
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
}

/**
 * The browser-like section: the app's server (built, as `npm run serve` starts it, else its sources
 * through tsx; default LOG_LEVEL) and a bare
 * Fastify server, each in its own process, polled by the same number of clients the same way.
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
    const app = await drive('this project (own process)', server, base, clients, options.seconds, appStarted);
    const bareClients = clients.map((client, i) => ({
      headers: client.headers,
      paths: { progress: `/bare/progress/${i}`, credits: `/bare/credits/${i}`, costs: `/bare/costs/${i}`, status: `/bare/status/${i}` },
      etags: new Map<PollName, string>(),
    }));
    const reference = await drive('bare Fastify (own process)', bare, new URL(bareUrl), bareClients, options.seconds, bareStarted);
    return { app, bare: reference };
  } finally {
    await Promise.all([stopChild(server), stopChild(bare)]);
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
