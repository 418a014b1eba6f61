import type { ContainerStatusName } from '../../shared/constants/sandbox';
import { listArchive } from './archiveCheck';
import type { BackupStore } from './backups';
import { SandboxError, type BackupResult, type SandboxDriver, type SandboxRef } from './driver';

/**
 * What a driver does for the rules below: it moves programs and bytes in and out of a sandbox (bubblewrap,
 * a container, a pod) and decides nothing about when a workspace may be archived, restored or removed.
 */
export interface SandboxTransport
  extends Omit<SandboxDriver, 'initialise' | 'start' | 'stop' | 'backup' | 'lastBackupTime'> {
  /**
   * Makes the sandbox run with its workspace as the transport keeps it (a new one empty). Idempotent:
   * answers true when it was running already.
   */
  up(sandbox: SandboxRef): Promise<boolean>;
  /** True when the workspace holds nothing (new, lost, or emptied by its user). */
  workspaceIsEmpty(sandbox: SandboxRef): Promise<boolean>;
  /** Lays out a new workspace (folders, .gitignore, a first commit). */
  createWorkspace(sandbox: SandboxRef): Promise<void>;
  /** Writes the workspace as a tar.gz into `file`; rejects when the archiver says it failed. */
  writeArchive(sandbox: SandboxRef, file: string): Promise<void>;
  /** Unpacks the tar.gz `file` into the (empty) workspace; rejects when the unpacking failed. */
  restoreArchive(sandbox: SandboxRef, file: string): Promise<void>;
  /** Once the workspace is filled: what the sandbox needs of it (the container drivers link ~/.ssh). */
  ready?(sandbox: SandboxRef): Promise<void>;
  /** Ends every process of the sandbox and leaves it running with its workspace (and able to run the archiver). */
  quiesce(sandbox: SandboxRef): Promise<void>;
  /** Ends the sandbox: local and docker discard the workspace, kubernetes keeps its claim. */
  down(sandbox: SandboxRef): Promise<void>;
  /** Undoes an `up` whose workspace could not be filled, so no Running sandbox with an empty workspace is left. */
  abandon(sandbox: SandboxRef): Promise<void>;
}

const failed = (message: string, cause?: unknown): SandboxError => Object.assign(new SandboxError('failed', message), cause ? { cause } : {});

/**
 * The lifecycle rules every driver keeps, written once:
 * - a backup is an archive read back whole (gzip trailer, every tar header, end-of-archive) and listed
 *   before it counts; one that lists nothing while the workspace holds files is refused; an empty
 *   workspace is never backed up (it would become the newest backup and hide the good one);
 * - a stop ends the sandbox's processes first (so a fork bomb cannot starve the archiver), then backs up,
 *   and removes nothing unless that backup succeeded (`backup_failed` otherwise, the sandbox kept running);
 * - a start fills an empty workspace from the newest backup, or a new layout when there is none; a
 *   restore that fails keeps every backup, says which one failed, and leaves no Running empty workspace.
 * Lifecycle calls of one project run one at a time (the service serialises them); `Pending` is shown
 * while one is under way.
 */
export function withSandboxRules(transport: SandboxTransport, backups: BackupStore): SandboxDriver {
  const pending = new Set<number>();
  const during = async <T>(s: SandboxRef, task: () => Promise<T>): Promise<T> => {
    pending.add(s.projectId);
    try {
      return await task();
    } finally {
      pending.delete(s.projectId);
    }
  };

  const requireRunning = async (s: SandboxRef): Promise<void> => {
    if ((await transport.status(s)) !== 'Running') throw new SandboxError('not_running', 'The sandbox is not running');
  };

  const backup = async (s: SandboxRef): Promise<BackupResult> => {
    if (await transport.workspaceIsEmpty(s)) throw failed('The workspace is empty; the newest backup is kept');
    return backups.save(s, async (partial) => {
      await transport.writeArchive(s, partial);
      let listing;
      try {
        listing = await listArchive(partial);
      } catch (err) {
        throw failed(`The backup could not be verified (${(err as Error).message}); the newest backup is kept`, err);
      }
      if (listing.entries === 0) throw failed('The backup archive lists no files while the workspace holds some; the newest backup is kept');
    });
  };

  const restoreNewest = async (s: SandboxRef): Promise<boolean> => {
    const newest = backups.latest(s);
    if (!newest) return false;
    const at = (await backups.lastTime(s))!.toISOString();
    try {
      await transport.restoreArchive(s, newest);
    } catch (err) {
      throw failed(
        `Restoring the backup of ${at} failed (${(err as Error).message}). That backup and every older one are kept and nothing was removed; start again, or ask the operator to look at ${newest}`,
        err,
      );
    }
    return true;
  };

  const bringUp = (s: SandboxRef): Promise<void> =>
    during(s, async () => {
      // Running already: its workspace is as its user left it (an emptied one is theirs to empty).
      if (await transport.up(s)) return;
      if (await transport.workspaceIsEmpty(s)) {
        try {
          if (!(await restoreNewest(s))) await transport.createWorkspace(s);
        } catch (err) {
          await transport.abandon(s).catch(() => undefined);
          throw err;
        }
      }
      await transport.ready?.(s);
    });

  const t = transport;
  return {
    kind: t.kind,
    statusChangesOutside: t.statusChangesOutside,
    exec: (s, command, options) => t.exec(s, command, options),
    shell: (s, options) => t.shell(s, options),
    zipWorkspace: (s, options) => t.zipWorkspace(s, options),
    zipFolder: (s, relativePath, options) => t.zipFolder(s, relativePath, options),
    commitStep: (s, stepNumber, command, secretForms) => t.commitStep(s, stepNumber, command, secretForms),
    history: (s, limit) => t.history(s, limit),
    close: () => t.close(),
    ...(t.killAll ? { killAll: () => t.killAll!() } : {}),
    async status(s): Promise<ContainerStatusName> {
      if (pending.has(s.projectId)) return 'Pending';
      return transport.status(s);
    },
    initialise: bringUp,
    start: bringUp,

    stop: (s) =>
      during(s, async () => {
        let result: BackupResult | null = null;
        const status = await transport.status(s);
        // A sandbox that exists but does not run (an exited container) is started to be backed up: its workspace is still there.
        if (status !== 'NotRunning' && status !== 'Running') await transport.up(s);
        if (status !== 'NotRunning') {
          await transport.quiesce(s);
          if (!(await transport.workspaceIsEmpty(s))) {
            try {
              result = await backup(s);
            } catch (err) {
              throw Object.assign(new SandboxError('backup_failed', (err as Error).message), { cause: err });
            }
          }
        }
        await transport.down(s);
        return result;
      }),

    async backup(s): Promise<BackupResult> {
      await requireRunning(s);
      return backup(s);
    },

    lastBackupTime: (s) => backups.lastTime(s),
  };
}
