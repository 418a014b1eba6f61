import type { BackupsStatus } from '../../../shared/api/backups';
import { apiSlice } from '../../api/apiSlice';

/** A project's last backup, last restore drill and last proven restore (GET /projects/{id}/backups). */
export const backupsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getBackups: build.query<BackupsStatus, number>({
      query: (projectId) => `/projects/${projectId}/backups`,
    }),
  }),
});

export const { useGetBackupsQuery } = backupsApi;
