import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { BackupRunList, BackupRunsQuery, BackupsStatus } from '../../../shared/api/backups';
import { ErrorResponse } from '../../../shared/api/common';
import { ProjectParams } from '../../../shared/api/projects';
import { authOf } from '../../plugins/session';
import { backupsStatus, listRuns } from '../../services/backups/backupRecords';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 404: ErrorResponse };

/** A project's backups: the last backup and the last proven restore, and the runs; another person's project answers 404. */
export const backupRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { projects } = app.services;

  app.get('/projects/:id/backups', { schema: { tags: ['backups'], params: ProjectParams, response: { 200: BackupsStatus, ...errors } } }, async (request) => {
    const project = await projects.require(authOf(request).installationId, Number(request.params.id));
    return backupsStatus(app.database.db, project.id);
  });

  app.get(
    '/projects/:id/backups/runs',
    { schema: { tags: ['backups'], description: 'Backup runs and restore drills, newest first (`kind` one of them, `limit` 1–100, 20 by default).', params: ProjectParams, querystring: BackupRunsQuery, response: { 200: BackupRunList, ...errors } } },
    async (request) => {
      const project = await projects.require(authOf(request).installationId, Number(request.params.id));
      const { kind, limit } = request.query;
      return { runs: await listRuns(app.database.db, project.id, { ...(kind ? { kind } : {}), ...(limit ? { limit: Number(limit) } : {}) }) };
    },
  );
};
