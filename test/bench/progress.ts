import type { FastifyInstance } from 'fastify';
import { planningDocuments } from '../../src/server/db/schema';
import type { Database } from '../../src/server/db/client';
import { measure, report, startBareFastify, type Measured } from './harness';

const PLAN = Array.from({ length: 8 }, (_, i) => [`## Step ${i + 1}: Step ${i + 1}`, '', `Does part ${i + 1}.`, '', '```bash', `echo step ${i + 1}`, '```', ''].join('\n')).join('\n');
const BUDGET = 0.7;

/**
 * The hot polls against the bare Fastify route, each as a 200 (a poll without If-None-Match) and as a
 * 304 (the poll a browser makes while nothing changes): execution and validation progress (session,
 * Project-Id, an 8-step plan each), the credits balance, a project's costs and its container status.
 * Budget: ≥ 70% of the bare route (ARCHITECTURE.md, "Performance budgets"); a summary at the end flags
 * any below.
 *
 * Each target is measured in slices alternating with the bare route (the run's reference is one
 * measurement at the start), so that load from anything else on the machine weighs on both sides.
 */
export async function benchProgress(app: FastifyInstance, database: Database, base: string, headers: Record<string, string>, reference: Measured, seconds: number): Promise<void> {
  const created = await fetch(`${base}/api/projects`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'progress bench' }),
  });
  const projectId = ((await created.json()) as { id: number }).id;
  await database.db.insert(planningDocuments).values({ projectId, kind: 'implementation', content: PLAN });
  const withProject = { ...headers, 'project-id': String(projectId) };
  const trigger = await app.inject({ method: 'POST', url: '/api/execution/trigger', headers: withProject, payload: { message: 'Start execution' } });
  if (trigger.statusCode !== 200) throw new Error(`trigger failed: ${trigger.body}`);
  await database.db.insert(planningDocuments).values({ projectId, kind: 'validation', content: PLAN });
  const validation = await app.inject({ method: 'POST', url: '/api/validation/trigger', headers: withProject, payload: {} });
  if (validation.statusCode !== 200) throw new Error(`validation trigger failed: ${validation.body}`);

  const polls: Array<{ name: string; url: string; headers: Record<string, string> }> = [
    { name: 'GET /api/execution/progress (8 steps)', url: `${base}/api/execution/progress`, headers: withProject },
    { name: 'GET /api/validation/progress (8 steps)', url: `${base}/api/validation/progress`, headers: withProject },
    { name: 'GET /api/user/credits', url: `${base}/api/user/credits`, headers },
    { name: 'GET /api/projects/{id}/costs', url: `${base}/api/projects/${projectId}/costs`, headers },
    { name: 'GET /api/sandboxes/{id}/status', url: `${base}/api/sandboxes/${projectId}/status`, headers },
  ];
  const bare = await startBareFastify();
  const slices = 2;
  const slice = Math.max(1, Math.round(seconds / slices));
  /** The target and the bare route, alternating: their average requests per second over the slices. */
  const paired = async (name: string, url: string, pollHeaders: Record<string, string>): Promise<[Measured, Measured]> => {
    const runs: Array<[Measured, Measured]> = [];
    for (let i = 0; i < slices; i++) runs.push([await measure(reference.name, bare.url, {}, slice), await measure(name, url, pollHeaders, slice)]);
    const mean = (side: 0 | 1): Measured => {
      const all = runs.map((r) => r[side]);
      return {
        ...all[0]!,
        requestsPerSecond: all.reduce((sum, m) => sum + m.requestsPerSecond, 0) / all.length,
        p50Ms: Math.max(...all.map((m) => m.p50Ms)),
        p99Ms: Math.max(...all.map((m) => m.p99Ms)),
        non2xx: all.reduce((sum, m) => sum + m.non2xx, 0),
      };
    };
    return [mean(0), mean(1)];
  };
  const summary: string[] = [];
  for (const poll of polls) {
    const first = await fetch(poll.url, { headers: poll.headers });
    if (first.status !== 200) throw new Error(`${poll.name} answered ${first.status}: ${await first.text()}`);
    const etag = first.headers.get('etag');
    if (!etag) throw new Error(`${poll.name} answered no ETag`);
    const [bareFull, full] = await paired(`${poll.name} 200`, poll.url, poll.headers);
    report(bareFull, full, BUDGET);
    const [bareNotModified, notModified] = await paired(`${poll.name} 304`, poll.url, { ...poll.headers, 'if-none-match': etag });
    report(bareNotModified, notModified, BUDGET);
    if (full.non2xx !== 0) throw new Error(`${poll.name}: ${full.non2xx} answers were not 200`);
    const ratios = [full.requestsPerSecond / bareFull.requestsPerSecond, notModified.requestsPerSecond / bareNotModified.requestsPerSecond];
    const flags = ratios.some((r) => r < BUDGET) ? '  BELOW BUDGET' : '';
    summary.push(`${poll.name.padEnd(40)} 200 ${(ratios[0]! * 100).toFixed(1).padStart(5)}%   304 ${(ratios[1]! * 100).toFixed(1).padStart(5)}%${flags}`);
  }
  await bare.app.close();
  console.log(`Hot polls against the bare route measured beside each, budget ≥ ${BUDGET * 100}%:`);
  for (const line of summary) console.log(`  ${line}`);
  console.log('');
}
