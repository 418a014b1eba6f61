import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { backupRuns } from '../../db/schema';
import { BACKUP_SCRIPT, DRILL_SCRIPT } from '../../agents/offline/backupScripts';
import { overdueOf } from './missedBackups';
import { failureInWords, parseScriptResults, type BackupRun, type BackupsStatus, type ScriptResult } from '../../../shared/api/backups';

/**
 * Backup runs and restore drills as the steps that ran them reported them. A run is recorded from two
 * things only: the step's exit status and the script's result lines in its output (restic's own JSON read
 * with a parser, see shared/api/backups.ts). A step that ran a script and failed before it printed a
 * result is a failed run, said in the step's words; a script's success in a step that failed is none.
 */

/** A step as it ended: its status, its (redacted) command and output, and its error. */
export interface EndedRun {
  status: 'completed' | 'failed';
  command: string | null;
  output: string;
  errorMessage: string | null;
}

type NewRun = typeof backupRuns.$inferInsert;
type Kind = ScriptResult['kind'];

/**
 * What a step runs, read from its command: the drill or the backup script run as root (the install step
 * ends by running the backup), under the legacy path or a stack's own (`<script>-<stack name>`, stackPlace.ts).
 */
export function kindOfStep(command: string | null): Kind | undefined {
  if (!command) return undefined;
  const runs = (script: string): boolean => command.split('\n').some((line) => line.trim().split(/\s+/).some((word) => word === script || word.startsWith(`${script}-`)) && !/\binstall\b|\btee\b|\bcat\b/.test(line));
  if (runs(DRILL_SCRIPT)) return 'drill';
  if (runs(BACKUP_SCRIPT)) return 'backup';
  return undefined;
}

const lastLines = (text: string, n: number): string => text.trim().split('\n').filter(Boolean).slice(-n).join(' / ');

/** The runs a step's end reports, ready to store for a project. */
export function runsOfStep(projectId: number, step: EndedRun, now = new Date()): NewRun[] {
  const stepKind = kindOfStep(step.command);
  const results = parseScriptResults(step.output);
  if (!results.length) {
    if (!stepKind || step.status === 'completed') return [];
    const what = stepKind === 'drill' ? 'restore drill' : 'backup';
    return [
      {
        projectId,
        kind: stepKind,
        ok: false,
        startedAt: now,
        seconds: 0,
        destination: 'not reached',
        failure: `The step failed before the ${what} reported a result: ${step.errorMessage ?? 'no error given'}${step.output.trim() ? ` (${lastLines(step.output, 3).slice(0, 500)})` : ''}`,
        checks: [],
      },
    ];
  }
  // The result of the script the step ran is judged with the step's exit status; a backup a drill repeats (a nightly one) stands alone.
  const own = stepKind ? results.filter((r) => r.kind === stepKind).at(-1) : results.at(-1);
  return results.map((r) => {
    const stepFailed = r === own && step.status === 'failed' && r.ok;
    const started = new Date(r.started_at);
    return {
      projectId,
      kind: r.kind,
      ok: r.ok && !stepFailed,
      startedAt: Number.isNaN(started.getTime()) ? now : started,
      seconds: r.seconds,
      destination: r.destination,
      bytes: r.bytes ?? null,
      added: r.added ?? null,
      snapshot: r.snapshot ?? null,
      failure: stepFailed ? `The script reported success but the step failed: ${step.errorMessage ?? 'no error given'}` : failureInWords(r),
      checks: r.checks ?? [],
    };
  });
}

/** Stores the runs a step reported; answers the ones new to the project (a repeated nightly run is kept once). */
export async function recordStepRuns(db: Db, projectId: number, step: EndedRun): Promise<BackupRun[]> {
  const runs = runsOfStep(projectId, step);
  if (!runs.length) return [];
  const stored = await db.insert(backupRuns).values(runs).onConflictDoNothing().returning();
  return stored.map(toBackupRun);
}

export function toBackupRun(r: typeof backupRuns.$inferSelect): BackupRun {
  return {
    id: r.id,
    kind: r.kind === 'drill' ? 'drill' : 'backup',
    ok: r.ok,
    started_at: r.startedAt.toISOString(),
    seconds: r.seconds,
    destination: r.destination,
    bytes: r.bytes,
    added: r.added,
    snapshot: r.snapshot,
    failure: r.failure,
    checks: r.checks,
  };
}

/** A project's runs, newest first (by when they started), of one kind or both. */
export async function listRuns(db: Db, projectId: number, options: { kind?: Kind; limit?: number } = {}): Promise<BackupRun[]> {
  // Missed due times (missedBackups.ts) are no runs: they are read as the overdue state.
  const kinds: Kind[] = options.kind ? [options.kind] : ['backup', 'drill'];
  const where = and(eq(backupRuns.projectId, projectId), inArray(backupRuns.kind, kinds));
  const rows = await db
    .select()
    .from(backupRuns)
    .where(where)
    .orderBy(desc(backupRuns.startedAt), desc(backupRuns.id))
    .limit(options.limit ?? 20);
  return rows.map(toBackupRun);
}

/** The last backup, the last drill, the last drill that passed (the last proven restore), and a missed nightly run since the last backup. */
export async function backupsStatus(db: Db, projectId: number): Promise<BackupsStatus> {
  const [lastBackup] = await listRuns(db, projectId, { kind: 'backup', limit: 1 });
  const [lastDrill] = await listRuns(db, projectId, { kind: 'drill', limit: 1 });
  const [proven] = lastDrill?.ok
    ? [lastDrill]
    : (
        await db
          .select()
          .from(backupRuns)
          .where(and(eq(backupRuns.projectId, projectId), eq(backupRuns.kind, 'drill'), eq(backupRuns.ok, true)))
          .orderBy(desc(backupRuns.startedAt))
          .limit(1)
      ).map(toBackupRun);
  const overdue = await overdueOf(db, projectId, lastBackup ? new Date(lastBackup.started_at) : null);
  return { last_backup: lastBackup ?? null, last_drill: lastDrill ?? null, last_proven: proven ?? null, overdue };
}
