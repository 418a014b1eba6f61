import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { StackOpsBody, StackResponse } from '../../../shared/api/stack';
import { projectOf } from '../../plugins/projectHeader';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };
const tags = ['planning'];

/**
 * The stack model behind the Collected Requirements panel: read it with the catalogue, and change it with
 * stack operations (remove, add from the catalogue, a port, a domain, public or private). The project is
 * the one the Project-Id header names, within the caller's installation.
 */
export const planningStackRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { planning } = app.services;

  app.get('/planning/stack', { schema: { tags, response: { 200: StackResponse, ...errors } } }, async (request) =>
    planning.stack((await projectOf(request)).projectId),
  );

  app.post('/planning/stack/ops', { schema: { tags, body: StackOpsBody, response: { 200: StackResponse, ...errors } } }, async (request) =>
    planning.editStack((await projectOf(request)).projectId, request.body.ops),
  );
};
