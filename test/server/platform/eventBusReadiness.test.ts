import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from '../helpers/testApp';
import { openTestDatabase, type TestDatabase } from '../helpers/testDatabase';
import { startRedis } from '../helpers/redisServer';
import { until } from '../helpers/until';

describe('a replica that has lost the event bus says so in /api/ready', () => {
  let database: TestDatabase;
  let app: FastifyInstance;
  let dir: string;
  let redis: { url: string; child: ChildProcess };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'da-bus-ready-'));
    redis = await startRedis(dir);
    database = await openTestDatabase('pglite');
    app = await buildTestApp(database, { env: { DATA_DIR: dir, REDIS_URL: redis.url } });
  }, 60_000);
  afterAll(async () => {
    redis.child.kill('SIGKILL');
    await app.close();
    await database.destroy();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers 503 with a detail naming the event bus while Redis is down, and ready again once it is back', async () => {
    const ready = () => app.inject('/api/ready');
    expect((await ready()).statusCode).toBe(200);

    redis.child.kill('SIGKILL');
    // ioredis notices the lost connection when its socket closes, not at once.
    await until(async () => (await ready()).statusCode === 503, 'not ready without Redis');
    const down = await ready();
    expect(down.json<{ detail: string }>().detail).toMatch(/event bus \(Redis\) is not connected/);

    redis = await startRedis(dir, Number(new URL(redis.url).port));
    await until(async () => (await ready()).statusCode === 200, 'ready once Redis is back', 20_000);
  }, 60_000);
});
