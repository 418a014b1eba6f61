import type { ServerInspectionBody, ServerInspectionOffer, ServerInspectionResult } from '../../../shared/api/serverInspection';
import { planningApi } from './planningApi';

/**
 * The inspection of the person's existing server on the architecture step: the exact read-only command the
 * server offers (it changes with the stack's target and the SSH key secret), and running it once approved.
 * What it finds is stored in the stack model and the saved plans are verified again against it, so the
 * requirements, the stack and both plans (with their findings) are read again.
 */
export const serverInspectionApi = planningApi.injectEndpoints({
  endpoints: (build) => ({
    getServerInspection: build.query<ServerInspectionOffer, number>({
      query: () => '/planning/server-inspection',
      providesTags: (_result, _error, projectId) => [
        { type: 'Stack', id: projectId },
        { type: 'UserSecrets', id: projectId },
      ],
    }),
    runServerInspection: build.mutation<ServerInspectionResult, ServerInspectionBody & { projectId: number }>({
      query: ({ command }) => ({ url: '/planning/server-inspection', method: 'POST', body: { command } }),
      invalidatesTags: (_result, _error, { projectId }) => [
        { type: 'Stack', id: projectId },
        { type: 'Requirements', id: projectId },
        { type: 'ArchitecturePlan', id: projectId },
        { type: 'ImplementationPlan', id: projectId },
      ],
    }),
  }),
});

export const { useGetServerInspectionQuery, useRunServerInspectionMutation } = serverInspectionApi;
