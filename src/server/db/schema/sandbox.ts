import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { projects } from './core';

/**
 * One sandbox per project: its provisioning state for the initialisation flow (READY, CREATING,
 * FAILED with the error), its Linux user and the time of its last successful backup. What runs and
 * what is on disk belongs to the driver; this row is what survives a server restart.
 */
export const sandboxes = pgTable('sandboxes', {
  projectId: integer('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  /** `user_{installationId}_{projectId}`: the workspace is /home/{username}/workspace. */
  username: text('username').notNull(),
  /** 'CREATING' | 'READY' | 'FAILED' */
  provisioning: text('provisioning').notNull().default('CREATING'),
  error: text('error'),
  lastSyncTime: timestamp('last_sync_time', { withTimezone: true, mode: 'date' }),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
