import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../../shared/api/common';
import {
  ValidationAgentQuery,
  ValidationApproveStepBody,
  ValidationApproveStepResponse,
  ValidationPlanResponse,
  ValidationProgress,
  ValidationTriggerBody,
  ValidationTriggerResponse,
} from '../../../shared/api/validation';
import { CancelStepBody, Step } from '../../../shared/api/execution';
import { NotModified, peekOwned, sendSnapshot } from '../../plugins/hotPoll';
import { ownedProjectInMemory, projectOf, recentProjectOf } from '../../plugins/projectHeader';
import { sendStream } from '../../plugins/sse';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };
const tags = ['validation'];

/**
 * The validation stage (part 2 section 7): trigger, the plan and progress polls (3 s), approvals and the
 * validation agent's stream. Every call names its project with Project-Id, within the caller's installation.
 */
export const validationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { validation, projects } = app.services;
  const agent = app.services.agents.validation;

  app.post(
    '/validation/trigger',
    { schema: { tags, body: ValidationTriggerBody, response: { 200: ValidationTriggerResponse, ...errors } } },
    async (request) => validation.trigger(await projectOf(request)),
  );

  app.get('/validation/plan', { schema: { tags, response: { 200: ValidationPlanResponse, ...errors } } }, async (request) =>
    validation.plan((await recentProjectOf(request)).projectId),
  );

  app.get(
    '/validation/progress',
    {
      schema: {
        tags,
        description: 'Answered from memory with a weak ETag; 304 when If-None-Match matches.',
        response: { 200: ValidationProgress, 304: NotModified, ...errors },
      },
      config: { snapshotInMemory: (request, auth) => peekOwned(validation.progress, ownedProjectInMemory(projects, request, auth)) },
    },
    async (request, reply) => {
      const { projectId } = await recentProjectOf(request);
      return sendSnapshot(request, reply, await validation.progress.get(projectId));
    },
  );

  app.post(
    '/validation/approve-step',
    { schema: { tags, body: ValidationApproveStepBody, response: { 200: ValidationApproveStepResponse, ...errors } } },
    async (request) => validation.approveStep(await projectOf(request), request.body),
  );

  app.post(
    '/validation/cancel-step',
    { schema: { tags, body: CancelStepBody, response: { 200: Step, ...errors } } },
    async (request) => validation.cancelStep(await projectOf(request), request.body),
  );

  /** The validation agent's stream (same framing as the execution agent's): plans and answers about the run. */
  app.get(
    '/validation/agent',
    { schema: { tags, querystring: ValidationAgentQuery, response: { 200: Type.Unknown({ description: 'text/event-stream of StreamEvent lines' }), 402: ErrorResponse, ...errors } } },
    async (request, reply) => {
      const project = await projectOf(request);
      const turn = await agent.startTurn(project, request.query);
      await sendStream(request, reply, turn, () => agent.abortTurn(turn.threadId));
    },
  );
};
