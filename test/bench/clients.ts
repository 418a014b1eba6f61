import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ChildProcess } from 'node:child_process';
import { BUILT_SERVER } from './coldStart';
import { cpuMicros, mainThreadCpuMicros, rssBytes, startNode, stopChild, waitForUrl } from './processes';
// A port the kernel picked: a random one could be held by the previous section's 10,000 client connections.
import { freePort } from '../server/helpers/freePort';
import { POLLS, type PollingClient, type PollersCommand, type PollersData, type PollersReport, type PollTally } from './pollers';

/** Browsers are opened at random moments within this span: their polls are spread over it. */
const SPREAD_MS = 5_000;
/** How long a restarted server is left after its first healthy answer before its RSS at rest is read. */
const REST_MS = 5_000;
/** Clients per load generator (a worker thread) and server polled, when BENCH_GENERATORS does not say how many generators. */
const CLIENTS_PER_GENERATOR = 2_500;

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
  /** RSS as the process answered its first request, before any client (the app: at rest after a restart). */
  rssStartedBytes: number;
  /**
   * The load generator's own event-loop delay over the measured window (p99, ms): when it is near the
   * answers' p99, the latencies are the generator's, not the server's.
   */
  generatorDelayP99Ms: number;
}

const percentile = (sorted: Float64Array, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

/** This process's soft limit of open files (`ulimit -n`), from /proc/self/limits. */
function openFilesLimit(): number {
  const match = /^Max open files\s+(\d+|unlimited)/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
  return !match || match[1] === 'unlimited' ? Infinity : Number(match[1]);
}

/** One server polled by the browser-like clients: its process, its URL and its clients' paths and sessions. */
interface Target {
  name: string;
  server: ChildProcess;
  base: URL;
  clients: PollingClient[];
  rssStarted: number;
}

/** A worker thread does not inherit tsx's loader (the bench runs through tsx): it registers it, then loads `pollers.ts`. */
const GENERATOR_SOURCE = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(new URL('./pollers.ts', import.meta.url).href)}); });`;

/**
 * How many load generators drive `clients` clients polling `servers` servers: BENCH_GENERATORS, else
 * one per 2,500 clients per server (at 5,000 side by side, two left their timers 16 ms late at p99).
 */
function generatorCount(clients: number, servers: number): number {
  const wanted = Number(process.env.BENCH_GENERATORS ?? Math.ceil((clients * servers) / CLIENTS_PER_GENERATOR));
  return Math.max(1, Math.min(clients, Number.isInteger(wanted) ? wanted : 1));
}

/** A load generator in a worker thread, and the reports it has sent. */
class Generator {
  readonly worker: Worker;
  readonly warm: Promise<void>;
  readonly result: Promise<Extract<PollersReport, { type: 'result' }>>;

  constructor(data: PollersData) {
    this.worker = new Worker(GENERATOR_SOURCE, { eval: true, workerData: data });
    const reports = (type: PollersReport['type']): Promise<PollersReport> =>
      new Promise((resolve, reject) => {
        const onMessage = (report: PollersReport): void => {
          if (report.type !== type) return;
          this.worker.off('message', onMessage);
          resolve(report);
        };
        this.worker.on('message', onMessage);
        this.worker.once('error', reject);
        this.worker.once('exit', (code) => reject(new Error(`a load generator exited with ${code} before it reported ${type}`)));
      });
    this.warm = reports('warm').then(() => undefined);
    this.result = reports('result') as Promise<Extract<PollersReport, { type: 'result' }>>;
    // Not every run waits for warmth: an unanswered rejection must not end the bench.
    this.warm.catch(() => undefined);
  }

  send(command: PollersCommand): void {
    this.worker.postMessage(command);
  }
}

/** Every generator's tally of one server, as one. */
function merge(tallies: PollTally[]): { latencies: Float64Array; answers: number; notModified: number; errors: number; statuses: Map<string, number> } {
  const latencies = new Float64Array(tallies.reduce((n, tally) => n + tally.latencies.length, 0));
  let offset = 0;
  const statuses = new Map<string, number>();
  for (const tally of tallies) {
    latencies.set(tally.latencies, offset);
    offset += tally.latencies.length;
    for (const [key, count] of tally.statuses) statuses.set(key, (statuses.get(key) ?? 0) + count);
  }
  latencies.sort();
  const sum = (field: 'answers' | 'notModified' | 'errors'): number => tallies.reduce((n, tally) => n + tally[field], 0);
  return { latencies, answers: sum('answers'), notModified: sum('notModified'), errors: sum('errors'), statuses };
}

/**
 * Runs the browser-like clients against every target at once: each client's polls go to each server
 * at nearly the same moment (each server's answer starts that server's next interval), for a warm-up
 * (every client gets its ETags), then `seconds` measured: latencies of every answer, and each server's
 * CPU and RSS over the same window. Measured side by side, the servers share whatever else the machine
 * is doing, so their ratio holds on a noisy machine (one after the other, it moved by ±0.3 between runs).
 * The clients are shared out among load generators, each a worker thread (`pollers.ts`).
 */
async function drive(targets: Target[], seconds: number): Promise<ClientsResult[]> {
  const clientCount = Math.min(...targets.map((target) => target.clients.length));
  const count = generatorCount(clientCount, targets.length);
  const generators = Array.from(
    { length: count },
    (_, g) =>
      new Generator({
        targets: targets.map((target) => ({ base: target.base.toString(), clients: target.clients.slice(0, clientCount).filter((_, i) => i % count === g) })),
        spreadMs: SPREAD_MS,
      }),
  );
  try {
    // Steady state: every client holds the ETag of each of its polls (or the warm-up has taken too long),
    // then one more of the longest interval, so that what the first polls loaded has settled.
    const longest = Math.max(...POLLS.map((poll) => poll.everyMs));
    const warmUpMs = Number(process.env.BENCH_WARMUP_SECONDS ?? 120) * 1000;
    await Promise.race([Promise.all(generators.map((generator) => generator.warm)), new Promise((resolve) => setTimeout(resolve, warmUpMs))]);
    await new Promise((resolve) => setTimeout(resolve, longest));
    for (const generator of generators) generator.send({ type: 'measure' });
    const before = targets.map((target) => ({ cpu: cpuMicros(target.server.pid!), main: mainThreadCpuMicros(target.server.pid!) }));
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    const after = targets.map((target) => ({ cpu: cpuMicros(target.server.pid!), main: mainThreadCpuMicros(target.server.pid!), rss: rssBytes(target.server.pid!) }));
    for (const generator of generators) generator.send({ type: 'stop' });
    const reports = await Promise.all(generators.map((generator) => generator.result));
    const generatorDelayP99Ms = Math.max(...reports.map((report) => report.delayP99Ms));
    return targets.map((target, t): ClientsResult => {
      const tally = merge(reports.map((report) => report.tallies[t]!));
      if (tally.statuses.size) console.log(`${target.name}: answers other than 304: ${[...tally.statuses].map(([k, v]) => `${k} ×${v}`).join(', ')}`);
      const { cpu, main, rss } = after[t]!;
      return {
        name: target.name,
        clients: target.clients.length,
        answers: tally.answers,
        notModified: tally.notModified,
        errors: tally.errors,
        p50Ms: percentile(tally.latencies, 50),
        p99Ms: percentile(tally.latencies, 99),
        cpuMicrosPerAnswer: tally.answers ? (cpu - before[t]!.cpu) / tally.answers : Infinity,
        mainThreadCpuMicrosPerAnswer: tally.answers ? (main - before[t]!.main) / tally.answers : Infinity,
        rssBytes: rss,
        rssPerClientBytes: rss / target.clients.length,
        rssStartedBytes: target.rssStarted,
        generatorDelayP99Ms,
      };
    });
  } finally {
    await Promise.all(generators.map((generator) => generator.worker.terminate()));
  }
}

/** Signs `count` users in (each its own installation and session) and gives each a project. */
async function signInClients(base: URL, count: number): Promise<PollingClient[]> {
  const clients: PollingClient[] = [];
  const one = async (i: number): Promise<PollingClient> => {
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

/** An app server started for the section, on its own data directory (and log). */
interface AppServer {
  server: ChildProcess;
  base: URL;
  dataDir: string;
  /** RSS as it answered its first request, before any client. */
  rssStarted: number;
}

/**
 * Starts the app's server as `npm run serve` does when there is a build (`npm run build:server`), else
 * from its sources through tsx; `env` adds to the section's (LOG_LEVEL, DATABASE_URL). `restarted`:
 * started once on the new data directory, stopped, and started again on it, so that `rssStarted` is the
 * server at rest as it runs day to day (a first start's peak leaves memory the process keeps a while).
 */
async function startApp(serverDir: string, env: Record<string, string>, nodeArgs: string[], restarted = false): Promise<AppServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-bench-clients-'));
  const built = fs.existsSync(path.join(serverDir, BUILT_SERVER));
  const launch = async (): Promise<{ server: ChildProcess; base: URL }> => {
    const port = await freePort();
    const server = startNode(built ? BUILT_SERVER : 'src/server/server.ts', {
      cwd: serverDir,
      env: { PORT: String(port), DATA_DIR: dataDir, STATIC_DIR: path.join(dataDir, 'no-client'), LOGIN_RATE_LIMIT_PER_MINUTE: '100000', ...env },
      logFile: path.join(dataDir, 'server.log'),
      nodeArgs,
      tsx: !built,
    });
    const base = new URL(`http://127.0.0.1:${port}`);
    try {
      await waitForUrl(new URL('/api/health', base).toString(), 120_000, server);
    } catch (err) {
      await stopApp({ server, dataDir });
      throw err;
    }
    return { server, base };
  };
  let started = await launch();
  if (restarted) {
    await stopChild(started.server);
    started = await launch();
    await new Promise((resolve) => setTimeout(resolve, REST_MS));
  }
  return { ...started, dataDir, rssStarted: rssBytes(started.server.pid!) };
}

