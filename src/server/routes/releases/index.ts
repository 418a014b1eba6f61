import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { ProjectParams } from '../../../shared/api/projects';
import { DriftCheck, LastDriftCheck, ReleaseList, ReleaseParams, RollbackResponse, type ReleaseSummary } from '../../../shared/api/releases';
import { authOf } from '../../plugins/session';
import { listReleases } from '../../services/releases/releaseStore';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse };

/**
 * A project's releases, newest first, "Roll back" to one of them (a step waiting for approval) and its
 * drift checks; another person's project answers 404.
 */
export const releaseRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { projects, releases } = app.services;

  /** The caller's project, resolved within their installation, as the step runner names it. */
  const scoped = async (installationId: number, id: string) => {
    const project = await projects.require(installationId, Number(id));
    return { projectId: project.id, installationId };
  };

  app.post('/projects/:id/releases/:number/rollback', { schema: { tags: ['releases'], params: ReleaseParams, response: { 200: RollbackResponse, ...errors } } }, async (request) =>
    releases.requestRollback(await scoped(authOf(request).installationId, request.params.id), Number(request.params.number)),
  );

  app.get('/projects/:id/drift', { schema: { tags: ['releases'], params: ProjectParams, response: { 200: LastDriftCheck, ...errors } } }, async (request) => {
    const project = await scoped(authOf(request).installationId, request.params.id);
    return { check: await releases.lastDriftCheck(project.projectId) };
  });

  app.post('/projects/:id/drift', { schema: { tags: ['releases'], params: ProjectParams, response: { 200: DriftCheck, ...errors } } }, async (request) =>
    releases.checkDrift(await scoped(authOf(request).installationId, request.params.id)),
  );

  app.get('/projects/:id/releases', { schema: { tags: ['releases'], params: ProjectParams, response: { 200: ReleaseList, ...errors } } }, async (request) => {
    const project = await projects.require(authOf(request).installationId, Number(request.params.id));
    const rows = await listReleases(app.database.db, project.id);
    return {
      releases: rows.map((r) => ({
        number: r.number,
        status: r.status as ReleaseSummary['status'],
        created_at: r.createdAt.toISOString(),
        directory: r.directory,
        files: Object.keys(r.files).sort(),
        containers: r.containers,
        note: r.note,
      })),
    };
  });
};
