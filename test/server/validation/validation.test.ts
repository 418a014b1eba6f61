import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { and, eq, like } from 'drizzle-orm';
import { activities, planningDocuments } from '../../../src/server/db/schema';
import { NO_VALIDATION_PLAN, NO_VALIDATION_RUN } from '../../../src/server/services/validation/validationService';
import type { Step } from '../../../src/shared/api/execution';
import type { DocumentationResponse } from '../../../src/shared/api/documentation';
import type { ValidationPlanResponse, ValidationProgress } from '../../../src/shared/api/validation';
import { CREDIT_ERRORS, DOCUMENTATION, VALIDATION } from '../../../src/shared/constants';
import { buildTestApp, installationRowId, PRICED_MODEL_ENV, signIn, spendAllCredits, type TestUser } from '../helpers/testApp';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { recordSteps } from '../helpers/stepRecords';

const CANARY = 'canary-Vx7q2Pz9-do-not-leak';

const PLAN = [
  '# Implementation Plan',
  '',
  '## Step 1: Write the stack',
  '',
  'Creates the stack folder, a compose file and a marker.',
  '',
  '```bash',
  'mkdir -p stack deploy',
  "cat > stack/docker-compose.yml <<'EOF'",
  'services:',
  '  web:',
  '    image: nginx:1.27',
  'EOF',
  'echo "built" > deploy/marker.txt',
  '```',
  '',
  '## Step 2: Use the secret',
  '',
  'Uses the token without printing it.',
  '',
  '```bash',
  'test -n "$CANARY_TOKEN" && echo "token length ${#CANARY_TOKEN}"',
  '```',
  '',
].join('\n');

/** The `data:` frames of an SSE body, parsed. */
const framesOf = (body: string): Array<{ event: string; chunk?: { content: string } }> =>
  body
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)));

