import type {
  ApproveStepResponse,
  CancelStepBody,
  ExecutionApproveStepBody,
  ExecutionProgress,
  ResolveProposalBody,
  Step,
} from '../../../shared/api/execution';
import type { ChatThreadResponse } from '../../../shared/api/common';
import { apiSlice } from '../../api/apiSlice';

/** Every execution call names its project explicitly, whatever page dispatched it. */
const projectHeader = (projectId: number): Record<string, string> => ({ 'Project-Id': String(projectId) });

export interface ApproveStepArgs extends ExecutionApproveStepBody {
  projectId: number;
}

export interface ResolveChangeArgs extends ResolveProposalBody {
  projectId: number;
}

export interface CancelStepArgs extends CancelStepBody {
  projectId: number;
}

/**
 * The execution calls of part 1 section 7 ("Sandbox and execution start") and part 2 section 7.
 * Progress is polled by the stage (`EXECUTION.progressPollMs`); approving a step refetches it at once.
 */
export const executionApi = apiSlice.enhanceEndpoints({ addTagTypes: ['ExecutionProgress'] }).injectEndpoints({
  endpoints: (build) => ({
    getExecutionProgress: build.query<ExecutionProgress, number>({
      query: (projectId) => ({ url: '/execution/progress', headers: projectHeader(projectId) }),
      providesTags: (_result, _error, projectId) => [{ type: 'ExecutionProgress', id: projectId }],
    }),
    approveStep: build.mutation<ApproveStepResponse, ApproveStepArgs>({
      query: ({ projectId, ...body }) => ({
        url: '/execution/approve-step',
        method: 'POST',
        headers: projectHeader(projectId),
        body: body satisfies ExecutionApproveStepBody,
      }),
      invalidatesTags: (_result, _error, { projectId }) => [{ type: 'ExecutionProgress', id: projectId }],
    }),
    /** Ours: the execution agent's stored conversation, read when the chat first shows (a reload keeps it). */
    getExecutionThread: build.query<ChatThreadResponse, number>({
      query: (projectId) => ({ url: '/execution/thread', headers: projectHeader(projectId) }),
    }),
    /** Ours: stops a running step; answers it as stored (failed, cancelled). */
    cancelStep: build.mutation<Step, CancelStepArgs>({
      query: ({ projectId, ...body }) => ({
        url: '/execution/cancel-step',
        method: 'POST',
        headers: projectHeader(projectId),
        body: body satisfies CancelStepBody,
      }),
      invalidatesTags: (_result, _error, { projectId }) => [{ type: 'ExecutionProgress', id: projectId }],
    }),
    /** Ours: saves or discards the change the agent proposed for a step; answers the step. */
    resolveChange: build.mutation<Step, ResolveChangeArgs>({
      query: ({ projectId, ...body }) => ({
        url: '/execution/resolve-change',
        method: 'POST',
        headers: projectHeader(projectId),
        body: body satisfies ResolveProposalBody,
      }),
      invalidatesTags: (_result, _error, { projectId }) => [{ type: 'ExecutionProgress', id: projectId }],
    }),
  }),
});

export const { useGetExecutionProgressQuery, useGetExecutionThreadQuery, useResolveChangeMutation } = executionApi;
