import type { ApprovalBody, ApprovalResponse } from '../../../shared/api/devopsHelper';
import { apiSlice } from '../../api/apiSlice';

/** POST /api/devops-helper/approval: the person's decision on one approval request. */
export const devopsHelperApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    decideApproval: build.mutation<ApprovalResponse, ApprovalBody>({
      query: (body) => ({ url: '/devops-helper/approval', method: 'POST', body }),
    }),
  }),
});

export const { useDecideApprovalMutation } = devopsHelperApi;
