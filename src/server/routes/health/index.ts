import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../../shared/api/common';

const Health = Type.Object({ status: Type.String() });

/**
 * Liveness (`/api/health`) and readiness (`/api/ready`: DATA_DIR's disk has room — at least
 * DISK_MIN_FREE_MB free and no write refused for want of space since a probe write last succeeded —
 * the event bus reaches the other replicas (REDIS_URL), and the database answers).
 */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', { config: { public: true }, schema: { tags: ['health'], response: { 200: Health } } }, async () => ({ status: 'ok' }));

  app.get(
    '/ready',
    { config: { public: true }, schema: { tags: ['health'], response: { 200: Health, 503: ErrorResponse } } },
    async (request, reply) => {
      const disk = await app.services.disk.problem().catch((err: Error) => `The server's data directory cannot be checked: ${err.message}`);
      if (disk) {
        request.log.warn({ detail: disk }, 'disk not ready');
        return reply.status(503).send({ detail: disk });
      }
      // A replica cut off from the other replicas' events serves what they changed as it was: not ready.
      const bus = app.services.eventBusProblem();
      if (bus) {
        request.log.warn({ detail: bus }, 'event bus not connected');
        return reply.status(503).send({ detail: bus });
      }
      try {
        await app.database.ping();
        return { status: 'ready' };
      } catch (err) {
        request.log.warn({ err }, 'database not reachable');
        return reply.status(503).send({ detail: 'Database not reachable' });
      }
    },
  );
};
