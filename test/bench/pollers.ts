import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * One load generator of the browser-like section, in a worker thread: it polls for a slice of the
 * clients, each as a browser of the app does. The section runs several, each with its own event loop
 * and heap: one thread driving 10,000 clients spent its time in its own pauses (its event-loop delay
 * p99 was 60–110 ms) and the latencies were its, not the servers'.
 */

/**
 * What a browser of the app polls, and how often (part 2: progress every 5 s, the rest every 10 s).
 * As RTK Query polls: the next poll starts its interval when the previous one has been answered, so a
 * browser never has two of the same poll in flight.
 */
export const POLLS = [
  { name: 'progress', everyMs: 5_000 },
  { name: 'credits', everyMs: 10_000 },
  { name: 'costs', everyMs: 10_000 },
  { name: 'status', everyMs: 10_000 },
] as const;
export type PollName = (typeof POLLS)[number]['name'];

/** What a client sends: its session's headers, and the path of each of its polls. */
export interface PollingClient {
  headers: Record<string, string>;
  paths: Record<PollName, string>;
}

/** A generator's share: for each server, its URL and the generator's clients (the same browsers, in the same order). */
export interface PollersData {
  targets: { base: string; clients: PollingClient[] }[];
  /** Browsers are opened at random moments within this span: their polls are spread over it. */
  spreadMs: number;
}

/** Main thread → generator. */
export type PollersCommand = { type: 'measure' } | { type: 'stop' };

/** What one server's polls gathered over the measured window. */
export interface PollTally {
  latencies: Float64Array;
  answers: number;
  notModified: number;
  errors: number;
  /** Answers other than 304, and failures, by poll: `progress 200` → count. */
  statuses: [string, number][];
}

/** Generator → main thread: `warm` once every client holds the ETag of each of its polls, `result` after `stop`. */
export type PollersReport = { type: 'warm' } | { type: 'result'; tallies: PollTally[]; delayP99Ms: number };

/** The sampling interval of the generator's event-loop delay. */
const DELAY_RESOLUTION_MS = 5;

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

class Tally {
  latencies: number[] = [];
  answers = 0;
  notModified = 0;
  errors = 0;
  readonly statuses = new Map<string, number>();
  /**
   * One keep-alive connection per client, as a browser holds its connection to the app: no poll opens
   * a connection in the steady state (a shared pool kept 256 idle sockets and closed the rest, and at
   * 10,000 clients the connections it kept opening left 24,000 ports in TIME_WAIT).
   */
  readonly agents: http.Agent[];
  /** Each client's ETag of each poll. */
  readonly etags: Map<PollName, string>[];

  constructor(
    readonly base: URL,
    readonly clients: PollingClient[],
  ) {
    this.agents = clients.map(() => new http.Agent({ keepAlive: true, maxSockets: 1 }));
    this.etags = clients.map(() => new Map());
  }

  count(key: string): void {
    this.statuses.set(key, (this.statuses.get(key) ?? 0) + 1);
  }

  result(): PollTally {
    return { latencies: Float64Array.from(this.latencies), answers: this.answers, notModified: this.notModified, errors: this.errors, statuses: [...this.statuses] };
  }
}

function run(data: PollersData, port: NonNullable<typeof parentPort>): void {
  const tallies = data.targets.map((target) => new Tally(new URL(target.base), target.clients));
  let measuring = false;
  let stopped = false;
  const timers = new Set<NodeJS.Timeout>();
  const after = (ms: number, then: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) then();
    }, ms);
    timers.add(timer);
  };

  const pollOnce = async (tally: Tally, i: number, poll: PollName): Promise<void> => {
    const client = tally.clients[i]!;
    const etag = tally.etags[i]!.get(poll);
    const started = process.hrtime.bigint();
    try {
      const answer = await get(tally.agents[i]!, tally.base, client.paths[poll], etag ? { ...client.headers, 'if-none-match': etag } : client.headers);
      if (answer.etag) tally.etags[i]!.set(poll, answer.etag);
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

  const clientCount = Math.min(...tallies.map((tally) => tally.clients.length));
  for (let i = 0; i < clientCount; i += 1) {
    // A browser opened at a random moment: all its polls start then (its components mount together),
    // each on its own interval after; the same browser polls every server at that moment.
    const openedAfter = Math.random() * data.spreadMs;
    for (const tally of tallies) {
      for (const poll of POLLS) {
        const loop = (): void => void pollOnce(tally, i, poll.name).then(() => after(poll.everyMs, loop));
        after(openedAfter, loop);
      }
    }
  }

  const warm = (): boolean => tallies.every((tally) => tally.etags.every((etags) => etags.size >= POLLS.length));
  const warming = setInterval(() => {
    if (!warm()) return;
    clearInterval(warming);
    port.postMessage({ type: 'warm' } satisfies PollersReport);
  }, 500);

  const delay = monitorEventLoopDelay({ resolution: DELAY_RESOLUTION_MS });
  port.on('message', (command: PollersCommand) => {
    if (command.type === 'measure') {
      measuring = true;
      delay.enable();
      return;
    }
    measuring = false;
    stopped = true;
    delay.disable();
    clearInterval(warming);
    for (const timer of timers) clearTimeout(timer);
    for (const tally of tallies) for (const agent of tally.agents) agent.destroy();
    // Each sample is the timer's whole interval: its resolution is not a delay.
    const delayP99Ms = Math.max(0, delay.percentile(99) / 1e6 - DELAY_RESOLUTION_MS);
    port.postMessage({ type: 'result', tallies: tallies.map((tally) => tally.result()), delayP99Ms } satisfies PollersReport);
    port.close();
  });
}

if (parentPort) run(workerData as PollersData, parentPort);
