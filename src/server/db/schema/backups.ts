import { bigint, boolean, index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { DrillCheck } from '../../../shared/api/backups';
import { projects } from './core';

/**
 * A backup run or a restore drill as a step's output reported it (the script's result line with restic's
 * own JSON in it, and the step's exit status): when, how long, how much, which snapshot, and what failed
 * in words. One row per run; a nightly run the drill repeats is kept once (project, kind, start).
 */
export const backupRuns = pgTable(
  'backup_runs',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    /** `backup`, `drill`, or `missed`: a due time of the schedule no backup answered (services/backups/missedBackups.ts). */
    kind: text('kind').notNull(),
    ok: boolean('ok').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
    seconds: integer('seconds').notNull(),
    /** Where the repository is, in words, without credentials. */
    destination: text('destination').notNull(),
    /** Bytes backed up (backup) or restored (drill); a database of several GB passes 2^31. */
    bytes: bigint('bytes', { mode: 'number' }),
    /** Bytes the backup added to the repository after deduplication. */
    added: bigint('added', { mode: 'number' }),
    snapshot: text('snapshot'),
    /** What failed, in words (the step of the script and what the server said); null when it worked. */
    failure: text('failure'),
    checks: jsonb('checks').$type<DrillCheck[]>().notNull(),
    recordedAt: timestamp('recorded_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('backup_runs_project_kind_started').on(t.projectId, t.kind, t.startedAt), index('backup_runs_project_recorded').on(t.projectId, t.recordedAt)],
);
