import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { AnalyzerBody } from '../../../shared/api/planning';
import { BranchesQuery, BranchesResponse, RepositoriesResponse } from '../../../shared/api/repositories';
import { projectOf } from '../../plugins/projectHeader';
import { authOf } from '../../plugins/session';
import type { InstallationRef } from '../../services/repositories/repositorySource';
import { sendStream } from '../../plugins/sse';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

const installationOf = (request: FastifyRequest): InstallationRef => {
  const { installationId, publicInstallationId } = authOf(request);
  return { installationId, publicInstallationId };
};

/**
 * Repositories (part 1 section 7): the installation's repositories, a repository's branches, and the
 * analyzer stream, which reads the chosen branch and then streams the analyzer agent like the other
 * planning streams.
 */
export const repositoryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { repositories, planning } = app.services;

  app.get(
    '/github/repositories',
    { schema: { tags: ['repositories'], response: { 200: RepositoriesResponse, 401: ErrorResponse } } },
    async (request) => repositories.list(installationOf(request)),
  );

  app.get(
    '/planning/repository/branches',
    { schema: { tags: ['repositories'], querystring: BranchesQuery, response: { 200: BranchesResponse, ...errors } } },
    async (request) => repositories.branches(installationOf(request), request.query.repo_full_name),
  );

  app.post(
    '/planning/analyzer',
    {
      schema: {
        tags: ['planning'],
        body: AnalyzerBody,
        response: { 200: Type.Unknown({ description: 'text/event-stream of StreamEvent lines' }), ...errors, 409: ErrorResponse },
      },
    },
    async (request, reply) => {
      const ctx = await projectOf(request);
      const turn = await repositories.analyze(ctx, installationOf(request), request.body);
      await sendStream(request, reply, turn, () => planning.abortTurn(turn.threadId));
    },
  );
};
