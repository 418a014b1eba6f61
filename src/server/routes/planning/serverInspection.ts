import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { ServerInspectionBody, ServerInspectionOffer, ServerInspectionResult } from '../../../shared/api/serverInspection';
import { projectOf } from '../../plugins/projectHeader';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
const tags = ['planning'];

/**
 * The inspection of the person's existing server before the architecture plan is final: GET offers the
 * exact read-only command (or says why there is none), POST runs it when the body is that same command (the
 * person's approval) and stores what it found in the stack model. The project is the one the Project-Id
 * header names, within the caller's installation.
 */
export const serverInspectionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { serverInspection } = app.services;

  app.get('/planning/server-inspection', { schema: { tags, response: { 200: ServerInspectionOffer, ...errors } } }, async (request) =>
    serverInspection.offer((await projectOf(request)).projectId),
  );

  app.post('/planning/server-inspection', { schema: { tags, body: ServerInspectionBody, response: { 200: ServerInspectionResult, ...errors } } }, async (request) =>
    serverInspection.run(await projectOf(request), request.body.command),
  );
};
