import type { ProjectCostsResponse, TokenUsageResponse } from '../../../shared/api/costs';
import { POLLING } from '../../../shared/constants';
import { apiSlice } from '../../api/apiSlice';

export const costsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getProjectCosts: build.query<ProjectCostsResponse, number>({
      query: (projectId) => `/projects/${projectId}/costs`,
      providesTags: (_result, _error, projectId) => [{ type: 'ProjectCosts', id: projectId }],
    }),
    /** Breakdown by agent and model, cost per day and the rates (the costs page). */
    getTokenUsage: build.query<TokenUsageResponse, number>({
      query: (projectId) => `/projects/${projectId}/token-usage`,
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

export const { useGetProjectCostsQuery, useGetTokenUsageQuery } = costsApi;
