import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
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
import type { AgentName } from '../../agents/models';
import { projectOf } from '../../plugins/projectHeader';
import { sendStream } from '../../plugins/sse';
import { planningStackRoutes } from './stack';
import { serverInspectionRoutes } from './serverInspection';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };
const streamErrors = { ...errors, 409: ErrorResponse };
const tags = ['planning'];
const sseAnswer = { 200: Type.Unknown({ description: 'text/event-stream of StreamEvent lines' }), ...streamErrors };

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
        await sendStream(request, reply, turn, () => planning.abortTurn(turn.threadId));
      },
    );
  };
  streamRoute('/planning/requirements-gatherer', 'requirements');
  streamRoute('/planning/cloud-architect', 'architect');
  streamRoute('/planning/implementation-planner', 'implementation');

  app.post(
    '/planning/requirements-gatherer/kill',
    { schema: { tags, response: { 200: KillResponse, ...errors } } },
    async (request) => ({ status: planning.kill(await projectOf(request)) }),
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
    planning.architecturePlan((await projectOf(request)).projectId),
  );

  app.get('/planning/implementation-plan', { schema: { tags, response: { 200: ImplementationPlanResponse, ...errors } } }, async (request) =>
    planning.implementationPlan((await projectOf(request)).projectId),
  );

  await app.register(planningStackRoutes);
  await app.register(serverInspectionRoutes);

  app.get(
    '/planning/threads/:agent',
    { schema: { tags, params: PlanningThreadParams, response: { 200: PlanningThreadResponse, ...errors } } },
    async (request) => planning.thread((await projectOf(request)).projectId, request.params.agent),
  );
};
