import { and, desc, eq, gt, asc } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { backupRuns } from '../../db/schema';
import type { BackupPaths } from '../../agents/offline/backupScripts';
import type { BackupOverdue } from '../../../shared/api/backups';
import type { MissedRun } from './backupSchedule';
import type { ServerCron } from './serverClock';

/**
 * A nightly backup that never ran leaves no result on the server to read: it is recorded from the
 * schedule instead, as a run of kind `missed` started at the due time it missed. The records' unique
 * (project, kind, start) keeps each missed due time once, however often the watch reads, so it is
 * notified once; any backup that starts later (worked or failed: cron ran it) ends the overdue state.
 */

export const MISSED_KIND = 'missed';

type CronState = 'entry_gone' | 'cron_stopped' | 'cron_unknown' | 'not_run';

const stateOf = (cron: ServerCron): CronState => (!cron.cronEntry ? 'entry_gone' : cron.cronRunning === false ? 'cron_stopped' : cron.cronRunning === null ? 'cron_unknown' : 'not_run');

/** What to check, by what the server said of its cron: words a person can act on. */
const WHAT_TO_CHECK: Record<CronState, (p: BackupPaths) => string> = {
  entry_gone: (p) => `The cron entry ${p.cron} is gone from the server, so nothing starts the backup: execute the plan's backup step again to put it back.`,
  cron_stopped: (p) => `The cron entry ${p.cron} is there, but no cron daemon runs on the server: start it (sudo systemctl enable --now cron) and find out why it stopped.`,
  cron_unknown: (p) => `The cron entry ${p.cron} is there; whether cron runs could not be read (the server has no pgrep): check it does (systemctl status cron) and read its log.`,
  not_run: (p) =>
    `The cron entry ${p.cron} is there and cron runs: the server may have been off at that time, or the run hung or is still going. Read cron's log (journalctl -u cron, or grep CRON /var/log/syslog) and run ${p.backupScript} as root to see what it does.`,
};

/** A time in UTC, and on the server's clock when its zone shows it otherwise (a fixed offset the runtime cannot show stays UTC only). */
function when(date: Date, zone: string): string {
  const utc = date.toISOString().replace('T', ' ').replace(/:\d\d\.\d+Z$/, ' UTC');
  const format = (timeZone: string): string => new Intl.DateTimeFormat('en-GB', { timeZone, dateStyle: 'medium', timeStyle: 'short' }).format(date);
  try {
    const local = format(zone);
    return local === format('UTC') ? utc : `${utc} (${local} on the server, ${zone})`;
  } catch {
    return utc;
  }
}

/** The missed run in words: when it was due, the last run the app knows, and what to check. */
export function missedInWords(missed: MissedRun, cron: ServerCron, schedule: string, graceMinutes: number, paths: BackupPaths): string {
  const zone = cron.clock.zone;
  return [
    `The nightly backup (cron "${schedule}") due at ${when(missed.dueAt, zone)} did not report within ${graceMinutes} minutes.`,
    missed.lastStartedAt ? `The last backup started at ${when(missed.lastStartedAt, zone)}.` : 'No backup of this stack has been recorded.',
    WHAT_TO_CHECK[stateOf(cron)](paths),
  ].join('\n');
}

/** The start of the project's last backup (worked or failed), or null. */
export async function lastBackupStart(db: Db, projectId: number): Promise<Date | null> {
  const [row] = await db
    .select({ startedAt: backupRuns.startedAt })
    .from(backupRuns)
    .where(and(eq(backupRuns.projectId, projectId), eq(backupRuns.kind, 'backup')))
    .orderBy(desc(backupRuns.startedAt))
    .limit(1);
  return row?.startedAt ?? null;
}

/** Records the missed due time; answers true when it is new (then it is to be notified). */
export async function recordMissed(db: Db, projectId: number, missed: MissedRun, words: string): Promise<boolean> {
  const stored = await db
    .insert(backupRuns)
    .values({ projectId, kind: MISSED_KIND, ok: false, startedAt: missed.dueAt, seconds: 0, destination: 'not run', failure: words, checks: [] })
    .onConflictDoNothing()
    .returning({ id: backupRuns.id });
  return stored.length > 0;
}

/** Overdue since the first due time missed after the last backup started, with the latest words; null when a backup started since. */
export async function overdueOf(db: Db, projectId: number, lastStart: Date | null): Promise<BackupOverdue | null> {
  const since = lastStart ? and(eq(backupRuns.projectId, projectId), eq(backupRuns.kind, MISSED_KIND), gt(backupRuns.startedAt, lastStart)) : and(eq(backupRuns.projectId, projectId), eq(backupRuns.kind, MISSED_KIND));
  const missed = await db.select({ startedAt: backupRuns.startedAt, failure: backupRuns.failure }).from(backupRuns).where(since).orderBy(asc(backupRuns.startedAt));
  const first = missed[0];
  const latest = missed.at(-1);
  if (!first || !latest) return null;
  return { since: first.startedAt.toISOString(), due_at: latest.startedAt.toISOString(), missed: missed.length, detail: latest.failure ?? '' };
}
