import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ChatThreadResponse, ErrorResponse } from '../../../shared/api/common';
import {
  ApproveStepResponse,
  CancelStepBody,
  ExecutionAgentQuery,
  ExecutionApproveStepBody,
  ExecutionProgress,
  ExecutionTriggerBody,
  ExecutionTriggerResponse,
  ResolveProposalBody,
  Step,
} from '../../../shared/api/execution';
import { NotModified, peekOwned, sendSnapshot } from '../../plugins/hotPoll';
import { ownedProjectInMemory, projectOf, recentProjectOf } from '../../plugins/projectHeader';
import { openEventStream, sendStream, writeComment, writeEvent } from '../../plugins/sse';
import { terminalCommandsTopic } from '../../services/execution/executionService';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
const tags = ['execution'];

const SSE_KEEPALIVE_MS = 25_000;

/**
 * The execution stage (part 2 section 7): trigger, approvals, the progress poll, and the commands the
 * agent runs for the terminal. Every call names its project with Project-Id, within the caller's installation.
 */
export const executionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { execution, executionCommands, projects } = app.services;
  const agent = app.services.agents.execution;

  /** Open command streams, ended before the server closes (a hijacked reply would hold `close` open). */
  const streams = new Set<import('node:http').ServerResponse>();
  app.addHook('preClose', async () => {
    for (const raw of streams) raw.end();
  });

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

  app.post(
    '/execution/cancel-step',
    { schema: { tags, body: CancelStepBody, response: { 200: Step, ...errors } } },
    async (request) => execution.cancelStep(await projectOf(request), request.body),
  );

  app.post(
    '/execution/resolve-change',
    { schema: { tags, body: ResolveProposalBody, response: { 200: Step, ...errors } } },
    async (request) => execution.resolveProposal(await projectOf(request), request.body),
  );

  app.get(
    '/execution/progress',
    {
      schema: {
        tags,
        description: 'Answered from memory with a weak ETag; 304 when If-None-Match matches.',
        response: { 200: ExecutionProgress, 304: NotModified, ...errors },
      },
      config: { snapshotInMemory: (request, auth) => peekOwned(execution.progress, ownedProjectInMemory(projects, request, auth)) },
    },
    async (request, reply) => {
      const { projectId } = await recentProjectOf(request);
      return sendSnapshot(request, reply, await execution.progress.get(projectId));
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

  /** The execution agent's latest conversation in the project, so a reloaded chat shows it again (redacted). */
  app.get('/execution/thread', { schema: { tags, response: { 200: ChatThreadResponse, ...errors } } }, async (request) =>
    agent.thread(await projectOf(request)),
  );

  /**
   * The commands the execution agent runs, as server-sent events, so the terminal types them:
   *   data: {"command":"docker compose up -d","simulate_typing":true,"typing_speed":50}
   */
  app.get('/terminal/commands', { schema: { tags: ['terminal'], response: { 200: Type.Unknown({ description: 'text/event-stream of TerminalStreamEvent lines (display only)' }), ...errors } } }, async (request, reply) => {
    const { projectId } = await projectOf(request);
    const raw = openEventStream(reply);
    writeComment(raw, 'connected');
    const unsubscribe = executionCommands.subscribe(terminalCommandsTopic(projectId), (event) => {
      if (!raw.destroyed) writeEvent(raw, { data: event });
    });
    const keepAlive = setInterval(() => writeComment(raw, 'keep-alive'), SSE_KEEPALIVE_MS);
    streams.add(raw);
    raw.on('close', () => {
      clearInterval(keepAlive);
      unsubscribe();
      streams.delete(raw);
    });
  });
};