async function stopApp(app: Pick<AppServer, 'server' | 'dataDir'>): Promise<void> {
  await stopChild(app.server);
  fs.rmSync(app.dataDir, { recursive: true, force: true });
}

/** Fails at once, naming the fix, when the clients' connections would not fit this process's descriptors. */
function checkOpenFiles(connections: number, hint: string): void {
  const limit = openFilesLimit();
  if (connections + 500 > limit) throw new Error(`${connections} connections and this process may open ${limit} files: raise \`ulimit -n\`${hint}`);
}

/** BENCH_CPU_PROF_DIR: every server writes a V8 CPU profile there when it stops (open it in Chrome's DevTools). */
function profileArgs(): string[] {
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  const extra = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir)}`] : []), ...extra];
}

/**
 * The browser-like section: the app's server (built, as `npm run serve` starts it, else its sources
 * through tsx; default LOG_LEVEL) and a bare Fastify server, each in its own process, polled by the
 * same clients the same way at the same time.
 */
export async function benchClients(options: ClientsOptions): Promise<{ app: ClientsResult; bare: ClientsResult }> {
  // Each client holds a connection to each server it polls at once, and each is a descriptor here.
  checkOpenFiles(options.clients * (options.apart ? 1 : 2), options.apart ? '' : ' or poll one server after the other (BENCH_CLIENTS_APART=1)');
  const nodeArgs = profileArgs();
  const app = await startApp(options.serverDir, options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}, nodeArgs, true);
  const bareLog = path.join(app.dataDir, 'bare.log');
  const bare = startNode(path.resolve('test/bench/bareServer.ts'), { cwd: process.cwd(), env: {}, logFile: bareLog, nodeArgs });
  try {
    let bareUrl = '';
    for (let i = 0; i < 600 && !bareUrl; i += 1) {
      // Its URL is its first line of its own; node's flags (--trace-gc) may write theirs to the same log.
      bareUrl = fs.readFileSync(bareLog, 'utf8').split('\n').find((line) => line.startsWith('http://')) ?? '';
      if (!bareUrl) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const bareStarted = rssBytes(bare.pid!);
    const clients = await signInClients(app.base, options.clients);
    const bareClients = clients.map((client, i) => ({
      headers: client.headers,
      paths: { progress: `/bare/progress/${i}`, credits: `/bare/credits/${i}`, costs: `/bare/costs/${i}`, status: `/bare/status/${i}` },
    }));
    const targets: Target[] = [
      { name: 'this project (own process)', server: app.server, base: app.base, clients, rssStarted: app.rssStarted },
      { name: 'bare Fastify (own process)', server: bare, base: new URL(bareUrl), clients: bareClients, rssStarted: bareStarted },
    ];
    // Side by side by default. Apart (one server, then the other) when the clients alone would fill
    // the machine: at 5,000 side by side, both servers answered with the same p99, the generator's.
    const [measured, reference] = options.apart
      ? [...(await drive([targets[0]!], options.seconds)), ...(await drive([targets[1]!], options.seconds))]
      : await drive(targets, options.seconds);
    return { app: measured!, bare: reference! };
  } finally {
    await Promise.all([stopApp(app), stopChild(bare)]);
  }
}

/**
 * What per-request logging costs: the same build twice, at the default LOG_LEVEL and with logging off
 * (LOG_LEVEL=silent), each on its own PGlite, polled side by side by the same browser-like clients.
 */
export async function benchLogging(options: Pick<ClientsOptions, 'clients' | 'seconds' | 'serverDir'>): Promise<{ logging: ClientsResult; silent: ClientsResult }> {
  checkOpenFiles(options.clients * 2, '');
  const nodeArgs = profileArgs();
  const apps = await Promise.all([startApp(options.serverDir, {}, nodeArgs), startApp(options.serverDir, { LOG_LEVEL: 'silent' }, nodeArgs)]);
  try {
    const targets = await Promise.all(
      apps.map(async (app, i): Promise<Target> => ({
        name: i === 0 ? 'default LOG_LEVEL (own process)' : 'LOG_LEVEL=silent (own process)',
        server: app.server,
        base: app.base,
        clients: await signInClients(app.base, options.clients),
        rssStarted: app.rssStarted,
      })),
    );
    const [logging, silent] = await drive(targets, options.seconds);
    return { logging: logging!, silent: silent! };
  } finally {
    await Promise.all(apps.map(stopApp));
  }
}
