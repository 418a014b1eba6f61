import { boolean, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
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

/**
 * This server's id, generated once (a single row): the docker driver names and labels its containers,
 * volumes and networks with it, so that servers sharing one engine never touch each other's sandboxes.
 * Replicas of one server share the database, and so the id and the sandboxes.
 */
export const serverInstance = pgTable('server_instance', {
  /** Always true: the primary key that allows one row only. */
  singleton: boolean('singleton').primaryKey().default(true),
  id: text('id').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
