import { eq } from 'drizzle-orm';
import { backupRuns, projects } from '../../db/schema';
import { missedRun } from './backupSchedule';
import { noticeOfMissed } from './backupNotices';
import { lastBackupStart, missedInWords, recordMissed } from './missedBackups';
import { parseServerCron, readClockCommand } from './serverClock';
import { BACKUP_RESULT_MARKER, type BackupRun } from '../../../shared/api/backups';
import { pathsOf, type BackupPaths } from '../../agents/offline/backupScripts';
import { projectPlace } from '../releases/projectPlace';
import { serverRunner, type SandboxExec } from '../releases/onServer';
import { recordAndNotify, type BackupRecordDeps } from './backupHook';
import { whileAwake, type SleepingSandbox, type WakeOptions } from '../sandbox/wakeSandbox';

/**
 * The nightly backup runs from cron on the server, where nothing reports it: each script keeps its last
 * result in `<state>/last-backup.json` (and `last-drill.json`), also when it failed early, before it could
 * read its settings. This watch reads those files on a schedule, with one read-only command run the way
 * drift checks run theirs (the sandbox's pinned SSH config), and records what they say as the step
 * runner records a step's output: a run already recorded (same project, kind and start) is kept once, and
 * a new failed one reaches the person through the project's notifications within one period, not when a
 * later drill happens to repeat it.
 *
 * A run that never started writes nothing: the same command prints the server's clock, zone and cron
 * entry, and the last due time of the schedule (in the server's zone) that no backup started after is
 * recorded as missed and notified once (missedBackups.ts).
 */

export interface BackupWatchDeps extends BackupRecordDeps {
  /** Runs the read-only command; a sandbox that is not running is woken for it and put back to sleep after, as a drift check does. */
  sandbox: SandboxExec & SleepingSandbox;
  /** How the watch waits for a sandbox another request is starting (tests shorten it). */
  wake?: WakeOptions;
  /** The values redacted from what the sandbox prints (User Secrets). */
  hiddenValues(projectId: number): Promise<Record<string, string>>;
  /** Where the backup is installed on the server (each project's place, projectPlace.ts, unless a test says). */
  paths?: BackupPaths;
  now?: () => number;
  /** The schedule the stack model says (the one the deploy installs), used when the server's cron entry is gone; undefined: backups are off. */
  scheduleOf(projectId: number): Promise<string | undefined>;
  /** Minutes after a due time before its run counts as missed: a run reports only when it ends (BACKUP_GRACE_MINUTES). */
  graceMinutes: number;
}

export const READ_TITLE = 'The last backup and restore drill results the server keeps, its clock and its cron entry';

/** The read-only command: each result file that exists, printed as the scripts print their result line, then the clock line. */
export function readLastResults(paths: BackupPaths): string {
  return [
    'if [ "$(id -u)" = 0 ]; then as_root() { "$@"; }; else as_root() { sudo -n "$@"; }; fi',
    `for f in ${paths.state}/last-backup.json ${paths.state}/last-drill.json; do`,
    `  if as_root test -s "$f"; then printf '%s ' ${BACKUP_RESULT_MARKER}; as_root head -c 65536 "$f"; echo; fi`,
    'done',
    ...readClockCommand(paths),
  ].join('\n');
}

export function createBackupWatch(deps: BackupWatchDeps) {
  const now = deps.now ?? Date.now;
  /** When each project's server was last read (a restart reads every one again: what is recorded is kept once). */
  const lastRead = new Map<number, number>();

  /** Reads the project's server now; answers the runs new to the records (a new failed one was notified). */
  async function readServer(project: { projectId: number; installationId: number }): Promise<BackupRun[]> {
    const sandboxOf = { id: project.projectId, installationId: project.installationId };
    lastRead.set(project.projectId, now());
    // A sandbox stopped by the person or gone with a restart would leave a failed cron run unread until
    // someone opened the project: woken as the drift check wakes it, or the reason is logged.
    const paths = deps.paths ?? pathsOf(await projectPlace(deps.db, project.projectId, { fix: false }));
    const runner = serverRunner(deps.sandbox, sandboxOf, Object.values(await deps.hiddenValues(project.projectId)));
    const read = await whileAwake(deps.sandbox, sandboxOf, () => runner.run(readLastResults(paths), READ_TITLE), deps.wake);
    if (read.sleepError) deps.log.warn({ projectId: project.projectId, err: read.sleepError }, 'the sandbox woken for the backup watch stays running');
    if (!read.ran) throw new Error(read.notRunning);
    const runs = await recordAndNotify(deps, project.projectId, { status: 'completed', command: null, output: read.value, errorMessage: null });
    await checkMissed(project.projectId, read.value, paths);
    return runs;
  }

  /** Records and notifies the last due time of the schedule no backup started after, if there is one. */
  async function checkMissed(projectId: number, output: string, paths: BackupPaths): Promise<void> {
    const cron = parseServerCron(output);
    if (!cron) return deps.log.warn({ projectId }, 'the backup watch could not read the server clock: whether a backup was missed is unknown');
    // The entry on the server is what cron runs; the stack model's schedule only when the entry is gone.
    const schedule = cron.installedSchedule ?? (await deps.scheduleOf(projectId));
    if (!schedule) return;
    const lastStart = await lastBackupStart(deps.db, projectId);
    let missed: ReturnType<typeof missedRun>;
    try {
      missed = missedRun(schedule, cron.clock, deps.graceMinutes * 60_000, lastStart);
    } catch (err) {
      // A schedule cron-parser refuses (an entry edited by hand, or its loop limit around a daylight-saving
      // change in a half-hour zone): the result files were still read and recorded; only this check is unknown.
      return deps.log.warn({ projectId, schedule, err: (err as Error).message }, 'the backup schedule could not be read: whether a backup was missed is unknown');
    }
    if (!missed) return;
    const words = missedInWords(missed, cron, schedule, deps.graceMinutes, paths);
    if (!(await recordMissed(deps.db, projectId, missed, words))) return;
    const [row] = await deps.db.select({ name: projects.name }).from(projects).where(eq(projects.id, projectId));
    await deps.notify(projectId, noticeOfMissed(words, row?.name ?? 'Project'));
  }

  return {
    readServer,

    /**
     * Reads, one after another, every project whose backup the deploy installed (it has a recorded run:
     * the install step runs the first backup) and whose server was not read in the last `minutes`.
     */
    async checkDue(minutes: number): Promise<number> {
      const watched = await deps.db
        .selectDistinct({ projectId: backupRuns.projectId, installationId: projects.installationId })
        .from(backupRuns)
        .innerJoin(projects, eq(projects.id, backupRuns.projectId));
      const due = watched.filter((p) => (lastRead.get(p.projectId) ?? -Infinity) <= now() - minutes * 60_000);
      for (const p of due) {
        await readServer(p).catch((err: unknown) => deps.log.warn({ projectId: p.projectId, err: (err as Error).message }, 'the backup results on the server could not be read'));
      }
      return due.length;
    },
  };
}

export type BackupWatch = ReturnType<typeof createBackupWatch>;
