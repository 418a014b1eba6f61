import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { CreateProjectBody, Project, ProjectList, ProjectParams } from '../../../shared/api/projects';
import { authOf } from '../../plugins/session';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

export const projectRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { projects } = app.services;

  app.get('/projects', { schema: { tags: ['projects'], response: { 200: ProjectList, 401: ErrorResponse } } }, async (request) =>
    projects.list(authOf(request).installationId),
  );

  app.post('/projects', { schema: { tags: ['projects'], body: CreateProjectBody, response: { 201: Project, ...errors } } }, async (request, reply) => {
    const project = await projects.create(authOf(request).installationId, request.body);
    return reply.status(201).send(project);
  });

  app.get('/projects/:id', { schema: { tags: ['projects'], params: ProjectParams, response: { 200: Project, ...errors } } }, async (request) =>
    projects.get(authOf(request).installationId, Number(request.params.id)),
  );
};
