import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { eq, sql } from 'drizzle-orm';
import { executionSteps, planningDocuments } from '../../../src/server/db/schema';
import { INTERRUPTED_MESSAGE, NO_IMPLEMENTATION_PLAN, SANDBOX_NOT_READY } from '../../../src/server/services/execution/executionService';
import { CANCELLED_MESSAGE } from '../../../src/server/services/steps/stepRuns';
import type { ExecutionProgress, Step } from '../../../src/shared/api/execution';
import { LEFT_OUT_NOTE_NAME } from '../../../src/server/sandbox/workspaceLayout';
import { processesWith } from '../helpers/processes';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { readZip } from '../sandbox/zipHelpers';
import { databaseKinds, openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const CANARY = 'canary-Zq8v1Lk3-do-not-leak';
const CANARY_B64 = Buffer.from(CANARY).toString('base64');

const PLAN = [
  '# Implementation Plan',
  '',
  'Two steps and a failing one.',
  '',
  '## Step 1: Write a file',
  '',
  'Creates the deployment folder and a marker file.',
  '',
  '```bash',
  'mkdir -p deploy',
  'echo "built $(( 6 * 7 ))" > deploy/marker.txt && cat deploy/marker.txt',
  '```',
  '',
  '## Step 2: Use the secret',
  '',
  'Uses the token without printing it, then prints it by mistake in two forms.',
  '',
  '```bash',
  'test -n "$CANARY_TOKEN" && echo "token length ${#CANARY_TOKEN}"',
  'echo "leak: $CANARY_TOKEN / $(printf %s "$CANARY_TOKEN" | base64)"',
  '```',
  '',
  '## Step 3: Fail',
  '',
  'Exits with an error.',
  '',
  '```bash',
  'echo "about to fail" >&2; exit 3',
  '```',
  '',
  '## Step 4: Dangerous',
  '',
  'Would wipe the system.',
  '',
  '```bash',
  'rm -rf / --no-preserve-root',
  '```',
  '',
].join('\n');

describe.each(databaseKinds())('execution stage (%s)', (kind) => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let alice: TestUser;
  let mallory: TestUser;
  let projectId: number;
  const logLines: string[] = [];

  const call = (user: TestUser, method: 'GET' | 'POST', url: string, payload?: object, project = projectId, extra: Record<string, string> = {}) =>
    app.inject({ method, url, headers: { ...user.headers, 'project-id': String(project), ...extra }, ...(payload ? { payload } : {}) });
  const createProject = async (user: TestUser, name: string): Promise<number> =>
    (await app.inject({ method: 'POST', url: '/api/projects', headers: user.headers, payload: { name } })).json().id;
  const progress = async (project = projectId): Promise<ExecutionProgress> => (await call(alice, 'GET', '/api/execution/progress', undefined, project)).json();
  const stepOf = async (n: number): Promise<Step> => (await progress()).steps.find((s) => s.step_number === n)!;
  const approve = (n: number, approved = true, planId?: number) =>
    progress().then((p) => call(alice, 'POST', '/api/execution/approve-step', { plan_id: planId ?? p.id, step_number: n, approved }));
  const settled = async (n: number): Promise<Step> => {
    for (let i = 0; i < 400; i++) {
      const step = await stepOf(n);
      if (step.status !== 'in_progress') return step;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`step ${n} did not finish`);
  };
  const storePlan = (project: number, content: string) =>
    database.db.insert(planningDocuments).values({ projectId: project, kind: 'implementation', content });

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-execution-'));
    database = await openTestDatabase(kind);
    const stream = new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    app = await buildTestApp(database, {
      env: { DATA_DIR: dataDir, LOGIN_RATE_LIMIT_PER_MINUTE: '1000' },
      logger: { level: 'trace', stream },
    });
    alice = await signIn(app, 'alice');
    mallory = await signIn(app, 'mallory');
    projectId = await createProject(alice, 'Deploy');
    await app.services.planning.storeAnalysisSecrets(projectId, {
      environment: [{ name: 'CANARY_TOKEN', description: 'A token the steps use', value: CANARY }],
    });
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers an empty progress before any plan, and 409 to a trigger without an implementation plan', async () => {
    expect(await progress()).toEqual({ id: null, currentStep: 0, totalSteps: 0, steps: [] });
    const trigger = await call(alice, 'POST', '/api/execution/trigger', { message: 'Start execution' });
    expect(trigger.statusCode).toBe(409);
    expect(trigger.json()).toEqual({ detail: NO_IMPLEMENTATION_PLAN });
  });

  it('answers 400 to bad bodies and a bad Project-Id, 401 without a session', async () => {
    expect((await call(alice, 'POST', '/api/execution/trigger', {})).statusCode).toBe(400);
    expect((await call(alice, 'POST', '/api/execution/trigger', { message: 7 })).statusCode).toBe(400);
    for (const body of [{}, { plan_id: 1, step_number: 0, approved: true }, { plan_id: 1, step_number: 1, approved: 'yes' }, { plan_id: 'x', step_number: 1, approved: true }]) {
      const response = await call(alice, 'POST', '/api/execution/approve-step', body);
      expect({ body, status: response.statusCode }).toEqual({ body, status: 400 });
      expect(response.json().detail).toEqual(expect.any(String));
    }
    const noHeader = await app.inject({ method: 'GET', url: '/api/execution/progress', headers: alice.headers });
    expect(noHeader.statusCode).toBe(400);
    expect((await app.inject({ method: 'GET', url: '/api/execution/progress', headers: { 'project-id': String(projectId) } })).statusCode).toBe(401);
  });

  it('turns the implementation plan into waiting steps exactly as planned, once', async () => {
    await storePlan(projectId, PLAN);
    const answers = await Promise.all([1, 2].map(() => call(alice, 'POST', '/api/execution/trigger', { message: 'Start execution' })));
    expect(answers.map((a) => [a.statusCode, a.json().status])).toEqual([
      [200, 'success'],
      [200, 'success'],
    ]);
    const p = await progress();
    expect(p.id).toEqual(expect.any(Number));
    expect(p.totalSteps).toBe(4);
    expect(p.currentStep).toBe(0);
    expect(p.steps.map((s) => [s.step_number, s.status, s.description])).toEqual([
      [1, 'waiting_approval', 'Write a file'],
      [2, 'waiting_approval', 'Use the secret'],
      [3, 'waiting_approval', 'Fail'],
      [4, 'waiting_approval', 'Dangerous'],
    ]);
    expect(p.steps[0]).toMatchObject({
      prompt: 'Creates the deployment folder and a marker file.',
      command: 'mkdir -p deploy\necho "built $(( 6 * 7 ))" > deploy/marker.txt && cat deploy/marker.txt',
      output: null,
      error_message: null,
    });
    expect(p.steps[0]!.dangerous_reason).toBeUndefined();
    expect(p.steps[3]!.dangerous_reason).toMatch(/whole file system/);
    // A third trigger answers the same plan.
    await call(alice, 'POST', '/api/execution/trigger', { message: 'Start execution' });
    expect((await progress()).id).toBe(p.id);
    expect((await progress()).totalSteps).toBe(4);
  });

  it('answers 409 to an approval while the sandbox is not ready', async () => {
    const response = await approve(1);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toEqual({ detail: SANDBOX_NOT_READY });
    expect((await stepOf(1)).status).toBe('waiting_approval');
  });

  it('answers progress with a weak ETag and 304 when unchanged', async () => {
    const first = await call(alice, 'GET', '/api/execution/progress');
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toMatch(/^application\/json/);
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await call(alice, 'GET', '/api/execution/progress', undefined, projectId, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    // A current ETag is no proof of access: another installation still gets 404.
    const other = await call(mallory, 'GET', '/api/execution/progress', undefined, projectId, { 'if-none-match': etag });
    expect(other.statusCode).toBe(404);
    expect(other.headers.etag).toBeUndefined();
    await approve(4, false);
    const changed = await call(alice, 'GET', '/api/execution/progress', undefined, projectId, { 'if-none-match': etag });
    expect(changed.statusCode).toBe(200);
    expect(changed.headers.etag).not.toBe(etag);
  });

  it('records a rejection as rejected; rejecting again changes nothing, a stale plan id is refused', async () => {
    expect((await stepOf(4)).status).toBe('rejected');
    // Rejecting it again changes nothing; a stale plan id is refused.
    expect((await approve(4, false)).json()).toEqual({ step_number: 4, status: 'rejected' });
    const stale = await approve(4, true, 999_999);
    expect(stale.statusCode).toBe(409);
  });

  it('runs an approved step in the sandbox: in_progress at once, then completed with output, committed', async () => {
    expect((await call(alice, 'POST', `/api/sandbox/initialize/${projectId}`, {})).json().status).toBe('success');
    const updatedAt = async (): Promise<number> => Date.parse((await call(alice, 'GET', `/api/projects/${projectId}`)).json<{ updated_at: string }>().updated_at);
    const before = await updatedAt();
    const response = await approve(1);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ step_number: 1, status: 'in_progress' });
    const step = await settled(1);
    expect(step).toMatchObject({ status: 'completed', output: 'built 42\n', error_message: null });
    // The step's outcome moved the project's Last Updated.
    expect(await updatedAt()).toBeGreaterThan(before);
    const history = (await call(alice, 'GET', `/api/sandboxes/${projectId}/history`)).json();
    expect(history.commits[0].message).toMatch(/^Step 1: mkdir -p deploy/);
  });

  it('never shows a secret value or its base64 form in output, progress, the terminal stream or logs', async () => {
    const commands = await openCommandStream();
    expect((await approve(2)).statusCode).toBe(200);
    const step = await settled(2);
    expect(step.status).toBe('completed');
    expect(step.output).toContain(`token length ${CANARY.length}`);
    expect(step.output).toContain('leak: [REDACTED] / [REDACTED]');
    const typed = await commands.next();
    commands.close();
    expect(typed).toEqual({ command: expect.stringContaining('$CANARY_TOKEN'), simulate_typing: true, typing_speed: 50, step_number: 2 });
    const everything = [JSON.stringify(await progress()), JSON.stringify(typed), logLines.join('')].join('\n');
    expect(everything).not.toContain(CANARY);
    expect(everything).not.toContain(CANARY_B64);
    expect(everything).not.toContain(CANARY_B64.replace(/=+$/, ''));
  });

  it('marks a failing command failed with its output and error, and re-executes it on approval', async () => {
    await approve(3);
    const failed = await settled(3);
    expect(failed).toMatchObject({ status: 'failed', output: 'about to fail\n', error_message: 'The command exited with code 3.' });
    expect((await approve(3)).json()).toEqual({ step_number: 3, status: 'in_progress' });
    expect((await settled(3)).status).toBe('failed');
    // A completed step runs again too.
    await approve(1);
    expect(await settled(1)).toMatchObject({ status: 'completed', output: 'built 42\n' });
  });

  it('runs a step once when two approvals arrive together', async () => {
    const answers = await Promise.all([approve(1), approve(1)]);
    expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409]);
    expect(answers.find((a) => a.statusCode === 409)!.json().detail).toBe('Step 1 is already running');
    await settled(1);
    const history = (await call(alice, 'GET', `/api/sandboxes/${projectId}/history`)).json();
    expect(history.commits.filter((c: { message: string }) => c.message.startsWith('Step 1:'))).toHaveLength(3);
  });

  /** Appends a step with this command and answers its number. */
  const addStep = async (command: string, description = 'Added'): Promise<number> =>
    (await app.services.execution.addStep(projectId, { command, description, prompt: '' })).step_number;
  const runStep = async (command: string): Promise<Step> => {
    const n = await addStep(command);
    expect((await approve(n)).statusCode).toBe(200);
    return settled(n);
  };

  it('runs a step as one strict script: a failing line, a failing pipe stage or an unset variable fails it there', async () => {
    expect(await runStep('false\necho "after false"')).toMatchObject({ status: 'failed', output: '', error_message: 'The command exited with code 1.' });
    expect(await runStep('false | cat\necho "after the pipe"')).toMatchObject({ status: 'failed', output: '', error_message: 'The command exited with code 1.' });
    const unset = await runStep('echo "host is $NOT_A_DECLARED_VARIABLE"\necho "after unset"');
    expect(unset.status).toBe('failed');
    expect(unset.output).toMatch(/NOT_A_DECLARED_VARIABLE: unbound variable/);
    expect(unset.output).not.toContain('after unset');
    // `exit` ends the script like any script's: `exit 0` completes it, the lines after it do not run.
    expect(await runStep('echo one\nexit 0\necho never')).toMatchObject({ status: 'completed', output: 'one\n' });
    // `|| true` and `if` still work as they do under set -e.
    expect(await runStep('grep -q nothing /dev/null || echo "not found"\nif false; then echo no; fi\necho done')).toMatchObject({ status: 'completed', output: 'not found\ndone\n' });
  });

  it('streams a running step: output kept in the database as it arrives, its start time, the terminal shows it without running it', async () => {
    const commands = await openCommandStream();
    // A unique duration names the child process on the host's process table.
    const marker = `${3000 + Math.floor(Math.random() * 999)}.25`;
    const n = await addStep(`echo "started"\nsleep ${marker} &\nwait`);
    expect((await approve(n)).statusCode).toBe(200);
    const kept = async (): Promise<string | null> =>
      (await database.db.select({ output: executionSteps.output }).from(executionSteps).where(eq(executionSteps.stepNumber, n)))[0]!.output;
    await waitFor(async () => (await kept()) === 'started\n');
    const running = await stepOf(n);
    expect(running).toMatchObject({ status: 'in_progress', output: 'started\n', finished_at: null });
    expect(Date.parse(running.started_at!)).toBeLessThanOrEqual(Date.now());
    expect(processesWith(['sleep', marker])).toHaveLength(1);

    // Cancelling kills the whole process group, the backgrounded child too, and fails the step saying so.
    const cancelled = await call(alice, 'POST', '/api/execution/cancel-step', { plan_id: (await progress()).id, step_number: n });
    expect(cancelled.statusCode).toBe(200);
    expect(cancelled.json()).toMatchObject({ step_number: n, status: 'failed', error_message: CANCELLED_MESSAGE, output: 'started\n' });
    expect(cancelled.json().finished_at).toEqual(expect.any(String));
    await waitFor(async () => processesWith(['sleep', marker]).length === 0);
    const again = await call(alice, 'POST', '/api/execution/cancel-step', { step_number: n });
    expect(again.statusCode).toBe(409);
    expect(again.json().detail).toMatch(/only a running step can be cancelled/);

    // The terminal stream carries the command, its output and its end, to be shown, never typed into a shell.
    const events = [await commands.next(), await commands.next(), await commands.next()];
    commands.close();
    expect(events).toEqual([
      { command: `echo "started"\nsleep ${marker} &\nwait`, simulate_typing: true, typing_speed: 50, step_number: n },
      { step_number: n, output: 'started\n' },
      { step_number: n, status: 'failed', error_message: CANCELLED_MESSAGE },
    ]);
  });

  it('keeps files holding secrets out of the step history, and out of downloads unless asked for', async () => {
    const written = await runStep(
      [
        'mkdir -p stack keys',
        'printf "POSTGRES_PASSWORD=%s\\n" "$CANARY_TOKEN" > stack/.env',
        'printf "POSTGRES_PASSWORD=\\n" > stack/.env.example',
        'printf "services: {}\\n" > stack/docker-compose.yml',
        'printf -- "-----BEGIN OPENSSH PRIVATE KEY-----\\nabc\\n-----END OPENSSH PRIVATE KEY-----\\n" > keys/deploy',
        'cp keys/deploy ssh-keys/deploy_key',
        // A secret an older commit already tracked (forced past the ignore rules) is taken out of the index.
        'printf "old" > legacy.pem',
        'git add -f legacy.pem && git -c user.name=x -c user.email=x@y commit -qm legacy',
      ].join('\n'),
    );
    expect(written.status).toBe('completed');
    const tree = await runStep('git ls-tree -r --name-only HEAD\necho "---"\ngit log -p --all | grep -c -F "$CANARY_TOKEN" || true');
    expect(tree.status).toBe('completed');
    const [files, leaks] = tree.output!.split('---\n');
    expect(files!.split('\n')).toEqual(expect.arrayContaining(['stack/.env.example', 'stack/docker-compose.yml']));
    for (const secret of ['stack/.env', 'keys/deploy', 'ssh-keys/deploy_key', 'legacy.pem']) expect(files!.split('\n')).not.toContain(secret);
    expect(leaks!.trim()).toBe('0');
    // The files themselves stay in the workspace.
    expect((await runStep('test -f stack/.env && test -f legacy.pem && echo present')).output).toBe('present\n');

    const download = async (query: string) => {
      const response = await call(alice, 'GET', `/api/projects/${projectId}/workspace/download${query}`);
      expect(response.statusCode).toBe(200);
      return { header: response.headers['x-secret-files'], entries: await readZip(response.rawPayload) };
    };
    const safe = await download('');
    expect(safe.header).toBe('left-out');
    expect([...safe.entries.keys()]).toEqual(expect.arrayContaining(['stack/.env.example', 'stack/docker-compose.yml', LEFT_OUT_NOTE_NAME]));
    for (const secret of ['stack/.env', 'ssh-keys/deploy_key', 'legacy.pem']) expect(safe.entries.has(secret)).toBe(false);
    const note = safe.entries.get(LEFT_OUT_NOTE_NAME)!.data.toString('utf8');
    expect(note).toMatch(/hold secret values/);
    expect(note).toContain('stack/.env\n');
    const everything = await download('?include_secrets=true');
    expect(everything.header).toBe('included');
    expect(everything.entries.get('stack/.env')!.data.toString('utf8')).toBe(`POSTGRES_PASSWORD=${CANARY}\n`);
    expect(everything.entries.has(LEFT_OUT_NOTE_NAME)).toBe(false);
    const { username } = (await call(alice, 'GET', `/api/sandboxes/${projectId}/status`)).json();
    const folder = await call(alice, 'GET', `/api/sandboxes/${projectId}/workspace/folder_download?path=${encodeURIComponent(`/home/${username}/workspace/stack`)}`);
    expect(folder.statusCode).toBe(200);
    const folderEntries = await readZip(folder.rawPayload);
    expect(folderEntries.has('.env')).toBe(false);
    expect(folderEntries.has('docker-compose.yml')).toBe(true);
  });

  it("answers 404 for another tenant's project on every route", async () => {
    const planId = (await progress()).id;
    for (const [method, url, body] of [
      ['GET', '/api/execution/progress', undefined],
      ['POST', '/api/execution/trigger', { message: 'Start execution' }],
      ['POST', '/api/execution/approve-step', { plan_id: planId, step_number: 1, approved: true }],
      ['GET', '/api/terminal/commands', undefined],
      ['POST', '/api/execution/cancel-step', { plan_id: planId, step_number: 1 }],
    ] as const) {
      const response = await call(mallory, method, url, body);
      expect({ url, status: response.statusCode }).toEqual({ url, status: 404 });
    }
  });

  it('a replica starting beside a running step leaves it running; the step ends completed', async () => {
    const n = await addStep('sleep 2; echo replica-safe');
    expect((await approve(n)).statusCode).toBe(200);
    const replica = await buildTestApp(database, { env: { DATA_DIR: dataDir } });
    try {
      const seen = (await replica.inject({ method: 'GET', url: '/api/execution/progress', headers: { ...alice.headers, 'project-id': String(projectId) } })).json<ExecutionProgress>();
      expect(seen.steps.find((s) => s.step_number === n)!.status).toBe('in_progress');
      expect(await replica.services.execution.recoverInterrupted()).toBe(0);
    } finally {
      await replica.close();
    }
    expect(await settled(n)).toMatchObject({ status: 'completed', output: 'replica-safe\n' });
  });

  it('fails a running step whose heartbeat stopped (its process is gone), when the sweep looks', async () => {
    const n = await addStep('echo never-ran');
    await database.db
      .update(executionSteps)
      .set({ status: 'in_progress', heartbeatAt: sql`now() - interval '1 minute'` })
      .where(eq(executionSteps.stepNumber, n));
    expect(await app.services.execution.recoverInterrupted()).toBe(1);
    expect(await stepOf(n)).toMatchObject({ status: 'failed', error_message: INTERRUPTED_MESSAGE });
  });

  it('turns steps left in_progress by a stopped server into failed, keeping everything else', async () => {
    const { id: planId, totalSteps } = await progress();
    await database.db
      .update(executionSteps)
      .set({ status: 'in_progress', output: 'half way\n', heartbeatAt: sql`now() - interval '1 minute'` })
      .where(eq(executionSteps.stepNumber, 3));
    const restarted = await buildTestApp(database, { env: { DATA_DIR: dataDir } });
    try {
      const p = (await restarted.inject({ method: 'GET', url: '/api/execution/progress', headers: { ...alice.headers, 'project-id': String(projectId) } })).json();
      expect(p.id).toBe(planId);
      expect(p.totalSteps).toBe(totalSteps);
      expect(p.steps[2]).toMatchObject({ status: 'failed', error_message: INTERRUPTED_MESSAGE, output: 'half way\n' });
      expect(p.steps[0].status).toBe('completed');
    } finally {
      await restarted.close();
    }
  });

  async function waitFor(condition: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 800; i++) {
      if (await condition()) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('condition not met');
  }

  /** Reads GET /api/terminal/commands over a real socket (inject would wait for the end of the stream). */
  async function openCommandStream(): Promise<{ next(): Promise<unknown>; close(): void }> {
    const base = await app.listen({ host: '127.0.0.1', port: 0 }).catch(() => `http://127.0.0.1:${(app.server.address() as { port: number }).port}`);
    const url = new URL('/api/terminal/commands', base);
    const request = http.get(url, { headers: { ...alice.headers, 'project-id': String(projectId), accept: 'text/event-stream' } });
    const response = await new Promise<http.IncomingMessage>((resolve) => request.on('response', resolve));
    expect(response.statusCode).toBe(200);
    let buffer = '';
    const events: unknown[] = [];
    const waiting: Array<(e: unknown) => void> = [];
    response.setEncoding('utf8');
    await new Promise<void>((resolve) => {
      response.on('data', (chunk: string) => {
        buffer += chunk;
        resolve();
        let i: number;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          if (!frame.startsWith('data: ')) continue;
          const event = JSON.parse(frame.slice(6));
          const w = waiting.shift();
          if (w) w(event);
          else events.push(event);
        }
      });
    });
    return {
      next: () => (events.length ? Promise.resolve(events.shift()) : new Promise((r) => waiting.push(r))),
      close: () => request.destroy(),
    };
  }
});
