import { integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { DriftCheckRun, DriftDifference } from '../../../shared/api/releases';
import { projects } from './core';

/** One running container of a release as read back from the server after `up`. */
export interface ReleaseContainer {
  service: string;
  image: string;
  /** The image's content digest (`sha256:…`), the identity that ran, not the tag. */
  digest: string;
  ports: string[];
  /** Its state after `up` (`running`, `healthy`, or `exited` for a task that runs once); absent in older releases. */
  state?: string;
}

/**
 * A deploy as it ran: the compose and config files (path → text) and what the server ran from them,
 * numbered per project so "Roll back" can name one and restore exactly its files.
 */
export const releases = pgTable(
  'releases',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    number: integer('number').notNull(),
    /** Where the stack lives on the server (the compose project directory). */
    directory: text('directory').notNull(),
    files: jsonb('files').$type<Record<string, string>>().notNull(),
    containers: jsonb('containers').$type<ReleaseContainer[]>().notNull(),
    /** Firewall rules and cron entries as they were after this release came up, the drift baseline. */
    baseline: jsonb('baseline').$type<{ firewall: string[]; cron: string[] }>().notNull(),
    /** `live`, `rolled_back` (its health gate failed and the previous one was restored) or `superseded`. */
    status: text('status').notNull().default('live'),
    /** What happened to it, in words, when it did not simply come up (a failed health gate and what was restored). */
    note: text('note'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('releases_project_number').on(t.projectId, t.number)],
);

/**
 * A project's last drift check: when it ran, what it compared against, each read-only command with its
 * output, and what differs. The schedule reads `checkedAt` from here, so a restart neither checks every
 * project at once nor forgets one.
 */
export const driftChecks = pgTable('drift_checks', {
  projectId: integer('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  checkedAt: timestamp('checked_at', { withTimezone: true, mode: 'date' }).notNull(),
  /** The release compared against; null when the project had none. */
  releaseNumber: integer('release_number'),
  checks: jsonb('checks').$type<DriftCheckRun[]>().notNull(),
  differences: jsonb('differences').$type<DriftDifference[]>().notNull(),
  /** Why the check could not finish (the sandbox stopped, SSH refused), or null. */
  error: text('error'),
});
