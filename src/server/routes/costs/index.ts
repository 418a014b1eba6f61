import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { TokenUsageResponse } from '../../../shared/api/costs';
import { ProjectParams } from '../../../shared/api/projects';
import { authOf } from '../../plugins/session';

const ProjectCosts = Type.Object({ total_cost: Type.String(), last_updated: Type.Union([Type.String(), Type.Null()]) });

export const costRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/projects/:id/costs',
    { schema: { tags: ['costs'], params: ProjectParams, response: { 200: ProjectCosts, 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse } } },
    async (request) => {
      const project = await app.services.projects.require(authOf(request).installationId, Number(request.params.id));
      return app.services.costs.projectCosts(project.id);
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
