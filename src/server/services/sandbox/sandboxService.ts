import type { Readable } from 'node:stream';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { sandboxes } from '../../db/schema';
import { badRequest, conflict, HttpError, notFound } from '../../errors';
import { SandboxError, type ExecOptions, type ExecResult, type SandboxDriver, type SandboxRef, type ZipOptions } from '../../sandbox/driver';
import type {
  ContainerActionResponse,
  ContainerStatusResponse,
  SandboxBackupResponse,
  SandboxHistoryResponse,
  SandboxInitializeResponse,
  SandboxPreflightResponse,
  SandboxStatusResponse,
} from '../../../shared/api/sandbox';
import { parsePlanSteps } from '../../../shared/planSteps';
import { missingProgramsCommand, missingTools, plannedPrograms } from './preflight';
import { writeWorkspaceFile } from './workspaceFiles';
import { SANDBOX_ERRORS, SANDBOX_INIT_ERRORS, type ContainerStatusName } from '../../../shared/constants/sandbox';
import type { EventBus } from '../events/eventBus';
import { createVersionedSnapshots, sharedOn, type SnapshotSource } from '../snapshots/versionedSnapshots';
import { secretFinder, textRedactor } from '../../sandbox/redactor';
import { secretSearchStrings } from '../../sandbox/secretForms';
import { isDiskFull, type DiskSpace } from '../health/diskSpace';

/** The project as `projects.require` answers it: already scoped to the caller. */
export interface ScopedProject {
  id: number;
  installationId: number;
}

export const NOT_RUNNING = 'The sandbox is not running';

/** How a project's sandbox is being used: commands (or shells) running now, and starts asked for since the server started. */
export interface SandboxActivity {
  running: number;
  started: number;
}

/**
 * A container can stop without us (it crashes, a node goes away): the status poll's snapshot is asked
 * again after this long, keeping its ETag when nothing changed (drivers whose `statusChangesOutside`).
 * Our own start/stop/backup drop it at once.
 */
export const CONTAINER_STATUS_MAX_AGE_MS = 5_000;
/** Projects whose last backup time is kept in memory at most. */
const MAX_SYNC_TIMES = 100_000;

/** The sandbox's Linux user: `user_{installationId}_{projectId}` (the folder download is named after it). */
export const sandboxUsername = (project: ScopedProject): string => `user_${project.installationId}_${project.id}`;

/**
 * The sandbox of a project: provisioning for the initialisation flow, container status and control,
 * backups, history and downloads. It receives a driver and never asks which one it is. Lifecycle calls
 * of one project run one at a time.
 */
