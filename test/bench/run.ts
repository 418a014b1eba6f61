import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/config';
import { openDatabase } from '../../src/server/db/client';
import { measure, report, startBareFastify } from './harness';
import { benchTerminal } from './terminal';
import { benchStream } from './stream';
import { benchActivity } from './activity';
import { benchProgress } from './progress';
import { benchClients, benchLogging } from './clients';
import { killChildren } from './processes';
import { addRow, printSummary } from './summary';
import { benchColdStart } from './coldStart';
import { benchLighthouse } from './lighthouse';
import { benchMemory, type Spread } from './memory';

/** Budgets of ARCHITECTURE.md ("Performance budgets"). */
const CPU_PER_ANSWER_BUDGET = 1.5;
const P99_BUDGET_MS = 50;
const COLD_START_BUDGET = 1.5;
const LCP_BUDGET_MS = 2_500;
/** The browser-like section polls both servers at once up to this many clients, one after the other above. */
const SIDE_BY_SIDE_CLIENTS = 2_500;
/** Per-request logging at the default level: CPU per answer at most 5% above the same server's with logging off. */
const LOGGING_BUDGET = 1.05;
/** Memory (issue 29): at rest on an existing PGlite data directory, on PostgreSQL, a first start's peak, and what 1,000 polling clients add. */
const REST_RSS_BUDGET = 200 * 2 ** 20;
const POSTGRES_REST_RSS_BUDGET = 120 * 2 ** 20;
const FIRST_START_PEAK_BUDGET = 500 * 2 ** 20;
const PER_THOUSAND_CLIENTS_BUDGET = 100 * 2 ** 20;
/**
 * The browser-like sections' measured window (BENCH_CLIENT_SECONDS): a whole minute, so that it always
 * holds one of the server's periodic writes of its sessions' last use (one statement a minute for every
 * session polled, sessionStore.flushLastSeen: some 25 ms of the server's CPU for 1,000 sessions, perf).
 * A 30 s window held it or not by chance, about 3% of the CPU per answer from run to run for nothing
 * the polls did differently.
 */
const CLIENT_SECONDS = 60;
/** Beyond it, part of the browser-like section's latencies are the load generators' own (they cannot keep up). */
const GENERATOR_DELAY_WARNING_MS = 10;

/**
 * `npm run bench -- --clients=5000,10000`: the client counts of the browser-like section, one run each
 * (BENCH_CLIENTS, or 1,000, without the argument).
 */
function clientCounts(): number[] {
  const argument = process.argv.find((a) => a.startsWith('--clients='))?.slice('--clients='.length);
  const counts = (argument ?? process.env.BENCH_CLIENTS ?? '1000').split(',').map(Number);
  if (counts.some((n) => !Number.isInteger(n) || n < 1 || n > 50_000)) throw new Error(`--clients: whole numbers from 1 to 50000, comma-separated (got ${argument})`);
  return counts;
}