describe.each(databaseKinds())('validation stage and documentation (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;
  let mallory: TestUser;
  let projectId: number;

  const call = (user: TestUser, method: 'GET' | 'POST', url: string, payload?: object, project = projectId, extra: Record<string, string> = {}) =>
    app.inject({ method, url, headers: { ...user.headers, 'project-id': String(project), ...extra }, ...(payload ? { payload } : {}) });
  const progress = async (): Promise<ValidationProgress> => (await call(alice, 'GET', '/api/validation/progress')).json();
  const waitFor = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> => {
    for (let i = 0; i < 400; i++) {
      const value = await read();
      if (done(value)) return value;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`timed out waiting for ${what}`);
  };
  const settledAll = (): Promise<ValidationProgress> =>
    waitFor(progress, (p) => p.steps.every((s) => s.status !== 'in_progress'), 'validation steps to finish');
  const validationActivities = () =>
    database.db
      .select({ type: activities.activityType, data: activities.activityData })
      .from(activities)
      .where(and(eq(activities.projectId, projectId), like(activities.activityType, 'VALIDATION_%')));

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-validation-'));
    database = await openTestDatabase(kind);
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Validated stack' } })).json().id;
    await app.services.planning.storeAnalysisSecrets(projectId, {
      environment: [{ name: 'CANARY_TOKEN', description: 'A token the steps use', value: CANARY }],
    });
    await database.db.insert(planningDocuments).values({ projectId, kind: 'implementation', content: PLAN });
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers an empty plan and progress, 409 to a trigger with no plan and to an approval before the trigger', async () => {
    expect((await call(alice, 'GET', '/api/validation/plan')).json()).toEqual({ status: 'none', plan: null });
    expect(await progress()).toEqual({ steps: [] });
    const trigger = await call(alice, 'POST', '/api/validation/trigger', {});
    expect(trigger.statusCode).toBe(409);
    expect(trigger.json()).toEqual({ detail: NO_VALIDATION_PLAN });
    const approve = await call(alice, 'POST', '/api/validation/approve-step', { step_number: 1, approved: true });
    expect(approve.statusCode).toBe(409);
    expect(approve.json()).toEqual({ detail: NO_VALIDATION_RUN });
    expect((await call(alice, 'GET', '/api/documentation/current')).json()).toEqual({
      status: 'missing',
      documentation: DOCUMENTATION.documentationPlaceholders[0],
      quickstart: DOCUMENTATION.quickstartPlaceholders[0],
      key_value_data: {},
      written_at: null,
      out_of_date: null,
    });
    // Nothing verified, nothing to document: the server's record decides, not the browser's progress.
    const docs = await call(alice, 'POST', '/api/documentation/generate', { message: DOCUMENTATION.generatePrompt });
    expect(docs.statusCode).toBe(409);
    expect(docs.json().detail).toMatch(/Validation has not run yet/);
  });

  it('answers 400 naming the field to bad input, 401 without a session', async () => {
    const bad: Array<[string, string, object | undefined, RegExp]> = [
      ['POST', '/api/validation/trigger', { message: { text: 'x' } }, /message/],
      ['POST', '/api/validation/approve-step', { approved: true }, /step_number/],
      ['POST', '/api/validation/approve-step', { step_number: 0, approved: true }, /step_number/],
      ['POST', '/api/validation/approve-step', { step_number: 1, approved: 'yes' }, /approved/],
      ['GET', '/api/validation/agent', undefined, /message/],
      ['POST', '/api/documentation/generate', {}, /message/],
    ];
    for (const [method, url, payload, field] of bad) {
      const response = await call(alice, method as 'GET' | 'POST', url, payload);
      expect({ url, payload, status: response.statusCode }).toEqual({ url, payload, status: 400 });
      expect(response.json().detail).toMatch(field);
    }
    const noHeader = await app.inject({ method: 'GET', url: '/api/validation/progress', headers: alice.headers });
    expect(noHeader.statusCode).toBe(400);
    expect(noHeader.json().detail).toMatch(/Project-Id/i);
    expect((await app.inject({ method: 'GET', url: '/api/validation/plan', headers: { 'project-id': String(projectId) } })).statusCode).toBe(401);
  });

  it('answers 404 to another tenant on every route', async () => {
    const routes: Array<['GET' | 'POST', string, object | undefined]> = [
      ['POST', '/api/validation/trigger', {}],
      ['GET', '/api/validation/plan', undefined],
      ['GET', '/api/validation/progress', undefined],
      ['POST', '/api/validation/approve-step', { step_number: 1, approved: true }],
      ['GET', `/api/validation/agent?message=${encodeURIComponent(VALIDATION.planPrompt)}`, undefined],
      ['GET', '/api/documentation/current', undefined],
      ['POST', '/api/documentation/generate', { message: DOCUMENTATION.generatePrompt }],
    ];
    for (const [method, url, payload] of routes) {
      expect({ url, status: (await call(mallory, method, url, payload)).statusCode }).toEqual({ url, status: 404 });
    }
  });

  it('runs the implementation in the sandbox first (the execution stage)', async () => {
    expect((await call(alice, 'POST', `/api/sandbox/initialize/${projectId}`, {})).json().status).toBe('success');
    expect((await call(alice, 'POST', '/api/execution/trigger', { message: 'Start execution' })).statusCode).toBe(200);
    const planId = (await call(alice, 'GET', '/api/execution/progress')).json().id;
    for (const n of [1, 2]) {
      expect((await call(alice, 'POST', '/api/execution/approve-step', { plan_id: planId, step_number: n, approved: true })).statusCode).toBe(200);
      await waitFor(
        async () => ((await call(alice, 'GET', '/api/execution/progress')).json().steps as Step[])[n - 1]!,
        (s) => s.status !== 'in_progress',
        `execution step ${n}`,
      );
    }
    const steps = (await call(alice, 'GET', '/api/execution/progress')).json().steps as Step[];
    expect(steps.map((s) => s.status)).toEqual(['completed', 'completed']);
  });

  it('streams the validation agent: it writes read-only checks of what execution built, metered, redacted', async () => {
    const before = (await app.inject({ method: 'GET', url: '/api/user/credits', headers: alice.headers })).json().credits_balance;
    const response = await call(alice, 'GET', `/api/validation/agent?message=${encodeURIComponent(VALIDATION.planPrompt)}`);
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/event-stream/);
    const frames = framesOf(response.body);
    expect(frames.filter((f) => f.event === 'on_chat_model_end')).toHaveLength(1);
    expect(frames.at(-1)!.event).toBe('on_chat_model_end');
    expect(frames.some((f) => f.event === 'on_chat_model_stream' && f.chunk?.content)).toBe(true);
    expect(response.body).not.toContain(CANARY);
    const after = (await app.inject({ method: 'GET', url: '/api/user/credits', headers: alice.headers })).json().credits_balance;
    // Recorded under the offline planner, which is free: the balance does not move.
    expect(after).toBe(before);

    const plan: ValidationPlanResponse = (await call(alice, 'GET', '/api/validation/plan')).json();
    expect(plan.status).toBe('ready');
    expect(plan.plan).toContain('## Step 1: ');
    expect(plan.plan).toContain('"stack" "deploy"');
    expect(plan.plan).toContain('"stack/docker-compose.yml" "deploy/marker.txt"');
    expect(plan.plan).toContain('docker compose -f "stack/docker-compose.yml" config -q');
    expect(plan.plan).not.toMatch(/\brm\b|docker compose up|terraform apply/);
  });

  it('turns the plan into waiting steps once; progress answers 304 for a current ETag and 404 to another tenant', async () => {
    const answers = await Promise.all([{}, { message: 'Start validation' }].map((body) => call(alice, 'POST', '/api/validation/trigger', body)));
    expect(answers.map((a) => [a.statusCode, a.json().status])).toEqual([
      [200, 'success'],
      [200, 'success'],
    ]);
    const p = await progress();
    expect(p.steps.length).toBeGreaterThanOrEqual(3);
    expect(p.steps.every((s) => s.status === 'waiting_approval' && !s.dangerous_reason)).toBe(true);
    expect(p.steps.map((s) => s.step_number)).toEqual(p.steps.map((_, i) => i + 1));
    // Waiting checks are not passed ones: no documentation, no completed stage, whatever a browser says.
    const docs = await call(alice, 'POST', '/api/documentation/generate', { message: DOCUMENTATION.generatePrompt });
    expect(docs.statusCode).toBe(409);
    expect(docs.json().detail).toMatch(new RegExp(`${p.steps.length} of ${p.steps.length} checks have no result yet`));
    const completed = await app.inject({ method: 'PUT', url: `/api/project-states/${projectId}/stages/validation`, headers: alice.headers, payload: { is_completed: true } });
    expect(completed.statusCode).toBe(409);
    expect(completed.json().detail).toMatch(/^Validation is not complete: /);

    const first = await call(alice, 'GET', '/api/validation/progress');
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await call(alice, 'GET', '/api/validation/progress', undefined, projectId, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const other = await call(mallory, 'GET', '/api/validation/progress', undefined, projectId, { 'if-none-match': etag });
    expect(other.statusCode).toBe(404);
    expect(other.headers.etag).toBeUndefined();
  });

  it('runs approved steps in the sandbox; VALIDATION_COMPLETED once when all complete, VALIDATION_FAILED on a failure', async () => {
    const { steps } = await progress();
    for (const step of steps) {
      const response = await call(alice, 'POST', '/api/validation/approve-step', { step_number: step.step_number, approved: true });
      expect(response.json()).toEqual({ step_number: step.step_number, status: 'in_progress' });
      await settledAll();
    }
    const done = await settledAll();
    expect(done.steps.map((s) => [s.step_number, s.status, s.error_message])).toEqual(done.steps.map((s) => [s.step_number, 'completed', null]));
    expect(done.steps.map((s) => s.output).join('\n')).toContain('found file: deploy/marker.txt');
    expect(JSON.stringify(done)).not.toContain(CANARY);
    let recorded = await validationActivities();
    expect(recorded.map((r) => r.type)).toEqual(['VALIDATION_COMPLETED']);
    expect(recorded[0]!.data).toMatchObject({ project_name: 'Validated stack', total_steps: done.steps.length });

    // The marker goes away: re-executing the files check fails (recorded), and passes again once it is back.
    const sandboxProject = { id: projectId, installationId: await installationRowId(database, alice) };
    await app.services.sandbox.exec(sandboxProject, 'rm deploy/marker.txt');
    const filesStep = done.steps.find((s) => s.description === 'Check the files the execution wrote')!;
    const rerun = async (): Promise<Step> => {
      expect((await call(alice, 'POST', '/api/validation/approve-step', { step_number: filesStep.step_number, approved: true })).statusCode).toBe(200);
      return (await settledAll()).steps.find((s) => s.step_number === filesStep.step_number)!;
    };
    const failed = await rerun();
    expect(failed.status).toBe('failed');
    expect(failed.error_message).toMatch(/exited with code 1/);
    expect(failed.output).toContain('missing file: deploy/marker.txt');
    await app.services.sandbox.exec(sandboxProject, 'echo back > deploy/marker.txt');
    expect((await rerun()).status).toBe('completed');
    recorded = await validationActivities();
    expect(recorded.map((r) => r.type)).toEqual(['VALIDATION_COMPLETED', 'VALIDATION_FAILED', 'VALIDATION_COMPLETED']);
  });

  it('generates the documentation and quick start from the project, with non-secret facts', async () => {
    const response = await call(alice, 'POST', '/api/documentation/generate', { message: DOCUMENTATION.generatePrompt });
    expect(response.statusCode).toBe(200);
    expect(framesOf(response.body).at(-1)!.event).toBe('on_chat_model_end');
    const doc: DocumentationResponse = (await call(alice, 'GET', '/api/documentation/current')).json();
    expect(doc.status).toBe('ready');
    expect(doc.documentation).toContain('# Validated stack: Infrastructure Documentation');
    expect(doc.documentation).toContain('Write the stack');
    expect(doc.quickstart).toContain('# Validated stack: Quick Start');
    expect(doc.key_value_data).toMatchObject({
      workspace_directory: expect.stringMatching(/^\/home\/.+\/workspace$/),
      user_secret_names: ['CANARY_TOKEN'],
    });
    expect(JSON.stringify(doc)).not.toContain(CANARY);
  });

  it('states the latest results with their times, and says it is out of date once a check fails after it was written', async () => {
    const written: DocumentationResponse = (await call(alice, 'GET', '/api/documentation/current')).json();
    const total = (await progress()).steps.length;
    expect(written.out_of_date).toBeNull();
    expect(written.written_at).toEqual(expect.any(String));
    expect(written.documentation).toMatch(new RegExp(`## Validation results\\n\\nAll ${total} checks passed \\(last checked \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC\\)\\.`));
    expect(written.documentation).toMatch(/\| \d+\. Check the files the execution wrote \| passed \| \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \|/);
    expect(written.quickstart).toContain(`**Validation results:** All ${total} checks passed`);
    expect(written.documentation).not.toContain(DOCUMENTATION.resultsMarker);
    expect(written.key_value_data).toMatchObject({ validation_steps_completed: `${total} / ${total}`, documentation_written_at: written.written_at });

    // The marker goes: the files check, re-executed, fails; every document says so, and that it is out of date.
    const sandboxProject = { id: projectId, installationId: await installationRowId(database, alice) };
    await app.services.sandbox.exec(sandboxProject, 'mv deploy/marker.txt deploy/marker.bak');
    const filesStep = (await progress()).steps.find((s) => s.description === 'Check the files the execution wrote')!;
    const rerun = async (): Promise<DocumentationResponse> => {
      expect((await call(alice, 'POST', '/api/validation/approve-step', { step_number: filesStep.step_number, approved: true })).statusCode).toBe(200);
      await settledAll();
      return (await call(alice, 'GET', '/api/documentation/current')).json();
    };
    const stale = await rerun();
    const n = filesStep.step_number;
    expect(stale.out_of_date).toMatch(new RegExp(`^\\*\\*Out of date\\.\\*\\* This document was written at .* UTC; since then check ${n} \\(Check the files the execution wrote\\) failed at \\d{4}-.* UTC\\.`));
    expect(stale.documentation.startsWith(`> ${stale.out_of_date}`)).toBe(true);
    expect(stale.quickstart.startsWith(`> ${stale.out_of_date}`)).toBe(true);
    expect(stale.documentation).toContain(`${total - 1} of ${total} checks passed`);
    expect(stale.documentation).toMatch(new RegExp(`\\| ${n}\\. Check the files the execution wrote \\| \\*\\*failed\\*\\*: missing file: deploy/marker.txt \\|`));
    expect(stale.quickstart).toMatch(new RegExp(`- Check ${n} \\(Check the files the execution wrote\\) failed at .* UTC: missing file: deploy/marker.txt`));
    expect(stale.key_value_data).toMatchObject({ validation_steps_completed: `${total - 1} / ${total}`, validation_failed_checks: [n] });

    // Back again, and passing as when it was written: the documents are current again.
    await app.services.sandbox.exec(sandboxProject, 'mv deploy/marker.bak deploy/marker.txt');
    const current = await rerun();
    expect(current.out_of_date).toBeNull();
    expect(current.documentation).toContain(`All ${total} checks passed`);
    expect(current.key_value_data).not.toHaveProperty('validation_failed_checks');
  });

  it("refuses a priced model's agents with 402 once the balance is spent", async () => {
    const priced = await buildTestApp(database, { env: { DATA_DIR: dataDir, LOGIN_RATE_LIMIT_PER_MINUTE: '1000', ...PRICED_MODEL_ENV } });
    try {
      const broke = await signIn(priced, 'broke');
      const project = (await priced.inject({ method: 'POST', url: '/api/projects', headers: broke.headers, payload: { name: 'no credit' } })).json();
      await spendAllCredits(priced, broke, project.id, 'validationAgent');
      const headers = { ...broke.headers, 'project-id': String(project.id) };
      const agent = await priced.inject({ method: 'GET', url: `/api/validation/agent?message=${encodeURIComponent(VALIDATION.planPrompt)}`, headers });
      expect(agent.statusCode).toBe(402);
      expect(agent.json()).toEqual({ detail: CREDIT_ERRORS.outOfCredits });
      await recordSteps(database.db, 'validation', project.id, ['completed']);
      const docs = await priced.inject({ method: 'POST', url: '/api/documentation/generate', headers, payload: { message: DOCUMENTATION.generatePrompt } });
      expect(docs.statusCode).toBe(402);
    } finally {
      await priced.close();
    }
  });
});
