import type { KillResponse } from '../../../shared/api/planning';
import { apiSlice } from '../../api/apiSlice';

/** The Stop control's call: POST to the chat's kill path (e.g. /planning/requirements-gatherer/kill). */
export const chatApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    killGeneration: build.mutation<KillResponse, string>({
      query: (killPath) => ({ url: killPath, method: 'POST' }),
    }),
  }),
});
