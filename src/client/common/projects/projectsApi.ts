import type { CreateProjectBody, Project, ProjectList } from '../../../shared/api/projects';
import { apiSlice } from '../../api/apiSlice';

export const projectsApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getProjects: build.query<ProjectList, void>({
      query: () => '/projects',
      providesTags: (result) => [
        { type: 'Project', id: 'LIST' },
        ...(result ?? []).map((project) => ({ type: 'Project' as const, id: project.id })),
      ],
    }),
    getProject: build.query<Project, number>({
      query: (id) => `/projects/${id}`,
      providesTags: (_result, _error, id) => [{ type: 'Project', id }],
    }),
    createProject: build.mutation<Project, CreateProjectBody>({
      query: (body) => ({ url: '/projects', method: 'POST', body }),
      invalidatesTags: [{ type: 'Project', id: 'LIST' }],
    }),
  }),
});

export const { useGetProjectsQuery, useGetProjectQuery, useCreateProjectMutation } = projectsApi;
