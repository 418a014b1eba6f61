import net from 'node:net';
import { createRedisEventBus } from '../../../src/server/services/execution/redisEventBus';

const quiet = { warn: () => undefined, info: () => undefined };

describe('Redis event bus', () => {
  it('fails the start with a message naming REDIS_URL when Redis does not answer', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = server.address() as net.AddressInfo;
        server.close(() => resolve(p));
      });
    });
    await expect(createRedisEventBus({ url: `redis://127.0.0.1:${port}`, log: quiet, connectTimeoutMs: 500 })).rejects.toThrow(/REDIS_URL: could not connect to Redis/);
  });
});
