import type {
  AnalysisResponse,
  PlanningThreadParams,
  PlanningThreadResponse,
  ImplementationPlanResponse,
  PlanResponse,
  RepositoryAnalysis,
  RequirementsResponse,
  SaveUserSecretBody,
  SaveUserSecretResponse,
  UserSecretsResponse,
} from '../../../shared/api/planning';
import type { BranchesResponse, RepositoriesResponse } from '../../../shared/api/repositories';
import { apiSlice } from '../../api/apiSlice';

/** Tags of the planning data, refreshed when an agent turn ends (planningSaga) or a secret is saved. */
export const PLANNING_TAGS = ['Requirements', 'Analysis', 'UserSecrets', 'ArchitecturePlan', 'ImplementationPlan', 'PlanningThread', 'Stack'] as const;
export type PlanningTag = (typeof PLANNING_TAGS)[number];

/** The agents whose conversation GET /api/planning/threads/{agent} reads back. */
export type PlanningAgent = PlanningThreadParams['agent'];

/**
 * The planning data of part 1 section 7 ("Repositories", "Planning data"). Every query takes the
 * project id as its argument so that each project has its own cache entry; the Project-Id header
 * itself comes from the URL (apiSlice).
 */
export const planningApi = apiSlice.enhanceEndpoints({ addTagTypes: PLANNING_TAGS }).injectEndpoints({
  endpoints: (build) => ({
    getRequirements: build.query<RequirementsResponse, number>({
      query: () => '/planning/requirements',
      providesTags: (_result, _error, projectId) => [{ type: 'Requirements', id: projectId }],
    }),
    getAnalysis: build.query<AnalysisResponse, number>({
      query: () => '/planning/analysis',
      providesTags: (_result, _error, projectId) => [{ type: 'Analysis', id: projectId }],
    }),
    getUserSecrets: build.query<UserSecretsResponse, number>({
      query: () => '/planning/requirements/user-secrets',
      providesTags: (_result, _error, projectId) => [{ type: 'UserSecrets', id: projectId }],
    }),
    /** One secret; the form saves each changed secret with its own call, then refreshes the list once. */
    saveUserSecret: build.mutation<SaveUserSecretResponse, SaveUserSecretBody & { projectId: number }>({
      query: ({ name, value }) => ({ url: '/planning/requirements/user-secrets', method: 'POST', body: { name, value } }),
    }),
    getArchitecturePlan: build.query<PlanResponse, number>({
      query: () => '/planning/architecture-plan',
      providesTags: (_result, _error, projectId) => [{ type: 'ArchitecturePlan', id: projectId }],
    }),
    getImplementationPlan: build.query<ImplementationPlanResponse, number>({
      query: () => '/planning/implementation-plan',
      providesTags: (_result, _error, projectId) => [{ type: 'ImplementationPlan', id: projectId }],
    }),
    getPlanningThread: build.query<PlanningThreadResponse, { projectId: number; agent: PlanningAgent }>({
      query: ({ agent }) => `/planning/threads/${agent}`,
      providesTags: (_result, _error, { projectId, agent }) => [{ type: 'PlanningThread', id: `${projectId}:${agent}` }],
    }),
    getRepositories: build.query<RepositoriesResponse, void>({
      query: () => '/github/repositories',
    }),
    getBranches: build.query<BranchesResponse, string>({
      query: (fullName) => ({ url: '/planning/repository/branches', params: { repo_full_name: fullName } }),
    }),
  }),
});

export const {
  useGetRequirementsQuery,
  useGetAnalysisQuery,
  useGetUserSecretsQuery,
  useSaveUserSecretMutation,
  useGetArchitecturePlanQuery,
  useGetImplementationPlanQuery,
  useGetPlanningThreadQuery,
  useGetRepositoriesQuery,
  useGetBranchesQuery,
} = planningApi;

/** True when the analysis answer holds an analysis (not 'No analysis found for this project'). */
export function isAnalysis(answer: AnalysisResponse | undefined): answer is RepositoryAnalysis {
  return typeof answer === 'object' && answer !== null && 'repository' in answer;
}
