import type {
  ValidationApproveStepBody,
  ValidationApproveStepResponse,
  ValidationPlanResponse,
  ValidationProgress,
} from '../../../shared/api/validation';
import type { Step } from '../../../shared/api/execution';
import { apiSlice } from '../../api/apiSlice';

/** Every validation call names its project explicitly, whatever page dispatched it. */
const projectHeader = (projectId: number): Record<string, string> => ({ 'Project-Id': String(projectId) });

export interface ValidationApproveArgs extends ValidationApproveStepBody {
  projectId: number;
}

/**
 * The validation calls of part 2 section 7. Plan and progress are polled by the stage every
 * `VALIDATION.pollMs`; a trigger or an approval refetches them at once.
 */
export const validationApi = apiSlice.enhanceEndpoints({ addTagTypes: ['ValidationProgress', 'ValidationPlan'] }).injectEndpoints({
  endpoints: (build) => ({
    getValidationPlan: build.query<ValidationPlanResponse, number>({
      query: (projectId) => ({ url: '/validation/plan', headers: projectHeader(projectId) }),
      providesTags: (_result, _error, projectId) => [{ type: 'ValidationPlan', id: projectId }],
    }),
    getValidationProgress: build.query<ValidationProgress, number>({
      query: (projectId) => ({ url: '/validation/progress', headers: projectHeader(projectId) }),
      providesTags: (_result, _error, projectId) => [{ type: 'ValidationProgress', id: projectId }],
    }),
    approveValidationStep: build.mutation<ValidationApproveStepResponse, ValidationApproveArgs>({
      query: ({ projectId, ...body }) => ({
        url: '/validation/approve-step',
        method: 'POST',
        headers: projectHeader(projectId),
        body: body satisfies ValidationApproveStepBody,
      }),
      invalidatesTags: (_result, _error, { projectId }) => [{ type: 'ValidationProgress', id: projectId }],
    }),
    /** Ours: stops a running check; answers it as stored (failed, cancelled). */
    cancelValidationStep: build.mutation<Step, { projectId: number; step_number: number }>({
      query: ({ projectId, ...body }) => ({ url: '/validation/cancel-step', method: 'POST', headers: projectHeader(projectId), body }),
      invalidatesTags: (_result, _error, { projectId }) => [{ type: 'ValidationProgress', id: projectId }],
    }),
  }),
});

export const { useGetValidationPlanQuery, useGetValidationProgressQuery } = validationApi;
