import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/config';
import { openDatabase } from '../../src/server/db/client';
import { measure, report, startBareFastify } from './harness';
import { benchTerminal } from './terminal';
import { benchStream } from './stream';
import { benchProgress } from './progress';

/**
 * `npm run bench`: the real server's routes against a bare Fastify JSON route measured in the same
 * run on the same machine, printed as ratios (ARCHITECTURE.md, "Performance budgets").
 */
async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  // BENCH_ONLY=terminal,stream runs some sections (projects, progress, terminal, stream); all by default.
  const only = (process.env.BENCH_ONLY ?? '').split(',').filter(Boolean);
  const wanted = (section: string): boolean => only.length === 0 || only.includes(section);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-bench-'));
  const database = await openDatabase({ migrationsDir: 'migrations', dataDir });
  const app = await buildApp({ config: loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), database, logger: false });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const bare = await startBareFastify();
  try {
    const login = await fetch(`${base}/api/github/local-login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'bench' }),
    });
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    const { installation_id } = (await login.json()) as { installation_id: number };
    const headers = { cookie, 'installation-id': String(installation_id) };
    for (let i = 0; i < 20; i++) {
      await fetch(`${base}/api/projects`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `project ${i}`, description: 'benchmark project' }),
      });
    }
    console.log(`\nDevOps Agents bench — ${seconds} s per target, 10 connections, database ${database.kind}\n`);
    await measure('warm-up', bare.url, {}, 1);
    const reference = await measure('bare Fastify JSON route (20 items)', bare.url, {}, seconds);
    if (wanted('projects')) report(reference, await measure('GET /api/projects (session, 20 projects)', `${base}/api/projects`, headers, seconds));
    if (wanted('progress')) await benchProgress(app, database, base, headers, reference, seconds);
    if (wanted('terminal')) await benchTerminal(app, base, headers);
    if (wanted('stream')) await benchStream(database, dataDir);
  } finally {
    await bare.app.close();
    await app.close();
    await database.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
