import type { ApproveStepResponse, ExecutionApproveStepBody, ExecutionProgress } from '../../../shared/api/execution';
import type { DriftCheck, LastDriftCheck, ReleaseList, RollbackResponse } from '../../../shared/api/releases';
import { apiSlice } from '../../api/apiSlice';

const projectHeader = (projectId: number): Record<string, string> => ({ 'Project-Id': String(projectId) });

/**
 * A project's releases, "Roll back" (which adds a step to the execution plan for the person to approve,
 * approved and followed here through the execution calls) and its drift checks: the last one, and one
 * run now.
 */
export const releasesApi = apiSlice.enhanceEndpoints({ addTagTypes: ['Releases', 'Drift'] }).injectEndpoints({
  endpoints: (build) => ({
    getReleases: build.query<ReleaseList, number>({
      query: (projectId) => `/projects/${projectId}/releases`,
      providesTags: (_result, _error, projectId) => [{ type: 'Releases', id: projectId }],
    }),
    requestRollback: build.mutation<RollbackResponse, { projectId: number; number: number }>({
      query: ({ projectId, number }) => ({ url: `/projects/${projectId}/releases/${number}/rollback`, method: 'POST' }),
    }),
    /** The roll back step's approval or rejection (POST /api/execution/approve-step). */
    decideRollbackStep: build.mutation<ApproveStepResponse, ExecutionApproveStepBody & { projectId: number }>({
      query: ({ projectId, ...body }) => ({ url: '/execution/approve-step', method: 'POST', headers: projectHeader(projectId), body: body satisfies ExecutionApproveStepBody }),
    }),
    /** The execution plan's progress, where the roll back step's status and output are read. */
    getRollbackProgress: build.query<ExecutionProgress, number>({
      query: (projectId) => ({ url: '/execution/progress', headers: projectHeader(projectId) }),
    }),
    getDrift: build.query<LastDriftCheck, number>({
      query: (projectId) => `/projects/${projectId}/drift`,
      providesTags: (_result, _error, projectId) => [{ type: 'Drift', id: projectId }],
    }),
    checkDrift: build.mutation<DriftCheck, number>({
      query: (projectId) => ({ url: `/projects/${projectId}/drift`, method: 'POST' }),
      async onQueryStarted(projectId, { dispatch, queryFulfilled }) {
        const { data } = await queryFulfilled;
        dispatch(releasesApi.util.upsertQueryData('getDrift', projectId, { check: data }));
      },
    }),
  }),
});

export const { useGetReleasesQuery, useRequestRollbackMutation, useDecideRollbackStepMutation, useGetRollbackProgressQuery, useGetDriftQuery, useCheckDriftMutation } = releasesApi;
