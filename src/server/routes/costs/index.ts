import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { ProjectCostsResponse, TokenUsageResponse } from '../../../shared/api/costs';
import { ProjectParams } from '../../../shared/api/projects';
import { NotModified, peekOwned, sendSnapshot } from '../../plugins/hotPoll';
import { ownedProjectInMemory } from '../../plugins/projectHeader';
import { authOf } from '../../plugins/session';

export const costRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { costs, projects } = app.services;
  app.get(
    '/projects/:id/costs',
    {
      schema: {
        tags: ['costs'],
        description: 'Polled every 10 s: answered from memory with a weak ETag; 304 when If-None-Match matches.',
        params: ProjectParams,
        response: { 200: ProjectCostsResponse, 304: NotModified, 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse },
      },
      config: { snapshotInMemory: (request, auth) => peekOwned(costs.snapshots, ownedProjectInMemory(projects, request, auth, (request.params as ProjectParams).id)) },
    },
    async (request, reply) => {
      const project = await projects.requireRecent(authOf(request).installationId, Number(request.params.id));
      return sendSnapshot(request, reply, await costs.snapshots.get(project.id));
    },
  );

  app.get(
    '/projects/:id/token-usage',
    { schema: { tags: ['costs'], params: ProjectParams, response: { 200: TokenUsageResponse, 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse } } },
    async (request) => {
      const project = await projects.require(authOf(request).installationId, Number(request.params.id));
      return { ...(await costs.tokenUsage(project.id)), rates: app.services.meter.rates() };
    },
  );
};
