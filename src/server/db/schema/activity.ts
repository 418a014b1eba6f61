import { date, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { installations, projects } from './core';

/**
 * What happened in an installation, for the activity overview and the home timeline. A row outlives
 * its project (project_id is set to null when the project is deleted): history stays history.
 */
export const activities = pgTable(
  'activities',
  {
    id: serial('id').primaryKey(),
    installationId: integer('installation_id')
      .notNull()
      .references(() => installations.id, { onDelete: 'cascade' }),
    projectId: integer('project_id').references(() => projects.id, { onDelete: 'set null' }),
    /** e.g. PROJECT_WORKFLOW_COMPLETED; the client shows types it does not know as unknown. */
    activityType: text('activity_type').notNull(),
    activityData: jsonb('activity_data').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('activities_installation_created_idx').on(t.installationId, t.createdAt)],
);

/**
 * How many activities each installation had on each day (UTC), kept up in the transaction that inserts
 * the activity, so the activity grid and stats read at most a row per day instead of every activity.
 */
export const activityDays = pgTable(
  'activity_days',
  {
    installationId: integer('installation_id')
      .notNull()
      .references(() => installations.id, { onDelete: 'cascade' }),
    /** The UTC day of the activities' created_at. */
    day: date('day', { mode: 'string' }).notNull(),
    count: integer('count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.installationId, t.day] })],
);