/** The browser-like section: the app and a bare Fastify, each in its own process, polled by the same clients side by side. */
async function clientsSection(clients: number): Promise<void> {
  const seconds = Number(process.env.BENCH_CLIENT_SECONDS ?? CLIENT_SECONDS);
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  // Side by side up to SIDE_BY_SIDE_CLIENTS: above, two servers and their load generators do not fit on
  // this machine's two cores together (at 5,000 the app's CPU per answer read 1.63–1.67× the bare
  // route's side by side and 1.24–1.30× apart). BENCH_CLIENTS_APART=0 or 1 decides.
  const apart = process.env.BENCH_CLIENTS_APART ? process.env.BENCH_CLIENTS_APART === '1' : clients > SIDE_BY_SIDE_CLIENTS;
  const { app, bare } = await benchClients({ clients, seconds, databaseUrl, serverDir: process.env.BENCH_SERVER_DIR ?? process.cwd(), apart });
  const database = databaseUrl ? 'PostgreSQL' : 'PGlite';
  console.log(`\nBrowser-like clients — ${clients} sessions on ${database}, default LOG_LEVEL, ${seconds} s measured, ${apart ? 'one server after the other' : 'both servers at once'}`);
  for (const r of [app, bare]) {
    console.log(
      `${r.name.padEnd(30)} ${r.answers} answers (${r.notModified} 304)  errors ${r.errors}  p50 ${r.p50Ms.toFixed(1)} ms  p99 ${r.p99Ms.toFixed(1)} ms  ` +
        `CPU ${r.cpuMicrosPerAnswer.toFixed(0)} µs/answer (main thread ${r.mainThreadCpuMicrosPerAnswer.toFixed(0)})  RSS ${(r.rssBytes / 2 ** 20).toFixed(0)} MiB (${(r.rssPerClientBytes / 1024).toFixed(1)} KiB/client; ` +
        `${(r.rssStartedBytes / 2 ** 20).toFixed(0)} MiB as it started)  load generator's event-loop delay p99 ${r.generatorDelayP99Ms.toFixed(1)} ms`,
    );
  }
  const cpuRatio = app.cpuMicrosPerAnswer / bare.cpuMicrosPerAnswer;
  addRow({
    measure: `server CPU per answer, ${clients} clients (${database})`,
    project: `${app.cpuMicrosPerAnswer.toFixed(0)} µs`,
    reference: `${bare.cpuMicrosPerAnswer.toFixed(0)} µs`,
    ratio: cpuRatio,
    // A ratio of two windows minutes apart moves by ±0.3 on this shared machine (10,000 clients on
    // PostgreSQL: 1.46, then 1.80, same build): the budget is judged where both are measured at once.
    budget: apart ? `reported (apart; ≤ ${CPU_PER_ANSWER_BUDGET} side by side)` : `≤ ${CPU_PER_ANSWER_BUDGET}`,
    met: apart || cpuRatio <= CPU_PER_ANSWER_BUDGET,
  });
  addRow({
    measure: `p99, ${clients} clients (${database})`,
    project: `${app.p99Ms.toFixed(1)} ms`,
    reference: `${bare.p99Ms.toFixed(1)} ms`,
    ratio: app.p99Ms / Math.max(bare.p99Ms, 0.1),
    budget: `< ${P99_BUDGET_MS} ms`,
    met: app.p99Ms < P99_BUDGET_MS && app.errors === 0,
  });
  // The latencies are the server's only while the load generators keep their own timers on time.
  addRow({
    measure: `load generator's event-loop delay p99, ${clients} clients`,
    project: `${app.generatorDelayP99Ms.toFixed(1)} ms`,
    reference: `${bare.generatorDelayP99Ms.toFixed(1)} ms`,
    ratio: null,
    budget: 'reported',
    met: true,
  });
  if (app.p99Ms >= P99_BUDGET_MS && app.generatorDelayP99Ms >= GENERATOR_DELAY_WARNING_MS) {
    const hint = apart ? 'the bare route beside it shows what this machine can drive' : 'BENCH_CLIENTS_APART=1 polls one server at a time';
    console.log(`p99 missed while the load generators were ${app.generatorDelayP99Ms.toFixed(0)} ms late (p99): part of it is theirs (${hint})`);
  }
  // The app was restarted on its data directory before the clients came (clients.ts, startApp): what
  // it holds beyond that is theirs (their sessions, connections and cached answers).
  const perThousand = (r: typeof app): number => ((r.rssBytes - r.rssStartedBytes) * 1000) / clients;
  addRow({
    measure: `RSS added by the clients, per 1,000 (${clients} clients, ${database})`,
    project: mib(perThousand(app)),
    reference: mib(perThousand(bare)),
    ratio: null,
    budget: `≤ ${mib(PER_THOUSAND_CLIENTS_BUDGET)}`,
    met: perThousand(app) <= PER_THOUSAND_CLIENTS_BUDGET,
  });
}

