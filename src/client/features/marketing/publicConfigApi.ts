import type { PublicConfigResponse } from '../../../shared/api/publicConfig';
import { apiSlice } from '../../api/apiSlice';

/** GET /api/public-config: the support address and the meter's prices, for visitors who are not signed in too. */
export const publicConfigApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getPublicConfig: build.query<PublicConfigResponse, void>({
      query: () => '/public-config',
    }),
  }),
});

export const { useGetPublicConfigQuery } = publicConfigApi;

/** The contact address to show: the server's, or nothing while it loads. */
export function useSupportEmail(): string | undefined {
  return useGetPublicConfigQuery().data?.support_email;
}
