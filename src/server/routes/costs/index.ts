import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { ProjectCostsResponse, TokenUsageResponse } from '../../../shared/api/costs';
import { ProjectParams } from '../../../shared/api/projects';
import { NotModified, sendSnapshot } from '../../plugins/hotPoll';
import { authOf } from '../../plugins/session';

export const costRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/projects/:id/costs',
    {
      schema: {
        tags: ['costs'],
        description: 'Polled every 10 s: answered from memory with a weak ETag; 304 when If-None-Match matches.',
        params: ProjectParams,
        response: { 200: ProjectCostsResponse, 304: NotModified, 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse },
      },
    },
    async (request, reply) => {
      const project = await app.services.projects.requireRecent(authOf(request).installationId, Number(request.params.id));
      return sendSnapshot(request, reply, await app.services.costs.costsSnapshot(project.id));
    },
  );

  app.get(
    '/projects/:id/token-usage',
    { schema: { tags: ['costs'], params: ProjectParams, response: { 200: TokenUsageResponse, 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse } } },
    async (request) => {
      const project = await app.services.projects.require(authOf(request).installationId, Number(request.params.id));
      return { ...(await app.services.costs.tokenUsage(project.id)), rates: app.services.meter.rates() };
    },
  );
};
