import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '../../../shared/api/common';
import { ProjectParams } from '../../../shared/api/projects';
import { ReleaseList, type ReleaseSummary } from '../../../shared/api/releases';
import { authOf } from '../../plugins/session';
import { listReleases } from '../../services/releases/releaseStore';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/** A project's releases, newest first; another person's project answers 404. */
export const releaseRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { projects } = app.services;

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
