import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import WebSocket from 'ws';
import { planningDocuments } from '../../../src/server/db/schema';
import { asOtherUser, asRoot, modesUnder } from '../helpers/fileAccess';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { freePort } from '../helpers/freePort';
import { mountedBelow } from '../helpers/mountTable';

/**
 * The real server process (`node --import tsx src/server/server.ts`) on PostgreSQL, so this test can write
 * the implementation plan beside it: a sandbox initialised, a terminal open, a step running, then SIGTERM.
 * It must exit within SHUTDOWN_TIMEOUT_SECONDS, ending every sandbox process it started. CI sets
 * TEST_DATABASE_URL; elsewhere without it the test is skipped.
 */
const describeOnPostgres = process.env.TEST_DATABASE_URL || process.env.CI ? describe : describe.skip;

const PLAN = ['# Implementation Plan', '', '## Step 1: Wait a long time', '', 'Runs until it is stopped.', '', '```bash', 'echo step-started; sleep 600', '```', ''].join('\n');

/** The pids below `root` in the process tree, read from /proc. */
function descendants(root: number): Map<number, string> {
  const children = new Map<number, number[]>();
  const names = new Map<number, string>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      names.set(Number(entry), name);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found = new Map<number, string>();
  const walk = (pid: number): void => {
    for (const child of children.get(pid) ?? []) {
      found.set(child, names.get(child) ?? '?');
      walk(child);
    }
  };
  walk(root);
  return found;
}

