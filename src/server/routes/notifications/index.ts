import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { NotificationSettings, NotificationSettingsBody, NotificationTestResponse } from '../../../shared/api/notifications';
import { ProjectParams } from '../../../shared/api/projects';
import { authOf } from '../../plugins/session';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/** A project's notification settings and a test send; another person's project answers 404. */
export const notificationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { notifications, projects } = app.services;

  app.get('/projects/:id/notifications', { schema: { tags: ['notifications'], params: ProjectParams, response: { 200: NotificationSettings, ...errors } } }, async (request) => {
    const project = await projects.require(authOf(request).installationId, Number(request.params.id));
    return notifications.get(project.id);
  });

  app.put(
    '/projects/:id/notifications',
    { schema: { tags: ['notifications'], params: ProjectParams, body: NotificationSettingsBody, response: { 200: NotificationSettings, ...errors } } },
    async (request) => {
      const project = await projects.require(authOf(request).installationId, Number(request.params.id));
      return notifications.put(project.id, request.body);
    },
  );

  app.post(
    '/projects/:id/notifications/test',
    {
      schema: { tags: ['notifications'], description: 'Sends a test notice through every channel set; each delivery is answered and kept.', params: ProjectParams, response: { 200: NotificationTestResponse, ...errors } },
      // Counted once the request is valid (preHandler): a bad body answers its own 4xx, not 429.
      config: { rateLimit: { max: 6, timeWindow: '1 minute', hook: 'preHandler' } },
    },
    async (request) => {
      const project = await projects.require(authOf(request).installationId, Number(request.params.id));
      return notifications.test(project.id, project.name);
    },
  );
};
