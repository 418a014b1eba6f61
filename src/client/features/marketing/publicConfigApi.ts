import type { PublicConfigResponse } from '../../../shared/api/publicConfig';
import { apiSlice } from '../../api/apiSlice';

/**
 * GET /api/public-config: the support address and the meter's prices, for visitors who are not
 * signed in. The app's base query refuses calls without an installation id, so this one fetches itself.
 */
export const publicConfigApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getPublicConfig: build.query<PublicConfigResponse, void>({
      queryFn: async () => {
        try {
          const response = await fetch(`${globalThis.location?.origin ?? ''}/api/public-config`, { headers: { Accept: 'application/json' } });
          if (!response.ok) return { error: { status: response.status, message: `HTTP ${response.status}: ${response.statusText}` } };
          return { data: (await response.json()) as PublicConfigResponse };
        } catch (error) {
          return { error: { status: 'FETCH_ERROR', message: error instanceof Error ? error.message : String(error) } };
        }
      },
    }),
  }),
});

export const { useGetPublicConfigQuery } = publicConfigApi;

/** The contact address to show: the server's, or nothing while it loads. */
export function useSupportEmail(): string | undefined {
  return useGetPublicConfigQuery().data?.support_email;
}
