import { createRedisEventBus } from '../../../src/server/services/events/redisEventBus';
import { freePort } from '../helpers/freePort';

const quiet = { warn: () => undefined, info: () => undefined };

describe('Redis event bus', () => {
  it('fails the start with a message naming REDIS_URL when Redis does not answer', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await freePort();
    await expect(createRedisEventBus({ url: `redis://127.0.0.1:${port}`, log: quiet, connectTimeoutMs: 500 })).rejects.toThrow(/REDIS_URL: could not connect to Redis/);
  });
});
