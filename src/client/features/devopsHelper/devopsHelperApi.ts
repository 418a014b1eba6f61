import type { ApprovalBody, ApprovalResponse } from '../../../shared/api/devopsHelper';
import type { ChatThreadResponse } from '../../../shared/api/common';
import { apiSlice } from '../../api/apiSlice';

/** The helper's calls beside its stream and socket. */
export const devopsHelperApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Ours: GET /api/devops-helper/thread, the stored conversation a reloaded chat shows again. */
    getDevopsHelperThread: build.query<ChatThreadResponse, number>({
      query: (projectId) => ({ url: '/devops-helper/thread', headers: { 'Project-Id': String(projectId) } }),
    }),
    /** POST /api/devops-helper/approval: the person's decision on one approval request. */
    decideApproval: build.mutation<ApprovalResponse, ApprovalBody>({
      query: (body) => ({ url: '/devops-helper/approval', method: 'POST', body }),
    }),
  }),
});

export const { useDecideApprovalMutation, useGetDevopsHelperThreadQuery } = devopsHelperApi;
