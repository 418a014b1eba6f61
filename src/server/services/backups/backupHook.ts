import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { projects } from '../../db/schema';
import type { Notice } from '../notifications/notificationService';
import type { EndedStep, StepProject } from '../steps/stepRuns';
import { noticeOfRun } from './backupNotices';
import { recordStepRuns } from './backupRecords';

/**
 * The step runner's `afterStepStored` for backups: the runs a step reported are recorded, and each new
 * failed one reaches the person through the project's notifications. Never throws: a step's result is
 * already stored, and a record that could not be written is logged.
 */
export function backupStepRecorder(deps: { db: Db; notify(projectId: number, notice: Notice): Promise<void>; log: { warn(obj: object, msg: string): void } }) {
  return (project: StepProject, _planId: number, step: EndedStep & { output: string }): void => {
    void (async () => {
      const runs = await recordStepRuns(deps.db, project.projectId, step);
      const failed = runs.filter((r) => !r.ok);
      if (!failed.length) return;
      const [row] = await deps.db.select({ name: projects.name }).from(projects).where(eq(projects.id, project.projectId));
      for (const run of failed) {
        const notice = noticeOfRun(run, row?.name ?? 'Project');
        if (notice) await deps.notify(project.projectId, notice);
      }
    })().catch((err: unknown) => deps.log.warn({ projectId: project.projectId, err }, 'A backup run could not be recorded'));
  };
}
