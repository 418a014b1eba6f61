import autocannon from 'autocannon';
import Fastify, { type FastifyInstance } from 'fastify';

export interface Measured {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

/** Runs autocannon against one URL on loopback for a bounded time. */
export async function measure(name: string, url: string, headers: Record<string, string> = {}, seconds = 5): Promise<Measured> {
  const result = await autocannon({ url, headers, connections: 10, duration: seconds, pipelining: 1 });
  return {
    name,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
  };
}

/** The reference: a bare Fastify JSON route with no plugins, in the same process and run. */
export async function startBareFastify(): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false });
  const payload = Array.from({ length: 20 }, (_, i) => ({ id: i, name: `project ${i}`, description: null, created_at: new Date().toISOString(), updated_at: new Date().toISOString() }));
  app.get('/bare', async () => payload);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { app, url: `${address}/bare` };
}

export function report(reference: Measured, subject: Measured, budget?: number): boolean {
  const ratio = subject.requestsPerSecond / reference.requestsPerSecond;
  const row = (m: Measured): string =>
    `${m.name.padEnd(44)} ${m.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${String(m.p50Ms).padStart(4)} ms   p99 ${String(m.p99Ms).padStart(4)} ms   non-2xx ${m.non2xx}`;
  console.log(row(reference));
  console.log(row(subject));
  const verdict = budget === undefined ? '' : ratio >= budget ? `  (budget ≥ ${budget}: met)` : `  (budget ≥ ${budget}: NOT met)`;
  console.log(`ratio ${subject.name} / ${reference.name}: ${(ratio * 100).toFixed(1)}%${verdict}\n`);
  return budget === undefined || ratio >= budget;
}
