import { Type, type Static } from 'typebox';
import { CONTAINER_STATUSES } from '../constants/sandbox';
import { Timestamp } from './common';

/**
 * The per-project sandbox. Two families of calls:
 * - `/api/sandbox/...` (part 1): provisioning status and initialisation before execution;
 * - `/api/sandboxes/{projectId}/...` (part 2, the documents' "sandbox host" and "separate download
 *   service"): container status, start, stop, backup, history, folder download and the terminal socket
 *   `/api/sandboxes/{projectId}/ws` (messages in events.ts).
 * Path params use `ProjectIdParams` from common.ts; the workspace download uses `ProjectParams`.
 */

export const SandboxProvisioningStatus = Type.Enum(['READY', 'CREATING', 'FAILED']);
export type SandboxProvisioningStatus = Static<typeof SandboxProvisioningStatus>;

/** GET /api/sandbox/status/{projectId} */
export const SandboxStatusResponse = Type.Object({ status: SandboxProvisioningStatus });
export type SandboxStatusResponse = Static<typeof SandboxStatusResponse>;

/** POST /api/sandbox/initialize/{projectId}: the client sends `{}` (an empty JSON body is a 400 in Fastify). */
export const SandboxInitializeBody = Type.Object({}, { additionalProperties: false });
export type SandboxInitializeBody = Static<typeof SandboxInitializeBody>;

/**
 * Answer of POST /api/sandbox/initialize/{projectId}: `success` lets execution start; `creating` means
 * ask again after 10 s (up to 30 attempts); `failed` ends the flow with `detail` shown to the user
 * (a detail naming an API key or credentials offers 'Return to Requirements').
 */
export const SandboxInitializeResponse = Type.Object({
  status: Type.Enum(['success', 'creating', 'failed']),
  detail: Type.String(),
});
export type SandboxInitializeResponse = Static<typeof SandboxInitializeResponse>;

/** A program the implementation plan calls that the sandbox did not have when it was initialised. */
export const SandboxMissingTool = Type.Object({
  tool: Type.String(),
  /** The plan's steps that call it. */
  steps: Type.Array(Type.Integer({ minimum: 1 })),
});
export type SandboxMissingTool = Static<typeof SandboxMissingTool>;

/**
 * GET /api/sandboxes/{projectId}/preflight: the tool check of the last initialisation (or start), shown in
 * the execution stage before step 1. `checked_at` is null before any check.
 */
export const SandboxPreflightResponse = Type.Object({
  missing_tools: Type.Array(SandboxMissingTool),
  checked_at: Type.Union([Timestamp, Type.Null()]),
});
export type SandboxPreflightResponse = Static<typeof SandboxPreflightResponse>;

export const ContainerStatusValue = Type.Enum(CONTAINER_STATUSES);
export type ContainerStatusValue = Static<typeof ContainerStatusValue>;

/** GET /api/sandboxes/{projectId}/status, polled every 10 s. `username` is the sandbox's Linux user. */
export const ContainerStatusResponse = Type.Object({
  container_status: ContainerStatusValue,
  username: Type.String(),
  /** Time of the last successful backup; null when never backed up. */
  last_sync_time: Type.Union([Timestamp, Type.Null()]),
});
export type ContainerStatusResponse = Static<typeof ContainerStatusResponse>;

/** POST /api/sandboxes/{projectId}/start and POST /api/sandboxes/{projectId}/stop: the status after the action. */
export const ContainerActionResponse = Type.Object({
  container_status: ContainerStatusValue,
  message: Type.String(),
});
export type ContainerActionResponse = Static<typeof ContainerActionResponse>;

/** POST /api/sandboxes/{projectId}/start */
export const SandboxStartResponse = ContainerActionResponse;
export type SandboxStartResponse = ContainerActionResponse;

/** POST /api/sandboxes/{projectId}/stop (the client backs up first and aborts if the backup reports an error). */
export const SandboxStopResponse = ContainerActionResponse;
export type SandboxStopResponse = ContainerActionResponse;

/**
 * POST /api/sandboxes/{projectId}/backup. A backup that ran but failed answers 200 with `status: 'error'`
 * and `error` (shown as 'Failed to sync sandbox data: {error}. Please try again.'); a container that is not
 * Running answers 409.
 */
export const SandboxBackupResponse = Type.Object({
  status: Type.Enum(['success', 'error']),
  last_sync_time: Type.Union([Timestamp, Type.Null()]),
  error: Type.Optional(Type.String()),
});
export type SandboxBackupResponse = Static<typeof SandboxBackupResponse>;

/** One commit of the workspace history: what an agent step changed (the "commit chart" of the landing page). */
export const SandboxCommit = Type.Object({
  sha: Type.String({ pattern: '^[0-9a-f]{7,64}$' }),
  message: Type.String(),
  /** The execution or validation step that made it; null for manual backups. */
  step_number: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
  command: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
});
export type SandboxCommit = Static<typeof SandboxCommit>;

/** GET /api/sandboxes/{projectId}/history: newest first. */
export const SandboxHistoryResponse = Type.Object({ commits: Type.Array(SandboxCommit) });
export type SandboxHistoryResponse = Static<typeof SandboxHistoryResponse>;

/**
 * Query of GET /api/sandboxes/{projectId}/workspace/folder_download?path=/home/{username}/workspace/...
 * (answers application/zip). The pattern keeps the path inside a workspace and refuses `.`/`..` segments;
 * the server still checks `{username}` is this project's sandbox user.
 */
/**
 * Ours: both downloads leave out the files that hold secret values (`.env`, private keys, Terraform state)
 * and hold a note listing them instead, unless `include_secrets=true` asks for them. The answer's
 * `X-Secret-Files` header says which: `left-out` or `included`.
 */
export const WorkspaceDownloadQuery = Type.Object(
  // Query strings are not coerced: the text 'true' asks for the secret files.
  { include_secrets: Type.Optional(Type.Union([Type.Literal('true'), Type.Literal('false')])) },
  { additionalProperties: false },
);
export type WorkspaceDownloadQuery = Static<typeof WorkspaceDownloadQuery>;
export const SECRET_FILES_HEADER = 'x-secret-files';

export const FolderDownloadQuery = Type.Object(
  {
    path: Type.String({
      maxLength: 1_024,
      pattern: '^/home/[A-Za-z0-9_-]{1,64}/workspace(/(?!\\.\\.?(/|$))[^/\\u0000]+)*/?$',
    }),
    include_secrets: WorkspaceDownloadQuery.properties.include_secrets,
  },
  { additionalProperties: false },
);
export type FolderDownloadQuery = Static<typeof FolderDownloadQuery>;

/**
 * GET /api/projects/{id}/workspace/download answers the project's working directory as application/zip
 * (saved as '{projectId}-working-directory.zip'); params are `ProjectParams` from projects.ts. The
 * folder download above answers application/zip too. Neither has a JSON schema for its answer.
 */
export const ZIP_CONTENT_TYPE = 'application/zip';
