import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { openDatabase, type Database } from '../../../src/server/db/client';
import { buildTestApp, signIn, type TestUser } from '../helpers/testApp';
import { freePort } from '../helpers/freePort';

/** The newest PostgreSQL binaries Debian installed (.ci/run installs the package). */
function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb')));
  versions.sort((a, b) => Number(a) - Number(b));
  return versions.length ? path.join(root, versions[versions.length - 1]!, 'bin') : null;
}

const bin = postgresBin();
const canRun = bin !== null && process.getuid?.() === 0;

/**
 * A PostgreSQL cluster of the test's own (initdb on a free port, run as the postgres user as .ci/run
 * does), stopped, frozen and started again under a running server.
 */
(canRun ? describe : describe.skip)('riding out a PostgreSQL outage', () => {
  let root: string;
  let port: number;
  let database: Database;
  let app: FastifyInstance;
  let alice: TestUser;
  const idleErrors: Error[] = [];
  // Asynchronous, so that the server's event loop sees its connections drop while the cluster stops.
  const pg = (tool: string, ...args: string[]) => promisify(execFile)('runuser', ['-u', 'postgres', '--', path.join(bin!, tool), ...args]);
  const start = () => pg('pg_ctl', '-D', path.join(root, 'data'), '-o', `-p ${port} -k ${root} -c listen_addresses=127.0.0.1`, '-l', path.join(root, 'log'), '-w', 'start');
  const stop = () => pg('pg_ctl', '-D', path.join(root, 'data'), '-m', 'fast', '-w', 'stop');
  const postmasterPid = () => Number(fs.readFileSync(path.join(root, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
  /** The cluster's processes: the postmaster and its children (backends, checkpointer, …). */
  const clusterPids = (): number[] => {
    const parent = postmasterPid();
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(parent)], { encoding: 'utf8' }).split('\n').map(Number).filter(Boolean);
    return [parent, ...children];
  };
  const signalCluster = (signal: NodeJS.Signals, pids: number[]) => {
    for (const pid of pids) {
      try {
        process.kill(pid, signal);
      } catch {
        // gone already
      }
    }
  };
  let frozen: number[] = [];
  const projects = () => app.inject({ method: 'GET', url: '/api/projects', headers: alice.headers });

  beforeAll(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'da-pg-outage-'));
    fs.chmodSync(root, 0o755);
    execFileSync('chown', ['postgres:postgres', root]);
    port = await freePort();
    await pg('initdb', '-D', path.join(root, 'data'), '-A', 'trust', '-U', 'postgres');
    await start();
    database = await openDatabase({
      url: `postgres://postgres@127.0.0.1:${port}/postgres`,
      migrationsDir: 'migrations',
      onIdleError: (err) => idleErrors.push(err),
    });
    app = await buildTestApp(database);
    alice = await signIn(app, 'alice');
  }, 120_000);
  afterAll(async () => {
    signalCluster('SIGCONT', frozen);
    await app?.close();
    await database?.close().catch(() => undefined);
    await stop().catch(() => undefined); // already stopped
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('answers 503 with a clear detail while the database is stopped, and recovers when it is back', async () => {
    expect((await projects()).statusCode).toBe(200);
    await stop();
    const during = await projects();
    expect(during.statusCode).toBe(503);
    expect(during.json()).toEqual({ detail: 'The database is not reachable right now; please try again in a moment' });
    const ready = await app.inject('/api/ready');
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toEqual({ detail: 'Database not reachable' });
    // The pooled connections the restart cut were reported, not thrown: this process is still here.
    expect(idleErrors.length).toBeGreaterThan(0);

    await start();
    expect((await projects()).statusCode).toBe(200);
    expect((await app.inject('/api/ready')).json()).toEqual({ status: 'ready' });
  }, 120_000);

  it('answers not-ready promptly while the database is frozen, instead of waiting for it', async () => {
    expect((await app.inject('/api/ready')).statusCode).toBe(200);
    frozen = clusterPids();
    signalCluster('SIGSTOP', frozen);
    try {
      // A query sent first waits for the frozen database; the ready check gives up on its own ping
      // (PING_TIMEOUT_MS) and answers while that query still waits: an order, not a time.
      let querySettled = false;
      const query = database.db.execute(sql`select 1`).then(
        () => (querySettled = true),
        () => (querySettled = true),
      );
      const ready = await app.inject('/api/ready');
      expect(ready.statusCode).toBe(503);
      expect(querySettled).toBe(false);
      signalCluster('SIGCONT', frozen);
      frozen = [];
      await query;
    } finally {
      signalCluster('SIGCONT', frozen);
      frozen = [];
    }
    expect((await app.inject('/api/ready')).statusCode).toBe(200);
  }, 60_000);
});
