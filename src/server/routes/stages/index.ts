import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse, ProjectIdParams } from '../../../shared/api/common';
import { ProjectState, SetCurrentStageResponse, Stage, StageParams, StageUpdateBody } from '../../../shared/api/stages';
import { authOf } from '../../plugins/session';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };

export const stageRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { projects } = app.services;

  app.get(
    '/project-states/:projectId',
    { schema: { tags: ['stages'], params: ProjectIdParams, response: { 200: ProjectState, ...errors } } },
    async (request) => projects.state(authOf(request).installationId, Number(request.params.projectId)),
  );

  app.put(
    '/project-states/:projectId/current-stage/:stageId',
    { schema: { tags: ['stages'], params: StageParams, response: { 200: SetCurrentStageResponse, ...errors } } },
    async (request) =>
      projects.setCurrentStage(authOf(request).installationId, Number(request.params.projectId), request.params.stageId),
  );

  app.put(
    '/project-states/:projectId/stages/:stageId',
    { schema: { tags: ['stages'], params: StageParams, body: StageUpdateBody, response: { 200: Stage, ...errors } } },
    async (request) =>
      projects.updateStage(authOf(request).installationId, Number(request.params.projectId), request.params.stageId, request.body),
  );
};
