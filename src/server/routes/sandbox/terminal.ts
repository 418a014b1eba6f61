import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/websocket';
import { ErrorResponse, ProjectIdParams } from '../../../shared/api/common';
import { TerminalSocketQuery } from '../../../shared/api/terminal';
import { HttpError } from '../../errors';
import { authOf } from '../../plugins/session';
import { NOT_RUNNING } from '../../services/sandbox/sandboxService';
import type { SandboxRef } from '../../sandbox/driver';

/**
 * The terminal socket, `/api/sandboxes/{projectId}/ws`. Everything is decided at the handshake, before
 * the upgrade: the session cookie (the session plugin's onRequest hook), an exact Origin match, the
 * project within the caller's installation (404 otherwise) and a Running sandbox (409). The socket then
 * carries the JSON frames of src/shared/events.ts. `?terminal=<id>` names one of the person's shells
 * (one per browser tab), so a second tab opens a second shell instead of taking the first one over.
 */
export const terminalRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { projects, sandbox, terminals } = app.services;
  const allowedOrigins = new Set([app.config.publicUrl, ...app.config.allowedOrigins]);
  const refs = new WeakMap<FastifyRequest, SandboxRef>();

  app.get(
    '/sandboxes/:projectId/ws',
    {
      websocket: true,
      schema: { tags: ['sandbox'], params: ProjectIdParams, querystring: TerminalSocketQuery, response: { 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse } },
      onRequest: async (request) => {
        const origin = request.headers.origin;
        if (!origin || !allowedOrigins.has(origin)) throw new HttpError(403, 'WebSocket origin not allowed');
      },
      preHandler: async (request) => {
        const project = await projects.require(authOf(request).installationId, Number(request.params.projectId));
        const status = await sandbox.containerStatus(project);
        if (status.container_status !== 'Running') throw new HttpError(409, NOT_RUNNING);
        refs.set(request, sandbox.ref(project));
      },
    },
    async (socket, request) => {
      const ref = refs.get(request)!;
      await terminals.attach(ref, authOf(request).userId, socket, request.query.terminal);
    },
  );
};
