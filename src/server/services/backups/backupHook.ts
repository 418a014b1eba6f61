import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { projects } from '../../db/schema';
import type { BackupRun } from '../../../shared/api/backups';
import type { Notice } from '../notifications/notificationService';
import type { EndedStep, StepProject } from '../steps/stepRuns';
import { noticeOfRun } from './backupNotices';
import { recordStepRuns, type EndedRun } from './backupRecords';

export interface BackupRecordDeps {
  db: Db;
  notify(projectId: number, notice: Notice): Promise<void>;
  log: { warn(obj: object, msg: string): void };
}

/** Records the runs an output reports; each new failed one reaches the person through the project's notifications. Answers the new runs. */
export async function recordAndNotify(deps: BackupRecordDeps, projectId: number, ended: EndedRun): Promise<BackupRun[]> {
  const runs = await recordStepRuns(deps.db, projectId, ended);
  const failed = runs.filter((r) => !r.ok);
  if (!failed.length) return runs;
  const [row] = await deps.db.select({ name: projects.name }).from(projects).where(eq(projects.id, projectId));
  for (const run of failed) {
    const notice = noticeOfRun(run, row?.name ?? 'Project');
    if (notice) await deps.notify(projectId, notice);
  }
  return runs;
}

/**
 * The step runner's `afterStepStored` for backups: the runs a step reported are recorded, and each new
 * failed one reaches the person through the project's notifications. Never throws: a step's result is
 * already stored, and a record that could not be written is logged.
 */
export function backupStepRecorder(deps: BackupRecordDeps) {
  return (project: StepProject, _planId: number, step: EndedStep & { output: string }): void => {
    void recordAndNotify(deps, project.projectId, step).catch((err: unknown) => deps.log.warn({ projectId: project.projectId, err }, 'A backup run could not be recorded'));
  };
}