/** Alive and not a zombie. */
function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/** Every live process whose command line names `text` (the test's own DATA_DIR): what the server left behind. */
function processesNaming(text: string): string[] {
  const left: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ');
      if (cmdline.includes(text) && alive(Number(entry))) left.push(`${entry}: ${cmdline.slice(0, 160)}`);
    } catch {
      // gone meanwhile
    }
  }
  return left;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describeOnPostgres('shutdown of the real server with a sandbox in use', () => {
  let database: TestDatabase;
  let dataDir: string;
  let server: ChildProcess;
  let base: string;
  let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  let log = '';

  beforeAll(async () => {
    database = await openTestDatabase('postgres');
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-shutdown-'));
    fs.chmodSync(dataDir, 0o755); // made by an operator with the usual umask: the server closes it
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['--import', 'tsx', 'src/server/server.ts'], {
      env: {
        ...process.env,
        NODE_OPTIONS: '',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dataDir,
        DATABASE_URL: database.url!,
        MODEL_PROVIDER: 'offline',
        LOG_LEVEL: 'info',
        LOGIN_RATE_LIMIT_PER_MINUTE: '1000',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own, so whatever it leaves behind can be cleaned up after the assertions.
      detached: true,
    });
    server.stdout!.setEncoding('utf8').on('data', (d: string) => (log = (log + d).slice(-20_000)));
    server.stderr!.setEncoding('utf8').on('data', (d: string) => (log = (log + d).slice(-20_000)));
    exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
    await until('the server answering /api/ready', async () => {
      if (server.exitCode !== null) throw new Error(`the server exited: ${log}`);
      return fetch(`${base}/api/ready`).then((r) => (r.ok ? true : undefined), () => undefined);
    }, 120_000);
  }, 180_000);

  afterAll(async () => {
    if (server.pid !== undefined && server.exitCode === null) {
      try {
        process.kill(-server.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    for (const line of processesNaming(dataDir)) {
      try {
        process.kill(Number(line.split(':')[0]), 'SIGKILL');
      } catch {
        // gone
      }
    }
    await database.destroy();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  let cookie = '';
  let projectId = 0;
  let call: (method: string, url: string, body: object | undefined, project?: number) => Promise<Record<string, unknown>>;

  it("keeps DATA_DIR, as the running server made it, its user's alone (0700/0600), a sandbox initialised in it", async () => {
    const signIn = await fetch(`${base}/api/github/local-login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'shutdown-person' }),
    });
    expect(signIn.status).toBe(200);
    cookie = signIn.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
    const { installation_id: installationId } = (await signIn.json()) as { installation_id: number };
    const headers = { cookie, 'installation-id': String(installationId), origin: base, 'content-type': 'application/json' };
    call = async (method, url, body, project) => {
      const response = await fetch(`${base}${url}`, {
        method,
        headers: { ...headers, ...(project ? { 'project-id': String(project) } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      const text = await response.text();
      if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${text}`);
      return JSON.parse(text) as Record<string, unknown>;
    };
    projectId = (await call('POST', '/api/projects', { name: 'Shutdown' })).id as number;
    await database.db.insert(planningDocuments).values({ projectId, kind: 'implementation', content: PLAN });
    expect((await call('POST', `/api/sandbox/initialize/${projectId}`, {})).status).toBe('success');
    // DATA_DIR, as the server made it, is its user's alone (the workspace's own files are the sandbox's).
    expect(Object.entries(modesUnder(dataDir)).filter(([, mode]) => mode !== '700' && mode !== '600')).toEqual([]);
    expect((fs.statSync(dataDir).mode & 0o777).toString(8)).toBe('700');
    if (asRoot) {
      for (const argv of [['ls', dataDir], ['cat', path.join(dataDir, 'sandboxes', String(projectId), 'etc', 'passwd')]]) {
        expect({ argv, output: asOtherUser(argv).output }).toEqual({ argv, output: expect.stringMatching(/Permission denied/) });
      }
    }
  }, 120_000);

  it('exits within its bound after SIGTERM, ending the sandbox processes (bwrap, slirp4netns, the pty shell) and reaping them', async () => {
    expect(projectId).toBeGreaterThan(0);

    // A terminal with a background job of its own.
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/sandboxes/${projectId}/ws`, { headers: { cookie }, origin: base });
    let screen = '';
    ws.on('message', (raw) => (screen += (JSON.parse(raw.toString()) as { data?: string }).data ?? ''));
    ws.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => (ws.once('open', () => resolve()), ws.once('error', reject)));
    ws.send(JSON.stringify({ type: 'resize', rows: 24, cols: 80 }));
    ws.send(JSON.stringify({ type: 'input', input: 'sleep 700 & echo shell-$((40+2))\r' }));
    await until('the shell answering', () => (screen.includes('shell-42') ? true : undefined));

    // A step running.
    const plan = await call('POST', '/api/execution/trigger', { message: 'Start execution' }, projectId);
    expect(plan.status).toBe('success');
    const progress = await call('GET', '/api/execution/progress', undefined, projectId);
    await call('POST', '/api/execution/approve-step', { plan_id: progress.id, step_number: 1, approved: true }, projectId);
    await until('the step running', async () => {
      const p = await call('GET', '/api/execution/progress', undefined, projectId);
      const step = (p.steps as { status: string; output: string | null }[])[0]!;
      return step.status === 'in_progress' && step.output?.includes('step-started') ? true : undefined;
    });

    const before = descendants(server.pid!);
    const names = [...before.values()];
    expect(names).toEqual(expect.arrayContaining(['bwrap', 'slirp4netns', 'sleep']));

    // As root the workspace is a loop-mounted image (SANDBOX_DISK_MB): in the host's mount table until the shutdown.
    const workspace = path.join(dataDir, 'sandboxes', String(projectId), 'workspace');
    expect(mountedBelow(dataDir)).toEqual(asRoot ? [workspace] : []);

    process.kill(server.pid!, 'SIGTERM');
    const bound = 10_000;
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([exited, new Promise<'still running'>((resolve) => (timer = setTimeout(() => resolve('still running'), bound + 20_000)))]);
    clearTimeout(timer);
    // Exit status 0: everything closed on its own, not cut by the server's own 10 s timer (which exits
    // non-zero) nor by this test's. How long it took is not asserted: a loaded machine only stretches it.
    expect({ outcome, log: outcome === 'still running' ? log.slice(-3_000) : '' }).toEqual({ outcome: { code: 0, signal: null }, log: '' });
    ws.terminate();

    const left = [...before.entries()].filter(([pid]) => alive(pid)).map(([pid, name]) => `${pid} ${name}`);
    expect(left).toEqual([]);
    expect(processesNaming(dataDir)).toEqual([]);
    // Nothing mounted is left behind: the data directory can be removed.
    expect(mountedBelow(dataDir)).toEqual([]);
  }, 240_000);
});
