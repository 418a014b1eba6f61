import type { ProjectState, SetCurrentStageResponse, Stage, StageUpdateBody } from '../../../shared/api/stages';
import { apiSlice } from '../../api/apiSlice';

export interface StageRef {
  projectId: number;
  stageId: string;
}

/** The project's staged workflow (part 1 section 7, "Projects and stages"). */
export const stagesApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    getProjectState: build.query<ProjectState, number>({
      query: (projectId) => `/project-states/${projectId}`,
      providesTags: (_result, _error, projectId) => [{ type: 'ProjectState', id: projectId }],
    }),
    setCurrentStage: build.mutation<SetCurrentStageResponse, StageRef>({
      query: ({ projectId, stageId }) => ({
        url: `/project-states/${projectId}/current-stage/${encodeURIComponent(stageId)}`,
        method: 'PUT',
      }),
      // The server moves the project's updated_at: its card's 'Last Updated' must not stay stale.
      invalidatesTags: (_result, _error, { projectId }) => [
        { type: 'ProjectState', id: projectId },
        { type: 'Project', id: projectId },
      ],
    }),
    /** Merges the fields into the stage; completing one moves the project to the next stage. */
    updateStage: build.mutation<Stage, StageRef & { changes: StageUpdateBody }>({
      query: ({ projectId, stageId, changes }) => ({
        url: `/project-states/${projectId}/stages/${encodeURIComponent(stageId)}`,
        method: 'PUT',
        body: changes,
      }),
      // The server moves the project's updated_at: its card's 'Last Updated' must not stay stale.
      invalidatesTags: (_result, _error, { projectId }) => [
        { type: 'ProjectState', id: projectId },
        { type: 'Project', id: projectId },
      ],
    }),
  }),
});

export const { useGetProjectStateQuery, useSetCurrentStageMutation, useUpdateStageMutation } = stagesApi;
