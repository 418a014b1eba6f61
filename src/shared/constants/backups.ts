import type { BackupOverdue, BackupRun } from '../api/backups';

/** Bytes in the units a person reads (1024-based, one decimal from MB up). */
export function sizeInWords(bytes: number | null): string {
  if (bytes === null) return 'size unknown';
  const units = ['bytes', 'KB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${value} bytes` : `${value.toFixed(unit >= 2 ? 1 : 0)} ${units[unit]}`;
}

/** The project home's backups panel: the last backup and the last proven restore, as the steps reported them. */
export const BACKUPS_TEXT = {
  title: 'Backups',
  intro: 'Recorded from the steps that ran them: the deploy plan backs the data up with restic (encrypted, to the destination you chose), and the restore drill restores the latest backup into throwaway containers and checks it.',
  loading: 'Loading the backups…',
  loadError: 'The backups could not be loaded.',
  none: 'No backup has run yet: the deploy plan\'s backup step runs the first one.',
  lastBackup: 'Last backup',
  lastProven: 'Last proven restore',
  lastDrill: 'Last restore drill',
  noDrill: 'No restore drill has run yet: the latest backup is not proven to restore. The validation runs one.',
  noProven: 'No restore drill has passed yet: no backup is proven to restore.',
  backupDone: (r: BackupRun, when: string) => `${when}: ${sizeInWords(r.bytes)} backed up${r.added === null ? '' : ` (${sizeInWords(r.added)} new)`} in ${r.seconds} s, snapshot ${r.snapshot ?? 'unknown'}, to ${r.destination}.`,
  drillDone: (r: BackupRun, when: string) =>
    `${when}: snapshot ${r.snapshot ?? 'unknown'} restored (${sizeInWords(r.bytes)}) and checked in ${r.seconds} s: ${r.checks.map((c) => [c.what, c.tables === undefined ? '' : `${c.tables} tables`, c.rows === undefined ? '' : `${c.rows} rows`, c.files === undefined ? '' : `${c.files} files`].filter(Boolean).join(' ')).join('; ') || 'nothing to check'}.`,
  nightly: 'Nightly backup',
  overdue: (o: BackupOverdue, since: string) =>
    `Overdue since ${since}: the nightly backup did not run ${o.missed === 1 ? 'when it was due' : `at any of the ${o.missed} times it was due`}. ${o.detail}`,
  failed: (r: BackupRun, when: string) => `${r.kind === 'drill' ? 'The restore drill' : 'The backup'} of ${when} failed: ${r.failure ?? 'no reason was given'}`,
} as const;
