import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ErrorResponse } from '../../../shared/api/common';
import {
  AgentMessageBody,
  AnalysisResponse,
  ArchitecturePlanResponse,
  ImplementationPlanResponse,
  KillResponse,
  PlanningThreadParams,
  PlanningThreadResponse,
  RequirementsResponse,
  SaveUserSecretBody,
  SaveUserSecretResponse,
  UserSecretsResponse,
} from '../../../shared/api/planning';
import type { StreamEvent } from '../../../shared/events';
import type { AgentName } from '../../agents/models';
import { projectOf } from '../../plugins/projectHeader';
import { openEventStream, writeEvent } from '../../plugins/sse';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };
const streamErrors = { ...errors, 409: ErrorResponse };
const tags = ['planning'];
const sseAnswer = { 200: Type.Unknown({ description: 'text/event-stream of StreamEvent lines' }), ...streamErrors };

/**
 * Writes an agent turn as server-sent events, one `data: {json}` line each, and closes the connection
 * after `on_chat_model_end` (ARCHITECTURE.md, "The wire contract"). A client that goes away aborts the
 * generation.
 */
export async function sendStream(request: FastifyRequest, reply: FastifyReply, turn: { events: AsyncIterable<StreamEvent> }, onGone: () => void): Promise<void> {
  const raw = openEventStream(reply);
  let finished = false;
  raw.on('close', () => {
    if (!finished) onGone();
  });
  try {
    for await (const event of turn.events) {
      if (raw.destroyed) break;
      writeEvent(raw, event);
    }
  } catch (err) {
    request.log.error({ err }, 'agent turn failed');
  } finally {
    finished = true;
    raw.end();
  }
}

/**
 * The planning stages (part 1 section 7): the four agent streams and the kill, the requirements and
 * analysis, the user secrets, both plans, and each agent's conversation for reloading a chat. The
 * project is the one the Project-Id header names, within the caller's installation.
 */
export const planningRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { planning } = app.services;

  const streamRoute = (path: string, agent: AgentName): void => {
    app.post(
      path,
      { schema: { tags, body: AgentMessageBody, response: sseAnswer } },
      async (request, reply) => {
        const ctx = await projectOf(request);
        const turn = await planning.startTurn(agent, ctx, request.body);
        await sendStream(request, reply, turn, () => planning.abortTurn(ctx.projectId, turn.threadId));
      },
    );
  };
  streamRoute('/planning/requirements-gatherer', 'requirements');
  streamRoute('/planning/cloud-architect', 'architect');
  streamRoute('/planning/implementation-planner', 'implementation');

  app.post(
    '/planning/requirements-gatherer/kill',
    { schema: { tags, response: { 200: KillResponse, ...errors } } },
    async (request) => ({ status: planning.kill((await projectOf(request)).projectId) }),
  );

  app.get('/planning/requirements', { schema: { tags, response: { 200: RequirementsResponse, ...errors } } }, async (request) =>
    planning.requirements((await projectOf(request)).projectId),
  );

  app.get('/planning/analysis', { schema: { tags, response: { 200: AnalysisResponse, ...errors } } }, async (request) =>
    planning.analysis((await projectOf(request)).projectId),
  );

  app.get('/planning/requirements/user-secrets', { schema: { tags, response: { 200: UserSecretsResponse, ...errors } } }, async (request) => ({
    secrets: await planning.listSecrets((await projectOf(request)).projectId),
  }));

  app.post(
    '/planning/requirements/user-secrets',
    { schema: { tags, body: SaveUserSecretBody, response: { 200: SaveUserSecretResponse, ...errors } } },
    async (request) => ({
      secrets_status: await planning.saveSecret((await projectOf(request)).projectId, request.body.name, request.body.value),
    }),
  );

  app.get('/planning/architecture-plan', { schema: { tags, response: { 200: ArchitecturePlanResponse, ...errors } } }, async (request) =>
    planning.plan((await projectOf(request)).projectId, 'architecture'),
  );

  app.get('/planning/implementation-plan', { schema: { tags, response: { 200: ImplementationPlanResponse, ...errors } } }, async (request) =>
    planning.plan((await projectOf(request)).projectId, 'implementation'),
  );

  app.get(
    '/planning/threads/:agent',
    { schema: { tags, params: PlanningThreadParams, response: { 200: PlanningThreadResponse, ...errors } } },
    async (request) => planning.thread((await projectOf(request)).projectId, request.params.agent),
  );
};
