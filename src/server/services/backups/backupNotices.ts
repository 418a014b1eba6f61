import type { BackupRun } from '../../../shared/api/backups';
import type { Notice } from '../notifications/notificationService';

/** The notice a failed run warrants: a failed backup, or a drill that could not prove the backup restores. None for a run that worked. */
export function noticeOfRun(run: BackupRun, projectName: string): Notice | undefined {
  if (run.ok) return undefined;
  const when = `Started ${run.started_at.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC')}; destination: ${run.destination}.`;
  return run.kind === 'backup'
    ? { event: 'backup_failed', projectName, title: 'A backup failed', detail: `${run.failure ?? 'The backup failed.'}\n${when}` }
    : { event: 'drill_failed', projectName, title: 'The restore drill failed: the latest backup is not proven to restore', detail: `${run.failure ?? 'The restore drill failed.'}\n${when}` };
}

/** The notice of a nightly backup that did not run when its schedule said (the words from missedBackups.ts). */
export function noticeOfMissed(words: string, projectName: string): Notice {
  return { event: 'backup_missed', projectName, title: 'The nightly backup did not run', detail: words };
}
