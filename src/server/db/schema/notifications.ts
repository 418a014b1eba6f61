import { integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { projects } from './core';

/** The last delivery of one channel, shown beside the setting so a notification that failed is seen. */
export interface DeliveryRecord {
  at: string;
  ok: boolean;
  error: string | null;
}

/**
 * Where a project's failures are sent: an email address, and a webhook whose URL (it holds a token) is
 * sealed with the user-secret key (AAD: project id and `notifications.webhook`).
 */
export const projectNotifications = pgTable('project_notifications', {
  projectId: integer('project_id')
    .primaryKey()
    .references(() => projects.id, { onDelete: 'cascade' }),
  email: text('email'),
  webhookSealed: jsonb('webhook_sealed').$type<{ ciphertext: string; iv: string }>(),
  webhookOrigin: text('webhook_origin'),
  lastEmail: jsonb('last_email').$type<DeliveryRecord>(),
  lastWebhook: jsonb('last_webhook').$type<DeliveryRecord>(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
