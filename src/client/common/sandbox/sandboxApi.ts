import type { SandboxInitializeBody, SandboxInitializeResponse, SandboxStatusResponse } from '../../../shared/api/sandbox';
import { apiSlice } from '../../api/apiSlice';

/**
 * Sandbox provisioning (part 1 section 7, "Sandbox and execution start"). Both are read by the
 * implementation confirm saga, never cached: each attempt must ask the server again.
 */
export const sandboxApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getSandboxStatus: build.query<SandboxStatusResponse, number>({
      query: (projectId) => ({ url: `/sandbox/status/${projectId}`, headers: { 'Project-Id': String(projectId) } }),
      keepUnusedDataFor: 0,
    }),
    initializeSandbox: build.mutation<SandboxInitializeResponse, number>({
      query: (projectId) => ({
        url: `/sandbox/initialize/${projectId}`,
        method: 'POST',
        headers: { 'Project-Id': String(projectId) },
        body: {} satisfies SandboxInitializeBody,
      }),
    }),
  }),
});
