import type {
  ContainerStatusResponse,
  SandboxBackupResponse,
  SandboxPreflightResponse,
  SandboxStartResponse,
  SandboxStopResponse,
} from '../../../shared/api/sandbox';
import { projectFolderZipName, SANDBOX_TIMING, workspacePath, workspaceZipName } from '../../../shared/constants/sandbox';
import { apiSlice, type ApiError } from '../../api/apiSlice';
import { browser } from '../browser';

/** A zip answer as a Blob; an error answer as its JSON (or text), so that only serialisable data reaches the store. */
async function zipOrError(response: Response): Promise<unknown> {
  if (response.ok) return response.blob();
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

const projectHeaders = (projectId: number): Record<string, string> => ({ 'Project-Id': String(projectId) });

/**
 * Sandbox control on the project home (part 2 sections 2, 4 and 7): the container status poll, start,
 * stop, backup and the two zip downloads. Downloads never reach the store: the blob is handed to the
 * browser as a file and the mutation answers null.
 */
export const sandboxControlApi = apiSlice.injectEndpoints({
  endpoints: (build) => ({
    /** Answered from memory with a weak ETag; the browser's HTTP cache turns a 304 into the last body. */
    getContainerStatus: build.query<ContainerStatusResponse, number>({
      query: (projectId) => ({ url: `/sandboxes/${projectId}/status`, headers: projectHeaders(projectId) }),
    }),
    /** The tool preflight of the sandbox's last initialisation (the execution stage shows it before step 1). */
    getSandboxPreflight: build.query<SandboxPreflightResponse, number>({
      query: (projectId) => ({ url: `/sandboxes/${projectId}/preflight`, headers: projectHeaders(projectId) }),
    }),
    startSandbox: build.mutation<SandboxStartResponse, number>({
      query: (projectId) => ({ url: `/sandboxes/${projectId}/start`, method: 'POST', headers: projectHeaders(projectId) }),
    }),
    stopSandbox: build.mutation<SandboxStopResponse, number>({
      query: (projectId) => ({ url: `/sandboxes/${projectId}/stop`, method: 'POST', headers: projectHeaders(projectId) }),
    }),
    backupSandbox: build.mutation<SandboxBackupResponse, number>({
      query: (projectId) => ({ url: `/sandboxes/${projectId}/backup`, method: 'POST', headers: projectHeaders(projectId) }),
    }),
    /** GET /api/projects/{id}/workspace/download, saved as '{projectId}-working-directory.zip'. */
    downloadWorkspace: build.mutation<null, { projectId: number; includeSecrets: boolean }>({
      async queryFn({ projectId, includeSecrets }, _api, _extra, baseQuery) {
        const result = await baseQuery({
          url: `/projects/${projectId}/workspace/download`,
          params: includeSecrets ? { include_secrets: 'true' } : {},
          headers: { ...projectHeaders(projectId), Accept: 'application/zip' },
          responseHandler: zipOrError,
        });
        if (result.error) return { error: result.error as ApiError };
        browser.saveFile(result.data as Blob, workspaceZipName(projectId));
        return { data: null };
      },
    }),
    /** The sandbox user's workspace folder, saved as 'user_{part}_{part}.zip' from the username. */
    downloadProjectFolder: build.mutation<null, { projectId: number; username: string; includeSecrets: boolean }>({
      async queryFn({ projectId, username, includeSecrets }, _api, _extra, baseQuery) {
        const result = await baseQuery({
          url: `/sandboxes/${projectId}/workspace/folder_download`,
          params: { path: workspacePath(username), ...(includeSecrets ? { include_secrets: 'true' } : {}) },
          headers: { ...projectHeaders(projectId), Accept: 'application/zip' },
          responseHandler: zipOrError,
        });
        if (result.error) return { error: result.error as ApiError };
        browser.saveFile(result.data as Blob, projectFolderZipName(username));
        return { data: null };
      },
    }),
  }),
});

/** The container status, polled every 10 s while shown (part 2 section 9), paused while unfocused. */
export function useContainerStatus(projectId: number): ReturnType<typeof sandboxControlApi.useGetContainerStatusQuery> {
  return sandboxControlApi.useGetContainerStatusQuery(projectId, {
    pollingInterval: SANDBOX_TIMING.containerStatusPollMs,
    skipPollingIfUnfocused: true,
  });
}

export const {
  useStartSandboxMutation,
  useStopSandboxMutation,
  useBackupSandboxMutation,
  useDownloadWorkspaceMutation,
  useDownloadProjectFolderMutation,
} = sandboxControlApi;