const mib = (bytes: number): string => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/** The memory section: the app's server against the minimal Fastify + PGlite reference, started alike (memory.ts). */
async function memorySection(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  const { app, reference, postgres, label, runs } = await benchMemory(process.env.BENCH_SERVER_DIR ?? process.cwd(), databaseUrl);
  const shown = (s: Spread): string => `${mib(s.median)} (${(s.min / 2 ** 20).toFixed(0)}–${(s.max / 2 ** 20).toFixed(0)})`;
  console.log(`\nMemory (PGlite, ${label}, medians and spread of ${runs} runs; RSS read ${process.env.BENCH_MEMORY_REST_SECONDS ?? 5} s after the first healthy answer)`);
  for (const [name, f] of [
    ['this project', app],
    ['reference (Fastify + PGlite)', reference],
  ] as const) {
    console.log(`${name.padEnd(30)} first start: peak ${shown(f.firstStartPeak)}, at rest ${shown(f.firstStartRest)}; existing data dir: at rest ${shown(f.rest)}, peak ${shown(f.restPeak)}`);
  }
  const rows: [string, Spread, Spread, number][] = [
    ['RSS at rest, existing data dir (PGlite)', app.rest, reference.rest, REST_RSS_BUDGET],
    ['RSS peak, first start on a new data dir (PGlite)', app.firstStartPeak, reference.firstStartPeak, FIRST_START_PEAK_BUDGET],
  ];
  for (const [measure, ours, theirs, budget] of rows) {
    addRow({ measure, project: shown(ours), reference: shown(theirs), ratio: ours.median / theirs.median, budget: `≤ ${mib(budget)}`, met: ours.max <= budget });
  }
  if (postgres) {
    console.log(`${'this project on PostgreSQL'.padEnd(30)} at rest ${shown(postgres)}`);
    addRow({ measure: 'RSS at rest (PostgreSQL)', project: shown(postgres), reference: '—', ratio: null, budget: `≤ ${mib(POSTGRES_REST_RSS_BUDGET)}`, met: postgres.max <= POSTGRES_REST_RSS_BUDGET });
  } else {
    console.log('(BENCH_DATABASE_URL=postgres://… adds the figure on PostgreSQL)');
  }
}

/** What per-request logging costs at the default level: the same server with logging off beside it. */
async function loggingSection(): Promise<void> {
  const clients = Number(process.env.BENCH_LOGGING_CLIENTS ?? 1000);
  const seconds = Number(process.env.BENCH_CLIENT_SECONDS ?? CLIENT_SECONDS);
  const { logging, silent } = await benchLogging({ clients, seconds, serverDir: process.env.BENCH_SERVER_DIR ?? process.cwd() });
  console.log(`\nPer-request logging — ${clients} browser-like clients on PGlite, ${seconds} s measured, both servers at once`);
  for (const r of [logging, silent]) {
    console.log(`${r.name.padEnd(32)} ${r.answers} answers (${r.notModified} 304)  errors ${r.errors}  p99 ${r.p99Ms.toFixed(1)} ms  CPU ${r.cpuMicrosPerAnswer.toFixed(0)} µs/answer`);
  }
  const ratio = logging.cpuMicrosPerAnswer / silent.cpuMicrosPerAnswer;
  addRow({
    measure: `server CPU per answer, default LOG_LEVEL against silent (${clients} clients)`,
    project: `${logging.cpuMicrosPerAnswer.toFixed(0)} µs`,
    reference: `${silent.cpuMicrosPerAnswer.toFixed(0)} µs`,
    ratio,
    budget: `≤ ${LOGGING_BUDGET}`,
    met: ratio <= LOGGING_BUDGET && logging.errors === 0 && silent.errors === 0,
  });
}

/** Cold start on PGlite, on a new data directory and on an existing one, against the minimal reference. */
async function coldStartSection(): Promise<void> {
  const { app, reference, script, starts } = await benchColdStart(process.env.BENCH_SERVER_DIR ?? process.cwd());
  console.log(
    `\nCold start (PGlite, ${script}, medians of ${starts} starts each): this project ${app.newDirMs} ms new / ${app.existingDirMs} ms existing, RSS ${(app.rssBytes / 2 ** 20).toFixed(0)} MiB; ` +
      `reference ${reference.newDirMs} ms / ${reference.existingDirMs} ms, RSS ${(reference.rssBytes / 2 ** 20).toFixed(0)} MiB`,
  );
  for (const [label, ours, theirs] of [
    ['new data dir', app.newDirMs, reference.newDirMs],
    ['existing data dir', app.existingDirMs, reference.existingDirMs],
  ] as const) {
    addRow({
      measure: `cold start, ${label} (PGlite)`,
      project: `${ours} ms`,
      reference: `${theirs} ms`,
      ratio: ours / theirs,
      budget: `≤ ${COLD_START_BUDGET}`,
      met: ours / theirs <= COLD_START_BUDGET,
    });
  }
  addRow({
    measure: 'RSS after the first start (PGlite)',
    project: `${(app.rssBytes / 2 ** 20).toFixed(0)} MiB`,
    reference: `${(reference.rssBytes / 2 ** 20).toFixed(0)} MiB`,
    ratio: app.rssBytes / reference.rssBytes,
    budget: 'reported',
    met: true,
  });
}

