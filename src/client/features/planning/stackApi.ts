import type { StackOpsBody, StackResponse } from '../../../shared/api/stack';
import { planningApi } from './planningApi';

/**
 * The stack model behind the Collected Requirements panel's controls. A change refreshes the
 * requirements document too: the server renders it from the model.
 */
export const stackApi = planningApi.injectEndpoints({
  endpoints: (build) => ({
    getStack: build.query<StackResponse, number>({
      query: () => '/planning/stack',
      providesTags: (_result, _error, projectId) => [{ type: 'Stack', id: projectId }],
    }),
    applyStackOps: build.mutation<StackResponse, StackOpsBody & { projectId: number }>({
      query: ({ ops }) => ({ url: '/planning/stack/ops', method: 'POST', body: { ops } }),
      invalidatesTags: (_result, _error, { projectId }) => [
        { type: 'Stack', id: projectId },
        { type: 'Requirements', id: projectId },
        { type: 'UserSecrets', id: projectId },
      ],
    }),
  }),
});

export const { useGetStackQuery, useApplyStackOpsMutation } = stackApi;
