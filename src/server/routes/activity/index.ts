import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import {
  ActivityGridQuery,
  ActivityGridResponse,
  ActivityStatsResponse,
  ActivityTimelineQuery,
  ActivityTimelineResponse,
} from '../../../shared/api/activity';
import { ErrorResponse } from '../../../shared/api/common';
import { ACTIVITY } from '../../../shared/constants/activity';
import { authOf } from '../../plugins/session';

const tags = ['activity'];
const errors = { 400: ErrorResponse, 401: ErrorResponse };

/**
 * The signed-in installation's activity (part 2 section 7). Query numbers arrive as strings and the
 * app's ajv does not coerce, so these routes validate with TypeBox, which converts them first.
 */
export const activityRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  const { activity } = app.services;

  app.get(
    '/users/current/activity/grid',
    { schema: { tags, querystring: ActivityGridQuery, response: { 200: ActivityGridResponse, ...errors } } },
    async (request) => ({
      activities: await activity.grid(authOf(request).installationId, request.query.year ?? new Date().getUTCFullYear()),
    }),
  );

  app.get(
    '/users/current/activity/timeline',
    { schema: { tags, querystring: ActivityTimelineQuery, response: { 200: ActivityTimelineResponse, ...errors } } },
    async (request) => ({
      activities: await activity.timeline(
        authOf(request).installationId,
        request.query.limit ?? ACTIVITY.timelineDefaultLimit,
        request.query.offset ?? ACTIVITY.timelineDefaultOffset,
      ),
    }),
  );

  app.get(
    '/users/current/activity/stats',
    { schema: { tags, response: { 200: ActivityStatsResponse, 401: ErrorResponse } } },
    async (request) => activity.stats(authOf(request).installationId),
  );
};