/** Lighthouse mobile on the landing page of the built app, with Debian's chromium. */
async function lighthouseSection(): Promise<void> {
  const result = await benchLighthouse(process.env.BENCH_SERVER_DIR ?? process.cwd());
  console.log(`\nLighthouse mobile (median of 3): LCP ${(result.lcpMs / 1000).toFixed(2)} s, FCP ${(result.fcpMs / 1000).toFixed(2)} s; largest element ${result.lcpElement}`);
  addRow({
    measure: 'Lighthouse mobile LCP, landing page',
    project: `${(result.lcpMs / 1000).toFixed(2)} s`,
    reference: '—',
    ratio: null,
    budget: `≤ ${LCP_BUDGET_MS / 1000} s`,
    met: result.lcpMs <= LCP_BUDGET_MS,
  });
  addRow({ measure: 'Lighthouse mobile FCP, landing page', project: `${(result.fcpMs / 1000).toFixed(2)} s`, reference: '—', ratio: null, budget: 'reported', met: true });
}

/**
 * `npm run bench`: the real server's routes against a bare Fastify JSON route measured in the same
 * run on the same machine, printed as ratios (ARCHITECTURE.md, "Performance budgets").
 */
async function main(): Promise<void> {
  // A hung section (a leftover pty, a server that never answers) ends the run: children killed, exit 2.
  const timeoutMs = Number(process.env.BENCH_TIMEOUT_SECONDS ?? 900) * 1000;
  setTimeout(() => {
    console.error(`bench: timed out after ${timeoutMs / 1000} s`);
    killChildren();
    process.exit(2);
  }, timeoutMs).unref();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      killChildren();
      process.exit(130);
    });
  }
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  // BENCH_ONLY=terminal,stream runs some sections (memory, clients, logging, cold, lighthouse, projects, progress, terminal, stream, activity); all by default.
  const only = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
  const wanted = (section: string): boolean => only.length === 0 || only.includes(section);
  if (wanted('memory')) await memorySection();
  if (wanted('clients')) for (const clients of clientCounts()) await clientsSection(clients);
  if (wanted('logging')) await loggingSection();
  if (wanted('cold')) await coldStartSection();
  if (wanted('lighthouse')) await lighthouseSection();
  if (only.length && only.every((section) => ['memory', 'clients', 'logging', 'cold', 'lighthouse'].includes(section))) {
    process.exitCode = printSummary() ? 0 : 1;
    return;
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-bench-'));
  const database = await openDatabase({ migrationsDir: 'migrations', dataDir });
  const app = await buildApp({ config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), database, logger: false });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const bare = await startBareFastify();
  try {
    const login = await fetch(`${base}/api/github/local-login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'bench' }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const { installation_id } = (await login.json()) as { installation_id: number };
    const headers = { cookie, 'installation-id': String(installation_id) };
    for (let i = 0; i < 20; i++) {
      await fetch(`${base}/api/projects`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `project ${i}`, description: 'benchmark project' }),
      });
    }
    console.log(`\nDevOps Agents bench — ${seconds} s per target, 10 connections, database ${database.kind}\n`);
    await measure('warm-up', bare.url, {}, 1);
    const reference = await measure('bare Fastify JSON route (20 items)', bare.url, {}, seconds);
    if (wanted('projects')) report(reference, await measure('GET /api/projects (session, 20 projects)', `${base}/api/projects`, headers, seconds));
    if (wanted('progress')) await benchProgress(app, database, base, headers, reference, seconds);
    if (wanted('terminal')) await benchTerminal(app, base, headers);
    if (wanted('stream')) await benchStream(database, dataDir);
    // Last: it adds 100,000 activities to the bench's database.
    if (wanted('activity')) await benchActivity(database, installation_id);
  } finally {
    await bare.app.close();
    app.services.terminals.close();
    await app.close();
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main()
  .then(() => {
    if (process.exitCode === undefined) process.exitCode = printSummary() ? 0 : 1;
    // Whatever a section left open (sockets, timers) must not keep the bench alive.
    setTimeout(() => process.exit(), 1_000);
    killChildren();
  })
  .catch((err) => {
    console.error(err);
    killChildren();
    process.exit(1);
  });
