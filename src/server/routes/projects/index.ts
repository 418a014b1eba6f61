import { TypeBoxValidatorCompiler, type FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { CreateProjectBody, Project, ProjectList, ProjectListQuery, ProjectParams } from '../../../shared/api/projects';
import { answeredNotModified, NotModified } from '../../plugins/hotPoll';
import { authOf } from '../../plugins/session';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

export const projectRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { projects } = app.services;

  app.get(
    '/projects',
    {
      // Query numbers arrive as strings and the app's ajv does not coerce: TypeBox converts them first.
      validatorCompiler: TypeBoxValidatorCompiler,
      schema: {
        tags: ['projects'],
        description: 'Every project, or one page with `limit` (next page in the Link header, total in X-Total-Count); weak ETag, 304 when If-None-Match is current.',
        querystring: ProjectListQuery,
        response: { 200: ProjectList, 304: NotModified, 400: ErrorResponse, 401: ErrorResponse },
      },
    },
    async (request, reply) => {
      const { installationId } = authOf(request);
      const { limit, cursor } = request.query;
      const version = await projects.listVersion(installationId);
      // One version tags every page of it; the query is part of the tag so no page answers for another.
      const etag = `${version.etag.slice(0, -1)}.${limit ?? 'all'}.${cursor ?? ''}"`;
      reply.header('x-total-count', String(version.value.total));
      if (answeredNotModified(request, reply, etag)) return reply;
      if (limit === undefined) return projects.list(installationId);
      const page = await projects.listPage(installationId, limit, cursor);
      if (page.next) reply.header('link', `</api/projects?limit=${limit}&cursor=${page.next}>; rel="next"`);
      return page.projects;
    },
  );

  app.post('/projects', { schema: { tags: ['projects'], body: CreateProjectBody, response: { 201: Project, ...errors } } }, async (request, reply) => {
    const project = await projects.create(authOf(request).installationId, request.body);
    return reply.status(201).send(project);
  });

  app.get('/projects/:id', { schema: { tags: ['projects'], params: ProjectParams, response: { 200: Project, ...errors } } }, async (request) =>
    projects.get(authOf(request).installationId, Number(request.params.id)),
  );
};
