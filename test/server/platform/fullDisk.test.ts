import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ExecutionProgress, Step } from '../../../src/shared/api/execution';
import { planningDocuments } from '../../../src/server/db/schema';
import { isDiskFull } from '../../../src/server/services/health/diskSpace';
import { TURN_NOT_SAVED } from '../../../src/server/agents/turnLoop';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';

const MB = 1024 * 1024;
/** The tmpfs DATA_DIR lives on, and the free space readiness asks for (DISK_MIN_FREE_MB). */
const DISK_MB = 24;
const MIN_FREE_MB = 4;

/** A real small file system for DATA_DIR: a tmpfs mounted for this test (root only), or why it cannot be. */
function mountSmallDisk(sizeMb: number): { dir: string; reason: null } | { dir: null; reason: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-fulldisk-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMb}m,mode=0755`, 'da-fulldisk', dir], { stdio: 'pipe' });
    return { dir, reason: null };
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    return { dir: null, reason: `mounting a tmpfs is not permitted here (${String((err as Error).message).split('\n')[0]})` };
  }
}

function unmount(dir: string): void {
  execFileSync('umount', ['-l', dir]);
  fs.rmSync(dir, { recursive: true, force: true });
}

const disk = mountSmallDisk(DISK_MB);
if (disk.reason) console.warn(`full-disk tests skipped: ${disk.reason}`);
const describeOnDisk = disk.dir ? describe : describe.skip;

/** Fills the disk with one file until only `leaveBytes` are free (0: until a write fails with ENOSPC). */
function fill(file: string, leaveBytes: number): void {
  const { bavail, bsize } = fs.statfsSync(path.dirname(file));
  const want = Math.max(0, bavail * bsize - leaveBytes);
  const fd = fs.openSync(file, 'a');
  try {
    for (let written = 0; leaveBytes === 0 || written < want; ) {
      const chunk = Math.min(MB, leaveBytes === 0 ? MB : want - written);
      if (chunk <= 0) break;
      try {
        written += fs.writeSync(fd, Buffer.alloc(chunk, 1));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
        throw err;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * A full disk, on a real small file system: readiness says not ready while DATA_DIR's disk has less
 * than DISK_MIN_FREE_MB free or a write hit ENOSPC, and every answer of a write that failed for want of
 * space says so in plain words (507 `{detail}`), never a raw "ENOSPC…".
 */
describeOnDisk('a full disk under DATA_DIR', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dataDir: string;
  let filler: string;
  let alice: TestUser;
  let projectId: number;

  const call = (method: 'GET' | 'POST', url: string, payload?: object) =>
    app.inject({ method, url, headers: { ...alice.headers, 'project-id': String(projectId) }, ...(payload ? { payload } : {}) });
  const ready = () => app.inject({ method: 'GET', url: '/api/ready' });

  beforeAll(async () => {
    dataDir = path.join(disk.dir!, 'data');
    filler = path.join(disk.dir!, 'filler');
    database = await openTestDatabase('pglite');
    // The host's disk itself filling: what a workspace quota (SANDBOX_DISK_MB) exists to prevent, so off here.
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, DISK_MIN_FREE_MB: String(MIN_FREE_MB), LOGIN_RATE_LIMIT_PER_MINUTE: '1000', SANDBOX_DISK_MB: '0' } });
    alice = await signIn(app, 'alice');
    projectId = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Full disk' } })).json().id;
    expect((await call('POST', `/api/sandbox/initialize/${projectId}`, {})).json().status).toBe('success');
  });
  afterAll(async () => {
    await app?.close();
    await database?.destroy();
    unmount(disk.dir!);
  });

  it('is ready with room to spare, and not ready below DISK_MIN_FREE_MB, naming the free space and the disk', async () => {
    expect((await ready()).statusCode).toBe(200);
    fill(filler, (MIN_FREE_MB / 2) * MB);
    const answer = await ready();
    expect(answer.statusCode).toBe(503);
    expect(answer.json().detail).toMatch(new RegExp(`^The server's disk is nearly full: [0-9.]+ MB free space on the disk that holds its data directory \\(${dataDir}\\)`));
    fs.rmSync(filler);
    expect((await ready()).statusCode).toBe(200);
  });

  it('answers a sandbox write that hits ENOSPC with 507 in plain words, and is not ready until space is back', async () => {
    fs.writeFileSync(path.join(dataDir, 'sandboxes', String(projectId), 'workspace', 'notes.txt'), 'x'.repeat(256 * 1024));
    fill(filler, 0);
    const backup = await call('POST', `/api/sandboxes/${projectId}/backup`, {});
    expect(backup.statusCode).toBe(507);
    expect(backup.json()).toEqual({ detail: expect.stringMatching(/^The server's disk is full: there is no free space on the disk that holds its data directory/) });
    const stop = await call('POST', `/api/sandboxes/${projectId}/stop`, {});
    expect(stop.statusCode).toBe(409);
    expect(stop.json().detail).toContain("The server's disk is full: there is no free space on");
    for (const body of [backup.body, stop.body]) expect(body).not.toMatch(/ENOSPC|EDQUOT|errno/);

    const notReady = await ready();
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json().detail).toMatch(/^The server's disk is (nearly )?full/);

    // A little space back, above DISK_MIN_FREE_MB: the probe write succeeds and the server is ready again.
    fs.truncateSync(filler, Math.max(0, fs.statSync(filler).size - 2 * MIN_FREE_MB * MB));
    expect((await ready()).statusCode).toBe(200);
    expect((await call('POST', `/api/sandboxes/${projectId}/backup`, {})).json().status).toBe('success');
    fs.rmSync(filler);
  });

  it("a step that runs out of space fails honestly with its own output, and readiness knows until space is back", async () => {
    const plan = ['# Implementation Plan', '', '## Step 1: Write a big file', '', 'Writes 64 MB.', '', '```bash', 'head -c 67108864 /dev/zero > big.bin', '```', ''].join('\n');
    await database.db.insert(planningDocuments).values({ projectId, kind: 'implementation', content: plan });
    expect((await call('POST', '/api/execution/trigger', { message: 'Start execution' })).statusCode).toBe(200);
    const planId = ((await call('GET', '/api/execution/progress')).json() as ExecutionProgress).id;
    expect((await call('POST', '/api/execution/approve-step', { plan_id: planId, step_number: 1, approved: true })).statusCode).toBe(200);
    let step: Step;
    for (;;) {
      step = ((await call('GET', '/api/execution/progress')).json() as ExecutionProgress).steps[0]!;
      if (step.status !== 'in_progress') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(step.status).toBe('failed');
    expect(step.error_message).toBe('The command exited with code 1.');
    expect(step.output).toMatch(/No space left on device/);
    // The workspace commit after it failed for want of space too: readiness knows until space is back.
    expect((await ready()).statusCode).toBe(503);
    fs.rmSync(path.join(dataDir, 'sandboxes', String(projectId), 'workspace', 'big.bin'), { force: true });
    expect((await ready()).statusCode).toBe(200);
  });
});

describeOnDisk('a full disk under the database (PGlite in DATA_DIR)', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let mount: string;
  let filler: string;
  let alice: TestUser;

  beforeAll(async () => {
    const big = mountSmallDisk(160);
    if (big.dir === null) throw new Error(big.reason);
    mount = big.dir;
    filler = path.join(mount, 'filler');
    const dataDir = path.join(mount, 'data');
    database = await openTestDatabase('pglite', dataDir);
    // DISK_MIN_FREE_MB=0: only the write that hit ENOSPC makes the server not ready here.
    app = await buildTestApp(database, { env: { DATA_DIR: dataDir, DISK_MIN_FREE_MB: '0', LOGIN_RATE_LIMIT_PER_MINUTE: '1000' } });
    alice = await signIn(app, 'alice');
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await database?.destroy().catch(() => undefined);
    if (mount) unmount(mount);
  });

  it('answers a database write on a full disk with 507 in plain words, not ready until space is back, then writes again', async () => {
    expect((await app.inject({ method: 'GET', url: '/api/ready' })).statusCode).toBe(200);
    fill(filler, 0);
    const answers = [];
    for (let i = 0; i < 20; i++) {
      const answer = await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: `Project ${i} ${'x'.repeat(80)}` } });
      answers.push(answer);
      if (answer.statusCode !== 201) break;
    }
    const refused = answers.at(-1)!;
    expect(refused.statusCode).toBe(507);
    expect(refused.json()).toEqual({ detail: expect.stringMatching(/^The server's disk is full: there is no free space on the disk that holds its data directory/) });
    expect(refused.body).not.toMatch(/ENOSPC|could not extend|errno/);
    expect((await app.inject({ method: 'GET', url: '/api/ready' })).json().detail).toMatch(/^The server's disk is full/);

    fs.rmSync(filler);
    expect((await app.inject({ method: 'GET', url: '/api/ready' })).statusCode).toBe(200);
    expect((await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'After' } })).statusCode).toBe(201);
  });

  it('ends an agent turn whose checkpoint the full disk refused with an error the person sees, and keeps no answer in the thread', async () => {
    const project = (await app.inject({ method: 'POST', url: '/api/projects', headers: alice.headers, payload: { name: 'Unkept turn' } })).json<{ id: number }>();
    const headers = { ...alice.headers, 'project-id': String(project.id) };
    fill(filler, 0);
    const answer = await app.inject({ method: 'POST', url: '/api/planning/requirements-gatherer', headers, payload: { message: 'A VPS with PostgreSQL for a small web app' } });
    if (answer.statusCode === 200) {
      const events = answer.body
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as { event: string; data?: { detail?: string } });
      expect(events.at(-1)).toEqual(expect.objectContaining({ event: 'error', data: { detail: TURN_NOT_SAVED } }));
      expect(events.filter((e) => e.event === 'on_chat_model_end')).toEqual([]);
    } else {
      // Refused before any byte was streamed (the thread's row could not be written): 507 in plain words.
      expect(answer.statusCode).toBe(507);
      expect(answer.json().detail).toMatch(/^The server's disk is full/);
    }
    fs.rmSync(filler);
    const thread = await app.inject({ method: 'GET', url: '/api/planning/threads/requirementsAgent', headers });
    expect(thread.body).not.toContain('small web app');
  });
});

describe('isDiskFull', () => {
  it('knows a full disk by its code, its cause, PostgreSQL disk_full and the words programs print', () => {
    const coded = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });
    expect(isDiskFull(coded('ENOSPC'))).toBe(true);
    expect(isDiskFull(coded('EDQUOT'))).toBe(true);
    expect(isDiskFull(coded('53100', 'could not extend file "base/5/16384": wrote only 4096 of 8192 bytes'))).toBe(true);
    expect(isDiskFull(new Error('Committing step 2 failed: fatal: unable to write new index file', { cause: coded('ENOSPC') }))).toBe(true);
    expect(isDiskFull(new Error('Backup failed: tar: backups/x.tar: Wrote only 4096 of 10240 bytes: No space left on device'))).toBe(true);
    expect(isDiskFull(new Error('write failed: Disk quota exceeded'))).toBe(true);
    expect(isDiskFull(coded('ENOENT', 'ENOENT: no such file or directory'))).toBe(false);
    expect(isDiskFull(new Error('The command exited with code 1.'))).toBe(false);
    expect(isDiskFull(undefined)).toBe(false);
  });
});
