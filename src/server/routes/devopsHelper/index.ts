import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/websocket';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { ChatThreadResponse, ErrorResponse, ProjectIdParams } from '../../../shared/api/common';
import { ApprovalBody, ApprovalResponse, DevopsHelperChatBody, DevopsHelperKillResponse } from '../../../shared/api/devopsHelper';
import { ApprovalClientMessage, DEVOPS_HELPER_STREAM_EVENTS, STREAM_EVENTS, type ApprovalServerMessage } from '../../../shared/events';
import { HttpError } from '../../errors';
import { projectOf } from '../../plugins/projectHeader';
import { authOf } from '../../plugins/session';
import { sendStream, type StreamFraming } from '../../plugins/sse';
import type { ApprovalScope } from '../../services/devopsHelper/approvals';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
const tags = ['devopsHelper'];
/** Close codes of the approval socket. */
const APPROVAL_CLOSE = { badMessage: 4400, shutdown: 1001 } as const;
/** Client frames are a ping; anything longer is not one. */
const MAX_CLIENT_FRAME = 1024;
const clientMessage = Compile(ApprovalClientMessage);

/**
 * A helper turn's stream framing (events.ts): `event: id` first, then `event: message` per StreamEvent,
 * an `event: error` for a failure; the stream ends after `on_chat_model_end` or the error.
 */
const helperFraming = (threadId: string): StreamFraming => ({
  opening: { event: DEVOPS_HELPER_STREAM_EVENTS.id, data: { thread_id: threadId } },
  frame: (event) =>
    event.event === STREAM_EVENTS.error ? { event: DEVOPS_HELPER_STREAM_EVENTS.error, data: event.data } : { event: DEVOPS_HELPER_STREAM_EVENTS.message, data: event },
  failure: 'devops helper turn failed',
});

/**
 * The DevOps Helper (part 2 sections 2, 4, 7): the chat stream and its kill, the approval decision and
 * the approval socket. A command the helper proposes runs in the project's sandbox only after the person
 * approves that request, once; requests are scoped to the caller's installation and project.
 */
export const devopsHelperRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { projects } = app.services;
  const { approvals, devopsHelper: agent } = app.services.agents;
  const allowedOrigins = new Set([app.config.publicUrl, ...app.config.allowedOrigins]);
  const sockets = new Set<import('ws').WebSocket>();
  app.addHook('preClose', async () => {
    for (const socket of sockets) socket.close(APPROVAL_CLOSE.shutdown, 'Server shutting down');
  });

  const scopeOf = async (request: FastifyRequest): Promise<ApprovalScope> => {
    const { projectId, installationId } = await projectOf(request);
    return { projectId, installationId };
  };

  app.post(
    '/devops-helper/chat',
    { schema: { tags, body: DevopsHelperChatBody, response: { 200: Type.Unknown({ description: 'text/event-stream of DevopsHelperStreamFrame' }), 402: ErrorResponse, ...errors } } },
    async (request, reply) => {
      const turn = await agent.startTurn(await scopeOf(request), request.body);
      await sendStream(request, reply, turn, () => agent.abortTurn(turn.threadId), helperFraming(turn.threadId));
    },
  );

  /** The helper's latest conversation in the project, with its command notes, so a reloaded chat shows it again (redacted). */
  app.get('/devops-helper/thread', { schema: { tags, response: { 200: ChatThreadResponse, ...errors } } }, async (request) =>
    agent.thread(await scopeOf(request)),
  );

  app.post('/devops-helper/kill', { schema: { tags, response: { 200: DevopsHelperKillResponse, ...errors } } }, async (request) => ({
    status: agent.kill(await scopeOf(request)),
  }));

  app.post(
    '/devops-helper/approval',
    { schema: { tags, body: ApprovalBody, response: { 200: ApprovalResponse, ...errors } } },
    async (request) => ({
      approval_id: request.body.approval_id,
      status: approvals.decide(await scopeOf(request), request.body.approval_id, request.body.approved),
    }),
  );

  const scopes = new WeakMap<FastifyRequest, ApprovalScope>();
  app.get(
    '/devops-helper/ws/approval/:projectId',
    {
      websocket: true,
      schema: { tags, params: ProjectIdParams, response: { 401: ErrorResponse, 403: ErrorResponse, 404: ErrorResponse } },
      onRequest: async (request) => {
        const origin = request.headers.origin;
        if (!origin || !allowedOrigins.has(origin)) throw new HttpError(403, 'WebSocket origin not allowed');
      },
      preHandler: async (request) => {
        const { installationId } = authOf(request);
        const projectId = Number(request.params.projectId);
        await projects.require(installationId, projectId);
        scopes.set(request, { installationId, projectId });
      },
    },
    (socket, request) => {
      const scope = scopes.get(request)!;
      const send = (message: ApprovalServerMessage): void => {
        if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
      };
      sockets.add(socket);
      const unsubscribe = approvals.subscribe(scope, send);
      socket.on('message', (raw: Buffer, isBinary: boolean) => {
        let message: unknown;
        try {
          message = !isBinary && raw.length <= MAX_CLIENT_FRAME ? JSON.parse(raw.toString()) : undefined;
        } catch {
          message = undefined;
        }
        if (!clientMessage.Check(message)) socket.close(APPROVAL_CLOSE.badMessage, 'Invalid approval socket message');
        else send({ type: 'pong' });
      });
      socket.on('close', () => {
        unsubscribe();
        sockets.delete(socket);
      });
      // A request made while this socket was away is still waiting: announce it again.
      for (const pending of approvals.pending(scope)) send(pending);
    },
  );
};
