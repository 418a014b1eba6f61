import { Type, type Static } from 'typebox';
import { Timestamp } from './common';

/**
 * Where a project's failures reach its person (GET/PUT /api/projects/{id}/notifications): an email
 * address (when the server has SMTP) and a webhook (Slack and Discord incoming webhooks, or anything that
 * takes a JSON POST). The webhook URL holds a token, so it is stored sealed and never sent back: the answer
 * says only whether one is set and where it points.
 */

export const NOTIFICATION_EVENTS = ['execution_failed', 'validation_failed', 'health_gate_failed', 'drift', 'backup_failed', 'backup_missed', 'drill_failed', 'test'] as const;
export type NotificationEvent = (typeof NOTIFICATION_EVENTS)[number];

/** The last delivery of a channel: when, and the error when it failed. */
export const Delivery = Type.Object({
  at: Timestamp,
  ok: Type.Boolean(),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type Delivery = Static<typeof Delivery>;

export const NotificationSettings = Type.Object({
  email: Type.Union([Type.String(), Type.Null()]),
  /** `https://hooks.slack.com/…` shown as its origin only (`https://hooks.slack.com`), or null. */
  webhook_origin: Type.Union([Type.String(), Type.Null()]),
  /** Whether the server can send mail at all (SMTP_URL set). */
  email_available: Type.Boolean(),
  last_email: Type.Union([Delivery, Type.Null()]),
  last_webhook: Type.Union([Delivery, Type.Null()]),
});
export type NotificationSettings = Static<typeof NotificationSettings>;

/**
 * PUT body: `email` null clears it; `webhook_url` null clears the webhook, absent keeps the one stored
 * (the client never has it back).
 */
export const NotificationSettingsBody = Type.Object(
  {
    email: Type.Union([Type.String({ maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' }), Type.Null()]),
    webhook_url: Type.Optional(Type.Union([Type.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$' }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type NotificationSettingsBody = Static<typeof NotificationSettingsBody>;

/** POST /api/projects/{id}/notifications/test: what each channel did. */
export const NotificationTestResponse = Type.Object({
  email: Type.Union([Delivery, Type.Null()]),
  webhook: Type.Union([Delivery, Type.Null()]),
});
export type NotificationTestResponse = Static<typeof NotificationTestResponse>;
