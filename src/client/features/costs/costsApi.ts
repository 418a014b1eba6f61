import { POLLING } from '../../../shared/constants';
import { apiSlice } from '../../api/apiSlice';

/**
 * GET /api/projects/{id}/costs. The contract file for costs belongs to the credits issue; until it
 * lands this mirrors the answer the spec names (part 2 section 3, "Project costs").
 */
export interface ProjectCosts {
  /** A decimal number as a string, e.g. "0.0123". */
  total_cost: string;
  last_updated: string | null;
}

export const costsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getProjectCosts: build.query<ProjectCosts, number>({
      query: (projectId) => `/projects/${projectId}/costs`,
      providesTags: (_result, _error, projectId) => [{ type: 'ProjectCosts', id: projectId }],
    }),
  }),
});

/** The project's cost, polled every 10 s while shown (part 2 section 9), paused while unfocused. */
export function useProjectCosts(projectId: number): ReturnType<typeof costsApi.useGetProjectCostsQuery> {
  return costsApi.useGetProjectCostsQuery(projectId, {
    pollingInterval: POLLING.projectCostsMs,
    skipPollingIfUnfocused: true,
  });
}

export const { useGetProjectCostsQuery } = costsApi;
