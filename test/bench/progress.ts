import type { FastifyInstance } from 'fastify';
import { planningDocuments } from '../../src/server/db/schema';
import type { Database } from '../../src/server/db/client';
import { measure, report, type Measured } from './harness';

const PLAN = Array.from({ length: 8 }, (_, i) => [`## Step ${i + 1}: Step ${i + 1}`, '', `Does part ${i + 1}.`, '', '```bash', `echo step ${i + 1}`, '```', ''].join('\n')).join('\n');

/**
 * GET /api/execution/progress (session, Project-Id, an 8-step plan) against the bare Fastify route, as a
 * 200 (a poll without If-None-Match) and as a 304 (the poll the client makes while nothing changes).
 * Budget: ≥ 70% of the bare route (ARCHITECTURE.md, "Performance budgets").
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
  const first = await fetch(`${base}/api/execution/progress`, { headers: withProject });
  const etag = first.headers.get('etag')!;
  const full = await measure('GET /api/execution/progress 200 (8 steps)', `${base}/api/execution/progress`, withProject, seconds);
  report(reference, full, 0.7);
  const notModified = await measure('GET /api/execution/progress 304', `${base}/api/execution/progress`, { ...withProject, 'if-none-match': etag }, seconds);
  report(reference, notModified, 0.7);
}
