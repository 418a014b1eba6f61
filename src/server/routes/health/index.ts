import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../../shared/api/common';

const Health = Type.Object({ status: Type.String() });

/** Liveness (`/api/health`) and readiness (`/api/ready`: the database answers). */
export const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/health', { config: { public: true }, schema: { tags: ['health'], response: { 200: Health } } }, async () => ({ status: 'ok' }));

  app.get(
    '/ready',
    { config: { public: true }, schema: { tags: ['health'], response: { 200: Health, 503: ErrorResponse } } },
    async (request, reply) => {
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