export function createSandboxService({
  db,
  driver,
  planOf = async () => '',
  secretValues = async () => ({}),
  disk,
  events,
  filesOf = async () => [],
  shellsOpen = () => 0,
}: {
  db: Db;
  driver: SandboxDriver;
  /** The app's event bus: a status changed here is dropped on the other replicas. */
  events?: EventBus<unknown>;
  /** The project's implementation plan (markdown), whose steps' programs the tool preflight looks for. */
  planOf?: (projectId: number) => Promise<string>;
  /** The project's User Secrets, blanked from the history (commits written before a secret was added too). */
  secretValues?: (projectId: number) => Promise<Record<string, string>>;
  /** DATA_DIR's disk: a write that failed for want of space is said in plain words (and makes the server not ready). */
  disk?: Pick<DiskSpace, 'explain' | 'fullError'>;
  /** Files the server puts in the workspace at initialisation (a local repository's git bundle). */
  filesOf?: (projectId: number) => Promise<Array<{ path: string; data: Buffer }>>;
  /** Terminal shells open in the project's sandbox (the terminal sessions run them on the driver, not through here). */
  shellsOpen?: (projectId: number) => number;
}) {
  const locks = new Map<number, Promise<unknown>>();
  const initialising = new Set<number>();
  /** Use of each project's sandbox seen here: commands running now, and starts asked for so far. */
  const use = new Map<number, SandboxActivity>();
  const useOf = (projectId: number): SandboxActivity => {
    let entry = use.get(projectId);
    if (!entry) use.set(projectId, (entry = { running: 0, started: 0 }));
    return entry;
  };

  /**
   * Runs `task` after every earlier lifecycle call of the project has settled. The status poll's
   * snapshot is dropped as the task starts (the driver may report Pending) and once it has ended.
   */
  const serial = <T>(project: ScopedProject, task: () => Promise<T>): Promise<T> => {
    const projectId = project.id;
    const previous = locks.get(projectId) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        statuses.invalidate(statusKey(project));
        try {
          return await task();
        } finally {
          statuses.invalidate(statusKey(project));
        }
      });
    locks.set(projectId, next);
    void next.catch(() => undefined).finally(() => {
      if (locks.get(projectId) === next) locks.delete(projectId);
    });
    return next;
  };

  const refOf = (project: ScopedProject): SandboxRef => ({ projectId: project.id, username: sandboxUsername(project) });

  const rowOf = async (projectId: number) => {
    const [row] = await db.select().from(sandboxes).where(eq(sandboxes.projectId, projectId));
    return row;
  };

  /**
   * Each project's last backup time as the status poll shows it: read once, then kept up by `upsert`
   * (every write of the sandboxes table is here), so reloading a container's status asks only the driver.
   */
  const syncTimes = new Map<number, Date | null>();
  const syncTimeOf = async (projectId: number): Promise<Date | null> => {
    const known = syncTimes.get(projectId);
    if (known !== undefined) return known;
    const time = (await rowOf(projectId))?.lastSyncTime ?? null;
    if (syncTimes.size >= MAX_SYNC_TIMES) syncTimes.delete(syncTimes.keys().next().value as number);
    syncTimes.set(projectId, time);
    return time;
  };

  const upsert = async (project: ScopedProject, set: Partial<typeof sandboxes.$inferInsert>): Promise<void> => {
    const values = { projectId: project.id, username: sandboxUsername(project), ...set, updatedAt: new Date() };
    await db.insert(sandboxes).values(values).onConflictDoUpdate({ target: sandboxes.projectId, set: { ...set, updatedAt: new Date() } });
    if (set.lastSyncTime !== undefined) syncTimes.set(project.id, set.lastSyncTime);
  };

  /**
   * Maps driver failures a client caused (a stopped sandbox, a bad folder) to their HTTP answers, and an
   * engine or cluster that cannot be reached to a 503 naming it, and a full disk to a 507 saying so.
   */
  const asHttp = (err: unknown): unknown => {
    if (disk && isDiskFull(err)) return disk.fullError();
    if (!(err instanceof SandboxError)) return err;
    if (err.code === 'unavailable') return new HttpError(503, err.message);
    if (err.code === 'not_running') return conflict(NOT_RUNNING);
    if (err.code === 'not_found') return notFound(err.message);
    if (err.code === 'outside_workspace') return badRequest(err.message);
    return err;
  };

  /** A failure's message for the person: a full disk in plain words, anything else as the driver said it. */
  const messageOf = (err: unknown): string => disk?.explain(err) ?? (err as Error).message;

  /** The driver's status; an engine that cannot be reached is a 503 naming it. */
  const statusOf = (ref: SandboxRef): Promise<ContainerStatusName> => driver.status(ref).catch((err: unknown) => Promise.reject(asHttp(err)));

  const requireRunning = async (ref: SandboxRef): Promise<void> => {
    if ((await statusOf(ref)) !== 'Running') throw conflict(NOT_RUNNING);
  };

  async function containerStatus(project: ScopedProject): Promise<ContainerStatusResponse> {
    const ref = refOf(project);
    const [status, lastSyncTime] = await Promise.all([statusOf(ref), syncTimeOf(project.id)]);
    return { container_status: status, username: ref.username, last_sync_time: lastSyncTime?.toISOString() ?? null };
  }

  /** `{installationId}.{projectId}`: the username needs both. */
  const statusKey = (project: ScopedProject): string => `${project.installationId}.${project.id}`;
  const statuses = createVersionedSnapshots<string, ContainerStatusResponse>({
    load: (key) => {
      const [installationId, id] = key.split('.').map(Number) as [number, number];
      return containerStatus({ id, installationId });
    },
    ...(driver.statusChangesOutside ? { maxAgeMs: CONTAINER_STATUS_MAX_AGE_MS } : {}),
    ...sharedOn(events, 'snapshots.container-status'),
  });

  /**
   * The tool preflight: every program the plan's steps call, looked up with `command -v` inside the
   * sandbox. A check that cannot run leaves no answer rather than a wrong one.
   */
  const checkTools = async (project: ScopedProject): Promise<Partial<typeof sandboxes.$inferInsert>> => {
    const programs = plannedPrograms(parsePlanSteps(await planOf(project.id).catch(() => '')));
    if (programs.size === 0) return { missingTools: [], toolsCheckedAt: new Date() };
    try {
      const result = await driver.exec(refOf(project), missingProgramsCommand(programs.keys()), { timeoutMs: 60_000 });
      if (result.exitCode !== 0) return { missingTools: null, toolsCheckedAt: null };
      return { missingTools: missingTools(result.output, programs), toolsCheckedAt: new Date() };
    } catch {
      return { missingTools: null, toolsCheckedAt: null };
    }
  };

  return {
    ref: refOf,

    /** The tool preflight of the last initialisation: what the plan calls that the sandbox lacked. */
    async preflight(project: ScopedProject): Promise<SandboxPreflightResponse> {
      const row = await rowOf(project.id);
      return { missing_tools: row?.missingTools ?? [], checked_at: row?.toolsCheckedAt?.toISOString() ?? null };
    },

    /** READY once initialised, FAILED after a failed initialisation, CREATING before and meanwhile. */
    async provisioningStatus(project: ScopedProject): Promise<SandboxStatusResponse> {
      const row = await rowOf(project.id);
      if (!row || initialising.has(project.id)) return { status: 'CREATING' };
      return { status: row.provisioning as SandboxStatusResponse['status'] };
    },

    /**
     * Makes the sandbox usable: creates the workspace or restores the newest backup, then answers
     * `success`. A call while another is under way answers `creating` at once (the client asks again in 10 s).
     */
    async initialise(project: ScopedProject): Promise<SandboxInitializeResponse> {
      if (initialising.has(project.id)) return { status: 'creating', detail: 'The sandbox is being created' };
      initialising.add(project.id);
      try {
        return await serial(project, async () => {
          await upsert(project, { provisioning: 'CREATING', error: null });
          try {
            await driver.initialise(refOf(project));
            for (const file of await filesOf(project.id)) await writeWorkspaceFile(driver, refOf(project), file.path, file.data);
          } catch (err) {
            const detail = `${SANDBOX_INIT_ERRORS.failed}: ${messageOf(err)}`;
            await upsert(project, { provisioning: 'FAILED', error: detail });
            if (disk && isDiskFull(err)) throw disk.fullError();
            return { status: 'failed', detail } as const;
          }
          await upsert(project, { provisioning: 'READY', error: null, ...(await checkTools(project)) });
          useOf(project.id).started += 1;
          return { status: 'success', detail: 'The sandbox is ready' } as const;
        });
      } finally {
        initialising.delete(project.id);
      }
    },

    /** Asks the driver now (the execution stage does before running a step). */
    containerStatus,

    /** The status poll's snapshot: from memory, asked again after our own lifecycle calls or CONTAINER_STATUS_MAX_AGE_MS. */
    containerStatuses: {
      get: (project) => statuses.get(statusKey(project)),
      peek: (project) => statuses.peek(statusKey(project)),
    } satisfies SnapshotSource<ScopedProject, ContainerStatusResponse>,

    async start(project: ScopedProject): Promise<ContainerActionResponse> {
      return serial(project, async () => {
        const ref = refOf(project);
        try {
          await driver.start(ref);
        } catch (err) {
          const status = err instanceof SandboxError && err.code === 'unavailable' ? 503 : isDiskFull(err) ? 507 : 500;
          throw new HttpError(status, `${SANDBOX_ERRORS.start}: ${messageOf(err)}`);
        }
        await upsert(project, { provisioning: 'READY', error: null });
        useOf(project.id).started += 1;
        return { container_status: await statusOf(ref), message: 'Sandbox started' };
      });
    },

    /**
     * The driver's stop: processes ended, a verified backup, then the sandbox ended. A failed backup aborts
     * the stop (409 with the spec's message and the reason) and nothing is removed.
     */
    async stop(project: ScopedProject): Promise<ContainerActionResponse> {
      return serial(project, async () => {
        const ref = refOf(project);
        if ((await statusOf(ref)) !== 'Running') return { container_status: await statusOf(ref), message: NOT_RUNNING };
        let backup;
        try {
          backup = await driver.stop(ref);
        } catch (err) {
          if (err instanceof SandboxError && err.code === 'backup_failed') throw new HttpError(409, `${SANDBOX_ERRORS.stop} (${messageOf(err.cause ?? err)})`);
          const status = err instanceof SandboxError && err.code === 'unavailable' ? 503 : 500;
          throw new HttpError(status, `${SANDBOX_ERRORS.stop} (${messageOf(err)})`);
        }
        if (backup) await upsert(project, { lastSyncTime: backup.lastSyncTime });
        return { container_status: await statusOf(ref), message: 'Sandbox stopped' };
      });
    },

    /** A backup that ran and failed answers `status: 'error'` (507 for a full disk); a sandbox that is not Running is a 409. */
    async backup(project: ScopedProject): Promise<SandboxBackupResponse> {
      return serial(project, async () => {
        const ref = refOf(project);
        await requireRunning(ref);
        try {
          const { lastSyncTime } = await driver.backup(ref);
          await upsert(project, { lastSyncTime });
          return { status: 'success', last_sync_time: lastSyncTime.toISOString() } as const;
        } catch (err) {
          if (disk && isDiskFull(err)) throw disk.fullError();
          const row = await rowOf(project.id);
          return { status: 'error', last_sync_time: row?.lastSyncTime?.toISOString() ?? null, error: messageOf(err) } as const;
        }
      });
    },

    async history(project: ScopedProject): Promise<SandboxHistoryResponse> {
      try {
        const [commits, values] = await Promise.all([driver.history(refOf(project)), secretValues(project.id)]);
        const redact = textRedactor(Object.values(values));
        return { commits: commits.map((c) => ({ ...c, message: redact(c.message) })) };
      } catch (err) {
        throw asHttp(err);
      }
    },

    /** Runs a command in the project's sandbox (the execution stage's steps); a stopped sandbox is a 409. */
    async exec(project: ScopedProject, command: string, options?: ExecOptions): Promise<ExecResult> {
      const entry = useOf(project.id);
      entry.running += 1;
      try {
        return await driver.exec(refOf(project), command, options);
      } catch (err) {
        throw asHttp(err);
      } finally {
        entry.running -= 1;
      }
    },

    /**
     * The project's sandbox use (commands and shells running, starts asked for so far), copied: a
     * sandbox woken only for a check is put back to sleep when neither changed (wakeSandbox.ts).
     */
    activity(project: ScopedProject): SandboxActivity {
      const seen = useOf(project.id);
      return { running: seen.running + shellsOpen(project.id), started: seen.started };
    },

    /** Commits what an executed step changed, files holding a secret value left out; used by the execution stage. */
    async commitStep(project: ScopedProject, stepNumber: number, command: string): Promise<string> {
      try {
        const forms = secretSearchStrings(Object.values(await secretValues(project.id)));
        return await driver.commitStep(refOf(project), stepNumber, command, forms);
      } catch (err) {
        throw asHttp(err);
      }
    },

    async workspaceZip(project: ScopedProject, options?: ZipOptions): Promise<Readable> {
      try {
        return await driver.zipWorkspace(refOf(project), { ...options, holdsSecret: secretFinder(Object.values(await secretValues(project.id))) });
      } catch (err) {
        throw asHttp(err);
      }
    },

    /**
     * The folder at `path` (`/home/{username}/workspace/...`, already free of `.` and `..` segments by
     * the query schema) as a zip and its file name. Another user's path is refused.
     */
    async folderZip(project: ScopedProject, path: string, options?: ZipOptions): Promise<{ stream: Readable; username: string }> {
      const ref = refOf(project);
      const root = `/home/${ref.username}/workspace`;
      if (path !== root && !path.startsWith(`${root}/`)) throw badRequest(`path must be inside ${root}/`);
      const relative = path.slice(root.length).replace(/^\/+|\/+$/g, '');
      if (relative.split('/').some((part) => part === '..' || part === '.')) throw badRequest('path must not contain . or .. segments');
      try {
        const holdsSecret = secretFinder(Object.values(await secretValues(project.id)));
        return { stream: await driver.zipFolder(ref, relative, { ...options, holdsSecret }), username: ref.username };
      } catch (err) {
        throw asHttp(err);
      }
    },

    close: (): Promise<void> => driver.close(),
    /** For a shutdown out of time: the driver's host processes ended at once. */
    killAll: (): void => driver.killAll?.(),
  };
}

export type SandboxService = ReturnType<typeof createSandboxService>;
