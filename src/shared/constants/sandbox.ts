import { countOf } from '../plural';

/**
 * Sandbox initialisation (part 1 sections 4, 5, 8, 9) and sandbox control on the project home
 * (part 2 sections 2, 4, 5, 8, 9).
 */

export const SANDBOX_INIT = {
  maxAttempts: 30,
  /** Wait between attempts while the container is still being created, in ms. */
  retryIntervalMs: 10_000,
  /** Initialisation result that lets the implementation confirm continue. */
  successStatus: 'success',
} as const;

export const SANDBOX_INIT_ERRORS = {
  containerFailed: 'Container creation failed. Please try again or contact support.',
  timeout: 'Timeout waiting for sandbox initialization',
  failed: 'Failed to initialize sandbox environment',
  /** Shown under an error that mentions an API key or credentials. */
  credentialsNote: 'Cloud provider credentials are collected during requirements gathering.',
  returnToRequirements: 'Return to Requirements',
  /** An initialisation error matching this is about missing credentials. */
  credentialsPattern: /api[ _-]?key|credential/i,
} as const;

/** The container statuses the server reports; anything else is shown as unknown. */
export const CONTAINER_STATUSES = ['Running', 'NotRunning', 'Stopped', 'Terminated', 'Pending', 'Waiting'] as const;
export type ContainerStatusName = (typeof CONTAINER_STATUSES)[number];

export type ContainerDisplayState = 'running' | 'stopped' | 'pending' | 'unknown';

/** How a container status is shown: running, stopped, pending or unknown. */
export const containerDisplayState = (status: string | undefined): ContainerDisplayState => {
  switch (status) {
    case 'Running':
      return 'running';
    case 'NotRunning':
    case 'Stopped':
    case 'Terminated':
      return 'stopped';
    case 'Pending':
    case 'Waiting':
      return 'pending';
    default:
      return 'unknown';
  }
};

/** Operation states of the sandbox controls. Stop runs backing_up, then stopping. */
export const SANDBOX_OPERATIONS = ['idle', 'backing_up', 'stopping', 'starting'] as const;
export type SandboxOperation = (typeof SANDBOX_OPERATIONS)[number];

export const SANDBOX_TIMING = {
  containerStatusPollMs: 10_000,
} as const;

export const PROJECT_HOME_SANDBOX = {
  header: 'Project Sandbox',
  downloadWorkspace: 'Download Workspace Directory from Sandbox',
  downloadProjectFolder: 'Download Project Folder',
  backup: 'Backup Sandbox Files',
  backupTooltip: 'Files must be backed up to be restored when the sandbox restarts.',
  start: 'Start Sandbox',
  stop: 'Stop Sandbox',
  // Ours: downloads leave secret files out unless asked for (the zip then lists what it left out).
  includeSecrets: 'Include secret files (.env, private keys) in downloads',
  secretsLeftOut: 'Downloads leave out files holding secrets (.env, private keys, Terraform state) and list them in SECRET-FILES-LEFT-OUT.txt.',
  secretsIncluded: 'Downloads include files holding secrets in plain text: keep the zip safe.',
} as const;

export const SANDBOX_ERRORS = {
  loadStatus: 'Failed to load container status',
  start: 'Failed to start container',
  /** 'Failed to sync sandbox data: {error}. Please try again.' */
  syncWithError: (error: string): string => `Failed to sync sandbox data: ${error}. Please try again.`,
  sync: 'Failed to sync sandbox data',
  stop: 'Failed to stop sandbox. Please ensure all your work is saved before stopping.',
  downloadWorkingDirectory: 'Failed to download working directory',
  download: 'Download failed. Please try again.',
  projectPath: 'Failed to determine project path',
} as const;

/** File name of the workspace download: '{projectId}-working-directory.zip'. */
export const workspaceZipName = (projectId: number | string): string => `${projectId}-working-directory.zip`;

/** The sandbox user's workspace folder, the `path` of the folder download. */
export const workspacePath = (username: string): string => `/home/${username}/workspace/`;

/**
 * File name of the project folder download, derived from the sandbox username: 'user_{part}_{part}.zip'
 * where the parts are the username's alphanumeric runs (a leading 'user' is not repeated).
 */
export const projectFolderZipName = (username: string): string => {
  const parts = username.split(/[^A-Za-z0-9]+/).filter(Boolean);
  if (parts[0] === 'user') parts.shift();
  return `user_${parts.join('_')}.zip`;
};

export const LAST_BACKUP_TEXT = {
  never: 'Never backed up',
  justNow: 'Just now',
  minutesAgo: (n: number): string => `${countOf(n, 'minute')} ago`,
  hoursAgo: (n: number): string => `${countOf(n, 'hour')} ago`,
  yesterday: 'Yesterday',
  /** Used under 7 days; older backups show a date. */
  daysAgo: (n: number): string => `${countOf(n, 'day')} ago`,
} as const;

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The last-backup text for an ISO time (or null), relative to `now`. */
export const lastBackupText = (lastSyncTime: string | null, now: Date = new Date()): string => {
  if (!lastSyncTime) return LAST_BACKUP_TEXT.never;
  const at = new Date(lastSyncTime);
  const elapsed = now.getTime() - at.getTime();
  if (Number.isNaN(elapsed)) return LAST_BACKUP_TEXT.never;
  if (elapsed < MINUTE_MS) return LAST_BACKUP_TEXT.justNow;
  if (elapsed < HOUR_MS) return LAST_BACKUP_TEXT.minutesAgo(Math.floor(elapsed / MINUTE_MS));
  if (elapsed < DAY_MS) return LAST_BACKUP_TEXT.hoursAgo(Math.floor(elapsed / HOUR_MS));
  const days = Math.floor(elapsed / DAY_MS);
  if (days === 1) return LAST_BACKUP_TEXT.yesterday;
  if (days < 7) return LAST_BACKUP_TEXT.daysAgo(days);
  return at.toLocaleDateString();
};
