import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { DocumentationGenerateBody, DocumentationResponse } from '../../../shared/api/documentation';
import { projectOf } from '../../plugins/projectHeader';
import { sendStream } from '../../plugins/sse';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
const tags = ['documentation'];

/**
 * The project's documentation (part 2 sections 2, 4, 7): the current documentation, and its generation
 * after validation (a stream, like the agents'; the documents leave its path open), which answers 409
 * while a validation check has no result.
 */
export const documentationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { documentation } = app.services;
  const agent = app.services.agents.documentation;

  app.get('/documentation/current', { schema: { tags, response: { 200: DocumentationResponse, ...errors } } }, async (request) =>
    documentation.current((await projectOf(request)).projectId),
  );

  app.post(
    '/documentation/generate',
    { schema: { tags, body: DocumentationGenerateBody, response: { 200: Type.Unknown({ description: 'text/event-stream of StreamEvent lines' }), 402: ErrorResponse, ...errors } } },
    async (request, reply) => {
      const project = await projectOf(request);
      await documentation.assertDocumentable(project.projectId);
      const turn = await agent.startTurn(project, { message: request.body.message });
      await sendStream(request, reply, turn, () => agent.abortTurn(turn.threadId));
    },
  );
};
