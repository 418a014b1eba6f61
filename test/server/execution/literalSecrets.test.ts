import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import WebSocket from 'ws';
import { planningDocuments } from '../../../src/server/db/schema';
import { textRedactor } from '../../../src/server/sandbox/redactor';
import { SEALED_REFERENCE, sealedReference } from '../../../src/server/sandbox/sealedSecrets';
import type { ApprovalRequestMessage } from '../../../src/shared/events';
import type { ExecutionProgress, Step } from '../../../src/shared/api/execution';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { startModelWireServer, type ModelWireServer } from '../helpers/modelWireServer';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const ORIGIN = 'http://app.test';
/** A User Secret the person then types literally into commands (no 8 characters of it occur by chance). */
const SECRET = 'Lit3ral-Qv7Zx-hunter2-Wq9k';
/**
 * Any form of the secret the redactor knows (the value, its base64 at any offset, hex, 8-character runs).
 * A sealed reference names the secret without holding it: not a leak.
 */
const leaks = (text: string): boolean => {
  const unsealed = text.replace(SEALED_REFERENCE, '');
  return textRedactor([SECRET])(unsealed) !== unsealed;
};
/** Where in `text` a form of the secret shows, for a readable failure. */
const leakIn = (label: string, text: string): string | null => (leaks(text) ? `${label}: ${text.slice(0, 160)}` : null);

/**
 * A secret typed literally into a command — a step's command, a DevOps Helper command, a terminal line —
 * runs with its real value in the sandbox, yet never shows in clear in what the server records or
 * emits: the terminal-commands stream, the step's command and output, the workspace history, the
 * approval socket, the server log and the database rows.
 */
