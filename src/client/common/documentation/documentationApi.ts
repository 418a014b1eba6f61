import type { DocumentationResponse } from '../../../shared/api/documentation';
import { apiSlice } from '../../api/apiSlice';

/** The project's generated documentation (part 2 section 7, GET /documentation/current). */
export const documentationApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getCurrentDocumentation: build.query<DocumentationResponse, number>({
      query: (projectId) => ({ url: '/documentation/current', headers: { 'Project-Id': String(projectId) } }),
    }),
  }),
});

export const { useGetCurrentDocumentationQuery } = documentationApi;
