import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ErrorResponse } from '../../../shared/api/common';
import {
  ApproveStepResponse,
  ExecutionAgentQuery,
  ExecutionApproveStepBody,
  ExecutionProgress,
  ExecutionTriggerBody,
  ExecutionTriggerResponse,
} from '../../../shared/api/execution';
import { projectOf, type ScopedProject } from '../../plugins/projectHeader';
import { openEventStream, writeEvent } from '../../plugins/sse';
import { authOf } from '../../plugins/session';
import { terminalCommandsTopic } from '../../services/execution/executionService';
import { createExecutionAgent } from '../../services/execution/executionAgent';
import { createModelProvider } from '../../agents/models';
import { sendStream } from '../planning';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
const tags = ['execution'];

/** How long a project found to be the caller's is trusted without asking the database again (as sessions are). */
const OWNER_CACHE_MS = 5_000;
const SSE_KEEPALIVE_MS = 25_000;

/**
 * The execution stage (part 2 section 7): trigger, approvals, the progress poll, and the commands the
 * agent runs for the terminal. Every call names its project with Project-Id, within the caller's installation.
 */
export const executionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { execution, executionCommands } = app.services;
  await execution.recoverInterrupted();
  const agent = createExecutionAgent({
    db: app.database.db,
    models: createModelProvider(app.config.planning.models),
    execution,
    secretValues: (projectId) => app.services.planning.secretValues(projectId),
    meter: app.services.meter,
  });

  /**
   * `projectOf` for the hot poll: a project already found to be this installation's is trusted for a
   * few seconds, so a poll with a current ETag costs no query at all.
   */
  /** Open command streams, ended before the server closes (a hijacked reply would hold `close` open). */
  const streams = new Set<import('node:http').ServerResponse>();
  app.addHook('preClose', async () => {
    for (const raw of streams) raw.end();
  });

  const owners = new Map<string, number>();
  const cachedProjectOf = async (request: FastifyRequest): Promise<ScopedProject> => {
    const { installationId } = authOf(request);
    const raw = request.headers['project-id'];
    if (typeof raw === 'string' && /^[0-9]{1,15}$/.test(raw)) {
      const key = `${installationId}:${raw}`;
      const until = owners.get(key);
      if (until !== undefined && until > Date.now()) return { projectId: Number(raw), installationId };
      const scoped = await projectOf(request);
      if (owners.size > 10_000) owners.clear();
      owners.set(key, Date.now() + OWNER_CACHE_MS);
      return scoped;
    }
    return projectOf(request);
  };

  app.post(
    '/execution/trigger',
    { schema: { tags, body: ExecutionTriggerBody, response: { 200: ExecutionTriggerResponse, ...errors } } },
    async (request) => execution.trigger(await projectOf(request)),
  );

  app.post(
    '/execution/approve-step',
    { schema: { tags, body: ExecutionApproveStepBody, response: { 200: ApproveStepResponse, ...errors } } },
    async (request) => execution.approveStep(await projectOf(request), request.body),
  );

  app.get(
    '/execution/progress',
    {
      schema: {
        tags,
        description: 'Answered from memory with a weak ETag; 304 when If-None-Match matches.',
        response: { 200: ExecutionProgress, 304: Type.Null({ description: 'Not modified' }), ...errors },
      },
    },
    async (request, reply) => {
      const { projectId } = await cachedProjectOf(request);
      const answer = await execution.progress(projectId);
      reply.header('etag', answer.etag).header('cache-control', 'private, no-cache');
      if (request.headers['if-none-match'] === answer.etag) {
        // No payload at all: `null` would be serialised and announced as 4 bytes a 304 never carries.
        return reply.code(304).send(undefined as unknown as null);
      }
      // The body is the snapshot's JSON, serialised once per version: Fastify sends a string as is, so the
      // type provider's object type does not apply (the schema still documents the shape).
      return reply.type('application/json; charset=utf-8').send(answer.body() as unknown as ExecutionProgress);
    },
  );

  /**
   * The execution agent's stream (same framing as planning): it answers questions about the run and may
   * change or add steps, which then wait for approval.
   */
  app.get(
    '/execution/agent',
    { schema: { tags, querystring: ExecutionAgentQuery, response: { 200: Type.Unknown({ description: 'text/event-stream of StreamEvent lines' }), 402: ErrorResponse, ...errors } } },
    async (request, reply) => {
      const project = await projectOf(request);
      const turn = await agent.startTurn(project, request.query);
      await sendStream(request, reply, turn, () => agent.abortTurn(turn.threadId));
    },
  );

  /**
   * The commands the execution agent runs, as server-sent events, so the terminal types them:
   *   data: {"command":"docker compose up -d","simulate_typing":true,"typing_speed":50}
   */
  app.get('/terminal/commands', { schema: { tags: ['terminal'], response: { 200: Type.Unknown({ description: 'text/event-stream of TerminalCommandEvent lines' }), ...errors } } }, async (request, reply) => {
    const { projectId } = await projectOf(request);
    const raw = openEventStream(reply);
    raw.write(': connected\n\n');
    const unsubscribe = executionCommands.subscribe(terminalCommandsTopic(projectId), (event) => {
      if (!raw.destroyed) writeEvent(raw, event);
    });
    const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), SSE_KEEPALIVE_MS);
    streams.add(raw);
    raw.on('close', () => {
      clearInterval(keepAlive);
      unsubscribe();
      streams.delete(raw);
    });
  });
};
