import type { ExecutionTriggerBody, ExecutionTriggerResponse } from '../../../shared/api/execution';
import type { ValidationTriggerBody, ValidationTriggerResponse } from '../../../shared/api/validation';
import { EXECUTION } from '../../../shared/constants';
import { apiSlice } from '../../api/apiSlice';

const projectHeader = (projectId: number): Record<string, string> => ({ 'Project-Id': String(projectId) });

/**
 * The calls that start a stage, made by the stage before it as well as by the stage itself: the
 * implementation confirm starts execution, 'Proceed to Validation Stage' and the validation stage start
 * validation. Each refetches what the started stage polls.
 */
export const stageStartsApi = apiSlice.enhanceEndpoints({ addTagTypes: ['ExecutionProgress', 'ValidationProgress', 'ValidationPlan'] }).injectEndpoints({
  endpoints: (build) => ({
    triggerExecution: build.mutation<ExecutionTriggerResponse, { projectId: number }>({
      query: ({ projectId }) => ({
        url: '/execution/trigger',
        method: 'POST',
        headers: projectHeader(projectId),
        body: { message: EXECUTION.triggerMessage } satisfies ExecutionTriggerBody,
      }),
      invalidatesTags: (_result, _error, { projectId }) => [{ type: 'ExecutionProgress', id: projectId }],
    }),
    /** The execution stage sends no message (`{}`), the validation stage sends `{ message }`. */
    triggerValidation: build.mutation<ValidationTriggerResponse, { projectId: number; message?: string }>({
      query: ({ projectId, message }) => ({
        url: '/validation/trigger',
        method: 'POST',
        headers: projectHeader(projectId),
        body: (message === undefined ? {} : { message }) satisfies ValidationTriggerBody,
      }),
      invalidatesTags: (_result, _error, { projectId }) => [
        { type: 'ValidationProgress', id: projectId },
        { type: 'ValidationPlan', id: projectId },
      ],
    }),
  }),
});
