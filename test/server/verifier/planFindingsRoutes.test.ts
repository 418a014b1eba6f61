import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ArchitecturePlanResponse } from '../../../src/shared/api/planning';
import { MAX_PLAN_REVISIONS } from '../../../src/server/services/planning/planVerification';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { startModelWireServer, type ModelWireServer } from '../helpers/modelWireServer';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

/**
 * The verifier between a plan and the person: a model's saved plan is verified, the findings go back to
 * the model to revise (a bounded number of times), are returned with the plan, and an error refuses
 * the confirm with 409.
 */

const planWith = (compose: string): string =>
  ['# Cloud Architecture Plan', '', '## docker-compose.yml', '', '```yaml', compose.trimEnd(), '```', '', '## Secrets', '', '- `REDIS_PASSWORD`: the cache password', ''].join('\n');

const BAD = planWith(`services:
  caddy:
    image: caddy:2.8.4-alpine
    ports: ['80:80']
  redis:
    image: redis:7.4.1-alpine
    command: ['redis-server', '--requirepass', '\${REDIS_PASSWORD}']
    ports: ['80:6379']
`);
const GOOD = planWith(`services:
  caddy:
    image: caddy:2.8.4-alpine
    ports: ['80:80']
  redis:
    image: redis:7.4.1-alpine
    command: ['redis-server', '--requirepass', '\${REDIS_PASSWORD}']
`);

describe('plan findings through the API', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let wire: ModelWireServer;
  let alice: TestUser;
  let projectId: number;

  const headers = (): Record<string, string> => ({ ...alice.headers, 'project-id': String(projectId) });
  const architect = async (message: string): Promise<void> => {
    const r = await app.inject({ method: 'POST', url: '/api/planning/cloud-architect', headers: headers(), payload: { message } });
    expect(r.statusCode).toBe(200);
  };
  const architecturePlan = async (): Promise<ArchitecturePlanResponse> => (await app.inject({ method: 'GET', url: '/api/planning/architecture-plan', headers: headers() })).json();
  const confirm = () => app.inject({ method: 'PUT', url: `/api/project-states/${projectId}/stages/architecture`, headers: alice.headers, payload: { is_completed: true } });
  /** The tool answers the model read back, in order. */
  const toolAnswers = (): string[] =>
    wire.requests.flatMap((r) => ((r.body.messages as Array<{ role: string; content: unknown }> | undefined) ?? []).filter((m) => m.role === 'tool').map((m) => String(m.content))).filter((t, i, all) => all.indexOf(t) === i);

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-findings-'));
    database = await openTestDatabase('pglite');
    wire = await startModelWireServer();
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, MODEL_PROVIDER: 'openai', OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: `${wire.url}/v1` } });
    alice = await signIn(app, 'alice');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Findings' } })).json().id;
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    await wire.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a model that keeps saving a plan with errors gets them back to revise, then is told to stop and say what is left', async () => {
    for (let i = 0; i <= MAX_PLAN_REVISIONS; i += 1) wire.script.push({ toolCall: { name: 'save_architecture_plan', arguments: { plan: BAD } } });
    wire.script.push({ text: 'Two errors are left; tell me how you want Redis reached.' });
    await architect('Generate architecture plan');
    const answers = toolAnswers();
    expect(answers).toHaveLength(MAX_PLAN_REVISIONS + 1);
    expect(answers[0]).toContain('[published-private]');
    expect(answers[0]).toContain('[port-conflict]');
    expect(answers[0]).toContain(`revision 1 of ${MAX_PLAN_REVISIONS}`);
    expect(answers[MAX_PLAN_REVISIONS]).toContain('Do not save again in this turn');
  });

  it('the findings come with the plan, and the confirm answers 409 naming the first error', async () => {
    const { plan, findings } = await architecturePlan();
    expect(plan).toContain('80:6379');
    expect(findings?.filter((f) => f.severity === 'error').map((f) => f.code).sort()).toEqual(['port-conflict', 'published-private']);
    const refused = await confirm();
    expect(refused.statusCode).toBe(409);
    expect(refused.json<{ detail: string }>().detail).toMatch(/^The plan has 2 errors to fix before it can be confirmed .*redis/);
  });

  it('a revised plan without errors is confirmed; a new turn starts its revisions again', async () => {
    wire.script.push({ toolCall: { name: 'save_architecture_plan', arguments: { plan: GOOD } } }, { text: 'Redis is private now.' });
    await architect('Keep Redis private');
    expect(toolAnswers().at(-1)).toMatch(/^Saved the architecture plan\. The plan verifier found no error/);
    expect((await architecturePlan()).findings?.filter((f) => f.severity === 'error')).toEqual([]);
    expect((await confirm()).statusCode).toBe(200);
  });
});