describe('a secret typed literally into a command', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let base: string;
  let alice: TestUser;
  let projectId: number;
  let wire: ModelWireServer;
  const logLines: string[] = [];

  const headers = (): Record<string, string> => ({ ...alice.headers, 'project-id': String(projectId) });
  const call = (method: 'GET' | 'POST', url: string, payload?: object) => app.inject({ method, url, headers: headers(), ...(payload ? { payload } : {}) });
  const progress = async (): Promise<ExecutionProgress> => (await call('GET', '/api/execution/progress')).json();
  const workspaceFile = (name: string): string => path.join(dataDir, 'sandboxes', String(projectId), 'workspace', name);

  async function settled(n: number): Promise<Step> {
    for (;;) {
      const step = (await progress()).steps.find((s) => s.step_number === n)!;
      if (step.status !== 'in_progress') return step;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** Every frame of GET /api/terminal/commands until the step's status frame, read over a real socket. */
  async function commandFramesDuring(run: () => Promise<unknown>): Promise<string[]> {
    const request = http.get(new URL('/api/terminal/commands', base.replace(/^ws/, 'http')), { headers: { ...headers(), accept: 'text/event-stream' } });
    const response = await new Promise<http.IncomingMessage>((resolve) => request.on('response', resolve));
    expect(response.statusCode).toBe(200);
    const frames: string[] = [];
    let buffer = '';
    const ended = new Promise<void>((resolve) => {
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => {
        buffer += chunk;
        let i: number;
        while ((i = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, i);
          buffer = buffer.slice(i + 2);
          frames.push(frame);
          if (/"status":/.test(frame)) resolve();
        }
      });
    });
    await new Promise((r) => setTimeout(r, 50));
    await run();
    await ended;
    request.destroy();
    return frames;
  }

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-literal-'));
    database = await openTestDatabase('pglite');
    // The implementation planner (and the execution and helper agents, which share its model) is a model
    // behind an OpenAI-compatible endpoint that calls the tools it is scripted to, with the value typed in.
    wire = await startModelWireServer();
    const stream = new Writable({
      write(chunk, _enc, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    app = await buildTestApp(database, {
      env: {
        DATA_DIR: dataDir,
        PUBLIC_URL: ORIGIN,
        LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
        MODEL_PROVIDER: 'openai',
        OPENAI_API_KEY: 'sk-test',
        OPENAI_BASE_URL: `${wire.url}/v1`,
      },
      logger: { level: 'trace', stream },
    });
    base = (await app.listen({ host: '127.0.0.1', port: 0 })).replace(/^http/, 'ws');
    alice = await signIn(app, 'alice');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Literal' } })).json().id;
    await app.services.planning.storeAnalysisSecrets(projectId, { environment: [{ name: 'DB_PASSWORD', description: 'database password', value: SECRET }] });
    // The implementation planner plans from an architecture plan: without one it refuses to start (409).
    await database.db.insert(planningDocuments).values({ projectId, kind: 'architecture', content: '# Architecture\n\nOne server.' });
    expect((await call('POST', `/api/sandbox/initialize/${projectId}`, {})).json().status).toBe('success');
  });
  afterAll(async () => {
    await app.close();
    await database.destroy();
    await wire.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** A column of the project's rows, as the database holds it. */
  const stored = async (query: string): Promise<string[]> => ((await database.db.execute(sql.raw(query))) as unknown as { rows: Array<{ v: string }> }).rows.map((r) => r.v);

  it("a step's command runs with the value; the plan, the terminal-commands stream, the step and the history show it redacted", async () => {
    const plan = [
      '# Implementation Plan',
      '',
      '## Step 1: Typed literally',
      '',
      'The person pasted the password into the command.',
      '',
      '```bash',
      `echo "step saw ${SECRET}" > step.txt`,
      `echo "connecting with ${SECRET}"; printf %s '${SECRET}' | base64; ls /nonexistent-${SECRET} || true`,
      '```',
      '',
    ].join('\n');
    wire.script.push({ toolCall: { name: 'save_implementation_plan', arguments: { plan } } }, { text: 'The plan is saved.' });
    expect((await call('POST', '/api/planning/implementation-planner', { message: 'Write the plan with my password in it' })).statusCode).toBe(200);
    // Stored with the secret sealed by name; shown with it blanked.
    const [document] = await stored(`select content as v from planning_documents where project_id = ${projectId} and kind = 'implementation'`);
    expect(document).toBe(plan.split(SECRET).join(sealedReference('DB_PASSWORD')));
    const shown = (await call('GET', '/api/planning/implementation-plan')).json() as { plan: string };
    expect(shown.plan).toContain('echo "step saw [REDACTED]" > step.txt');
    expect(leakIn('implementation plan', shown.plan)).toBeNull();

    expect((await call('POST', '/api/execution/trigger', { message: 'Start execution' })).statusCode).toBe(200);
    const planId = (await progress()).id;
    const frames = await commandFramesDuring(() => call('POST', '/api/execution/approve-step', { plan_id: planId, step_number: 1, approved: true }));
    const step = await settled(1);
    expect(await stored(`select command as v from execution_steps where step_number = 1`)).toEqual([`echo "step saw ${sealedReference('DB_PASSWORD')}" > step.txt\necho "connecting with ${sealedReference('DB_PASSWORD')}"; printf %s '${sealedReference('DB_PASSWORD')}' | base64; ls /nonexistent-${sealedReference('DB_PASSWORD')} || true`]);

    const history = (await call('GET', `/api/sandboxes/${projectId}/history`)).json() as { commits: Array<{ message: string }> };
    expect(
      [leakIn('step command', step.command ?? ''), leakIn('step output', JSON.stringify([step.output, step.error_message])), leakIn('terminal commands', frames.join('\n')), leakIn('history', JSON.stringify(history))].filter(Boolean),
    ).toEqual([]);
    expect(step.status).toBe('completed');
    expect(fs.readFileSync(workspaceFile('step.txt'), 'utf8')).toBe(`step saw ${SECRET}\n`);
    expect(step.command).toContain('echo "step saw [REDACTED]" > step.txt');
    expect(step.output).toContain('connecting with [REDACTED]');
    expect(frames.join('\n')).toContain('step saw [REDACTED]');
    expect(history.commits[0]!.message).toMatch(/^Step 1: echo "step saw \[REDACTED\]"/);
  });

  it("a step's command changed through the execution chat runs with the value; the chat and the step show it redacted", async () => {
    const command = `echo "agent saw ${SECRET}" > agent.txt`;
    wire.script.push({ toolCall: { name: 'update_step', arguments: { step_number: 1, command } } }, { text: `I changed step 1 to run \`${command}\`` });
    const message = `Please change step 1 command to \`${command}\``;
    const chat = await app.inject({ method: 'GET', url: `/api/execution/agent?message=${encodeURIComponent(message)}`, headers: headers() });
    expect(chat.statusCode).toBe(200);
    const planId = (await progress()).id;
    // The change is a proposal until the person saves it; the proposal shows the value redacted too.
    const proposed = (await progress()).steps[0];
    expect(proposed?.proposal?.command).toBe('echo "agent saw [REDACTED]" > agent.txt');
    expect((await call('POST', '/api/execution/resolve-change', { plan_id: planId, step_number: 1, save: true })).statusCode).toBe(200);
    expect((await call('POST', '/api/execution/approve-step', { plan_id: planId, step_number: 1, approved: true })).statusCode).toBe(200);
    const step = await settled(1);

    expect([leakIn('execution chat', chat.body), leakIn('step', JSON.stringify(step))].filter(Boolean)).toEqual([]);
    const said = [...chat.body.matchAll(/"content":"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`) as string).join('');
    expect(said).toContain('I changed step 1 to run `echo "agent saw [REDACTED]" > agent.txt`');
    expect(step).toMatchObject({ status: 'completed', command: 'echo "agent saw [REDACTED]" > agent.txt' });
    expect(fs.readFileSync(workspaceFile('agent.txt'), 'utf8')).toBe(`agent saw ${SECRET}\n`);
  });

  it('a DevOps Helper command runs with the value; the approval socket and the chat show it redacted', async () => {
    const ws = new WebSocket(`${base}/api/devops-helper/ws/approval/${projectId}`, { headers: { cookie: alice.cookie }, origin: ORIGIN });
    const requests: ApprovalRequestMessage[] = [];
    const first = new Promise<ApprovalRequestMessage>((resolve) =>
      ws.on('message', (raw) => {
        const m = JSON.parse(raw.toString()) as ApprovalRequestMessage;
        requests.push(m);
        resolve(m);
      }),
    );
    await new Promise((resolve) => ws.once('open', resolve));
    wire.script.push({ toolCall: { name: 'run_command', arguments: { command: `echo "helper saw ${SECRET}" > helper.txt; cat helper.txt` } } }, { text: `It printed: helper saw ${SECRET}` });
    const reply = app.inject({ method: 'POST', url: '/api/devops-helper/chat', headers: headers(), payload: { message: `please run \`echo "helper saw ${SECRET}" > helper.txt; cat helper.txt\`` } });
    const request = await first;
    expect((await call('POST', '/api/devops-helper/approval', { approval_id: request.id, approved: true })).statusCode).toBe(200);
    const { body } = await reply;
    ws.close();

    expect([leakIn('approval socket', JSON.stringify(requests)), leakIn('chat', body)].filter(Boolean)).toEqual([]);
    expect(request.command).toBe('echo "helper saw [REDACTED]" > helper.txt; cat helper.txt');
    expect(fs.readFileSync(workspaceFile('helper.txt'), 'utf8')).toBe(`helper saw ${SECRET}\n`);
    expect(body).toContain('helper saw [REDACTED]');
  });

  it('the forms a shell gives the value by accident (od, xxd -p, fold, cut) are blanked in the Helper stream, its reloaded thread and the terminal', async () => {
    const hex = Buffer.from(SECRET).toString('hex');
    const piece = SECRET.slice(7, 19);
    const printing = `printf %s '${SECRET}' | od -An -tx1; printf %s '${SECRET}' | xxd -p; printf %s '${SECRET}' | fold -w5; echo; printf %s '${SECRET}' | cut -c8-19`;
    /** The forms, as they would show once whitespace is taken out: none may be there. */
    const formsIn = (text: string): string[] => [SECRET, hex, piece].filter((form) => text.replace(/\s+/g, '').replace(/\\n/g, '').includes(form));
    const ws = new WebSocket(`${base}/api/devops-helper/ws/approval/${projectId}`, { headers: { cookie: alice.cookie }, origin: ORIGIN });
    const first = new Promise<ApprovalRequestMessage>((resolve) => ws.on('message', (raw) => resolve(JSON.parse(raw.toString()) as ApprovalRequestMessage)));
    await new Promise((resolve) => ws.once('open', resolve));
    // The model repeats what it read, in the forms it read it.
    wire.script.push({ toolCall: { name: 'run_command', arguments: { command: printing } } }, { text: `The hex is ${hex.match(/../g)!.join(' ')} and the piece ${piece}.` });
    const reply = app.inject({ method: 'POST', url: '/api/devops-helper/chat', headers: headers(), payload: { message: 'print the password in hex, folded and cut' } });
    expect((await call('POST', '/api/devops-helper/approval', { approval_id: (await first).id, approved: true })).statusCode).toBe(200);
    const { body } = await reply;
    ws.close();
    expect(body).toContain('[REDACTED]');
    expect(formsIn(body)).toEqual([]);
    const thread = await call('GET', '/api/devops-helper/thread');
    expect(thread.statusCode).toBe(200);
    expect(formsIn(thread.body)).toEqual([]);

    const terminal = new WebSocket(`${base}/api/sandboxes/${projectId}/ws`, { headers: { cookie: alice.cookie }, origin: ORIGIN });
    let output = '';
    terminal.on('message', (raw) => (output += (JSON.parse(raw.toString()) as { data: string }).data));
    await new Promise((resolve) => terminal.once('open', resolve));
    terminal.send(JSON.stringify({ type: 'input', input: `${printing}; echo forms-$((6 * 7))-done\r` }));
    while (!/forms-42-done/.test(output)) await new Promise((r) => setTimeout(r, 20));
    terminal.close();
    expect(formsIn(output)).toEqual([]);
  });

  it('a line typed into the terminal runs with the value; the terminal shows it redacted', async () => {
    const ws = new WebSocket(`${base}/api/sandboxes/${projectId}/ws`, { headers: { cookie: alice.cookie }, origin: ORIGIN });
    let output = '';
    ws.on('message', (raw) => (output += (JSON.parse(raw.toString()) as { data: string }).data));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ type: 'input', input: `echo "terminal saw ${SECRET}" > terminal.txt; echo typed-$((6 * 7))-done\r` }));
    while (!/typed-42-done/.test(output)) await new Promise((r) => setTimeout(r, 20));
    ws.close();

    expect(fs.readFileSync(workspaceFile('terminal.txt'), 'utf8')).toBe(`terminal saw ${SECRET}\n`);
    expect(output).toContain('terminal saw [REDACTED]');
    expect(leakIn('terminal', output)).toBeNull();
  });

  it('a step whose sealed secret was removed fails naming it, and runs nothing', async () => {
    const planId = (await progress()).id;
    await database.db.execute(sql.raw(`update planning_secrets set ciphertext = null, iv = null where project_id = ${projectId} and name = 'DB_PASSWORD'`));
    try {
      fs.rmSync(workspaceFile('step.txt'), { force: true });
      await database.db.execute(sql.raw(`update execution_steps set command = 'echo "again ${sealedReference('DB_PASSWORD')}" > step.txt' where step_number = 1`));
      expect((await call('POST', '/api/execution/approve-step', { plan_id: planId, step_number: 1, approved: true })).statusCode).toBe(200);
      const step = await settled(1);
      expect(step).toMatchObject({ status: 'failed', command: 'echo "again [REDACTED]" > step.txt', error_message: 'User Secret DB_PASSWORD is not set: add it under User Secrets, then re-execute this step' });
      expect(fs.existsSync(workspaceFile('step.txt'))).toBe(false);
    } finally {
      await app.services.planning.storeAnalysisSecrets(projectId, { environment: [{ name: 'DB_PASSWORD', description: 'database password', value: SECRET }] });
    }
  });

  it('a value typed into a step before it was saved as a User Secret is sealed when it is saved', async () => {
    const later = 'Later-Tok3n-Zq8Wv-5521';
    await app.services.planning.storeAnalysisSecrets(projectId, { environment: [{ name: 'API_TOKEN', description: 'API token', value: undefined }] });
    const command = `echo "token ${later}" > token.txt`;
    wire.script.push({ toolCall: { name: 'update_step', arguments: { step_number: 1, command } } }, { text: 'Changed step 1.' });
    expect((await app.inject({ method: 'GET', url: `/api/execution/agent?message=${encodeURIComponent('change step 1')}`, headers: headers() })).statusCode).toBe(200);
    const commandOf = async (): Promise<string[]> => stored(`select proposal->>'command' as v from execution_steps where step_number = 1`);
    expect(await commandOf()).toEqual([command]);

    expect((await call('POST', '/api/planning/requirements/user-secrets', { name: 'API_TOKEN', value: later })).statusCode).toBe(200);
    expect(await commandOf()).toEqual([`echo "token ${sealedReference('API_TOKEN')}" > token.txt`]);
    const planId = (await progress()).id;
    expect((await call('POST', '/api/execution/resolve-change', { plan_id: planId, step_number: 1, save: true })).statusCode).toBe(200);
    expect((await call('POST', '/api/execution/approve-step', { plan_id: planId, step_number: 1, approved: true })).statusCode).toBe(200);
    expect(await settled(1)).toMatchObject({ status: 'completed', command: 'echo "token [REDACTED]" > token.txt' });
    expect(fs.readFileSync(workspaceFile('token.txt'), 'utf8')).toBe(`token ${later}\n`);
  });

  it('every database row holds the value nowhere: plans, step commands and chat threads included', async () => {
    const rowsOf = async <T>(query: string): Promise<T[]> => ((await database.db.execute(sql.raw(query))) as unknown as { rows: T[] }).rows;
    const tables = await rowsOf<{ name: string }>(`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`);
    const found: string[] = [];
    for (const { name } of tables) {
      for (const { row } of await rowsOf<{ row: string }>(`select to_jsonb(t)::text as row from "${name}" t`)) {
        // Chat threads are stored base64-encoded: read them as text too.
        const decoded = [...row.matchAll(/"([A-Za-z0-9+/]{40,}={0,2})"/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8')).join('\n');
        const leak = leakIn(name, `${row}\n${decoded}`);
        if (leak) found.push(leak);
      }
    }
    expect(found).toEqual([]);
  });

  it('the server log (at trace level) holds the value nowhere', () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(leakIn('server log', logLines.join(''))).toBeNull();
  });
});
