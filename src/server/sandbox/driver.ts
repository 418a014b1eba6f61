import type { Readable } from 'node:stream';
import type { ContainerStatusName } from '../../shared/constants/sandbox';
import type { SandboxCommit } from '../../shared/api/sandbox';
import type { ContentCheck } from './tarToZip';

/** Which sandbox a driver call is about: the project and its Linux user inside the sandbox. */
export interface SandboxRef {
  projectId: number;
  /** `user_{installationId}_{projectId}`; the workspace is `/home/{username}/workspace`. */
  username: string;
}

export interface ExecOptions {
  /** Extra environment for the command (user secrets arrive here). */
  env?: Record<string, string>;
  /** Values to blank out of every output chunk, with their base64 forms. */
  secrets?: string[];
  /** Milliseconds before the command is killed; the driver's default when absent. */
  timeoutMs?: number;
  /** Aborting kills the command at once. */
  signal?: AbortSignal;
  /** Each redacted chunk of stdout and stderr, in arrival order. */
  onOutput?: (chunk: string, stream: 'stdout' | 'stderr') => void;
}

export interface ExecResult {
  /** The shell's exit code; null when killed by a timeout, a cancel or a signal. */
  exitCode: number | null;
  /** stdout and stderr interleaved as they arrived, redacted, at most the driver's output cap (the end is kept). */
  output: string;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
}

/** An interactive shell on a pseudo-terminal inside the sandbox. */
export interface SandboxPty {
  readonly pid: number;
  write(data: string): void;
  resize(cols: number, rows: number): void;
  /** Stops reading the pty, so the shell blocks on output (flow control). */
  pause(): void;
  resume(): void;
  onData(listener: (data: string) => void): { dispose(): void };
  onExit(listener: (event: { exitCode: number; signal?: number }) => void): { dispose(): void };
  kill(): void;
}

export interface ShellOptions {
  cols: number;
  rows: number;
  env?: Record<string, string>;
}

/** The content check a zip applies: none when the person asked for the secret files. */
export const contentCheckOf = (options?: ZipOptions): ContentCheck | undefined => (options?.includeSecrets ? undefined : options?.holdsSecret);

export interface ZipOptions {
  /**
   * Keep the files that hold secret values (`isSecretPath`: `.env`, private keys, Terraform state). Left
   * out by default, and the zip then holds a note listing them.
   */
  includeSecrets?: boolean;
  /** Leaves out (and lists) any other file whose content holds a secret value; not applied with includeSecrets. */
  holdsSecret?: ContentCheck;
}

export interface BackupResult {
  lastSyncTime: Date;
}

/**
 * One sandbox per project. Statuses follow part 2: a usable sandbox is `Running`, a stopped or never
 * started one `NotRunning`, one being started or stopped `Pending`. Every call that touches the
 * workspace's contents (exec, shell, backup, restore, zips, git) runs inside the sandbox, so a symlink
 * or a git hook planted there can never make the server read or run anything outside it.
 */
export interface SandboxDriver {
  readonly kind: 'local' | 'docker' | 'kubernetes';
  /**
   * Whether a sandbox's status can change without a call of this driver (a container that dies, a node
   * that goes away): the status poll then asks again every few seconds. A local workspace only changes
   * through the driver, so its status is asked once per change.
   */
  readonly statusChangesOutside: boolean;
  status(sandbox: SandboxRef): Promise<ContainerStatusName>;
  /** Creates the workspace (or restores the latest backup) and leaves the sandbox Running. Idempotent. */
  initialise(sandbox: SandboxRef): Promise<void>;
  /** Restores the latest backup when the workspace is gone (or empty), then Running. Idempotent. */
  start(sandbox: SandboxRef): Promise<void>;
  /**
   * Ends every process of the sandbox, backs the workspace up (unless it is empty) and only then ends the
   * sandbox: the local and docker drivers discard the workspace (only backups survive); the kubernetes
   * driver keeps its volume claim and restores a backup only into an empty one. A backup that fails
   * throws `backup_failed` and removes nothing. Answers the backup made, or null.
   */
  stop(sandbox: SandboxRef): Promise<BackupResult | null>;
  /**
   * Archives the workspace; the archive counts only once it reads back whole and lists the workspace's
   * files, and an empty workspace is refused (../rules.ts). The newest backup is what `start` restores.
   */
  backup(sandbox: SandboxRef): Promise<BackupResult>;
  /** Time of the newest backup, or null. */
  lastBackupTime(sandbox: SandboxRef): Promise<Date | null>;
  exec(sandbox: SandboxRef, command: string, options?: ExecOptions): Promise<ExecResult>;
  shell(sandbox: SandboxRef, options: ShellOptions): SandboxPty;
  /** The whole workspace as a zip stream; files holding secrets only when asked for (see ZipOptions). */
  zipWorkspace(sandbox: SandboxRef, options?: ZipOptions): Promise<Readable>;
  /** A folder of the workspace (relative path, already checked for `..`) as a zip; refuses symlinks leading out. */
  zipFolder(sandbox: SandboxRef, relativePath: string, options?: ZipOptions): Promise<Readable>;
  /**
   * Commits everything the step changed (an empty commit when nothing did); answers the commit sha. A file
   * holding any of `secretForms` (secretSearchStrings of the project's secret values) stays out of it.
   */
  commitStep(sandbox: SandboxRef, stepNumber: number, command: string, secretForms?: readonly string[]): Promise<string>;
  /** The workspace's commits, newest first. */
  history(sandbox: SandboxRef, limit?: number): Promise<SandboxCommit[]>;
  /** Ends every process of every sandbox (server shutdown). */
  close(): Promise<void>;
  /**
   * Ends at once, without waiting, every process the driver runs on this host (a shutdown out of time
   * calls it just before the process exits). Absent where nothing runs on this host (docker, kubernetes).
   */
  killAll?(): void;
}

/**
 * A failure the caller can show: a missing folder, a path leading out of the workspace, a stopped sandbox,
 * an engine or cluster that cannot be reached (`unavailable`), a stop refused for want of a good backup
 * (`backup_failed`).
 */
export class SandboxError extends Error {
  constructor(
    readonly code: 'not_running' | 'not_found' | 'outside_workspace' | 'unavailable' | 'failed' | 'backup_failed',
    message: string,
  ) {
    super(message);
    this.name = 'SandboxError';
  }
}
