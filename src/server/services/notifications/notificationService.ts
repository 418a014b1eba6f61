import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { projectNotifications, type DeliveryRecord } from '../../db/schema';
import type { NotificationsConfig } from '../../config';
import type { NotificationEvent, NotificationSettings, NotificationSettingsBody, NotificationTestResponse } from '../../../shared/api/notifications';
import type { SecretBox } from '../userSecrets/secretBox';
import { createEmailChannel, type EmailChannel } from './emailChannel';
import { postWebhook, type WebhookMessage } from './webhookChannel';

export interface NotificationDeps {
  db: Db;
  config: NotificationsConfig;
  secretBox: SecretBox;
  publicUrl: string;
  log: { warn(obj: object, msg: string): void };
  /** The mail channel (tests and the composition root); built from config.smtpUrl when absent. */
  email?: EmailChannel;
}

/** What happened, for a person reading a mail or a chat message. */
export interface Notice {
  event: NotificationEvent;
  projectName: string;
  title: string;
  detail: string;
}

const AAD_NAME = 'notifications.webhook';
const MAX_DETAIL = 1_000;

const delivery = (error?: unknown): DeliveryRecord => ({ at: new Date().toISOString(), ok: error === undefined, error: error === undefined ? null : String((error as Error).message ?? error).slice(0, 300) });

/**
 * A project's notifications: where they go (settings, scoped by the caller through the route's project
 * check) and sending them. A failed delivery is kept beside the setting, so a channel that stopped
 * working is seen on the project page rather than discovered the day it mattered.
 */
export function createNotificationService(deps: NotificationDeps) {
  const { db } = deps;
  const email = deps.email ?? (deps.config.smtpUrl ? createEmailChannel(deps.config.smtpUrl, deps.config.from) : undefined);

  async function row(projectId: number) {
    const [found] = await db.select().from(projectNotifications).where(eq(projectNotifications.projectId, projectId));
    return found;
  }

  function settingsOf(found: Awaited<ReturnType<typeof row>>): NotificationSettings {
    return {
      email: found?.email ?? null,
      webhook_origin: found?.webhookOrigin ?? null,
      email_available: email !== undefined,
      last_email: found?.lastEmail ?? null,
      last_webhook: found?.lastWebhook ?? null,
    };
  }

  async function deliver(projectId: number, notice: Notice): Promise<NotificationTestResponse> {
    const found = await row(projectId);
    if (!found) return { email: null, webhook: null };
    const subject = `[${notice.projectName}] ${notice.title}`;
    const text = `${notice.detail.slice(0, MAX_DETAIL)}\n\nOpen the project: ${deps.publicUrl}/app/projects/${projectId}`;
    let lastEmail: DeliveryRecord | null = null;
    let lastWebhook: DeliveryRecord | null = null;
    if (found.email && email) {
      lastEmail = await email.send(found.email, subject, text).then(() => delivery(), (err: unknown) => delivery(err));
    }
    if (found.webhookSealed) {
      const url = deps.secretBox.open(projectId, AAD_NAME, found.webhookSealed);
      const message: WebhookMessage = { title: subject, text };
      lastWebhook = await postWebhook(url, message, deps.config.allowPrivateAddresses).then(() => delivery(), (err: unknown) => delivery(err));
    }
    await db
      .update(projectNotifications)
      .set({ ...(lastEmail ? { lastEmail } : {}), ...(lastWebhook ? { lastWebhook } : {}) })
      .where(eq(projectNotifications.projectId, projectId));
    for (const [channel, d] of [['email', lastEmail], ['webhook', lastWebhook]] as const) {
      if (d && !d.ok) deps.log.warn({ projectId, channel, error: d.error }, 'A notification was not delivered');
    }
    return { email: lastEmail, webhook: lastWebhook };
  }

  return {
    async get(projectId: number): Promise<NotificationSettings> {
      return settingsOf(await row(projectId));
    },

    /** Stores the settings; the webhook URL sealed, its origin kept to show. */
    async put(projectId: number, body: NotificationSettingsBody): Promise<NotificationSettings> {
      const webhook =
        body.webhook_url === undefined
          ? {}
          : body.webhook_url === null
            ? { webhookSealed: null, webhookOrigin: null, lastWebhook: null }
            : { webhookSealed: deps.secretBox.seal(projectId, AAD_NAME, body.webhook_url), webhookOrigin: new URL(body.webhook_url).origin, lastWebhook: null };
      const values = { email: body.email, ...webhook, updatedAt: new Date() };
      await db
        .insert(projectNotifications)
        .values({ projectId, ...values })
        .onConflictDoUpdate({ target: projectNotifications.projectId, set: values });
      return settingsOf(await row(projectId));
    },

    /** Sends a test notice through every channel set and says what each did. */
    test(projectId: number, projectName: string): Promise<NotificationTestResponse> {
      return deliver(projectId, { event: 'test', projectName, title: 'Test notification', detail: 'Notifications of this project reach you here: a failed deployment or validation check will be sent the same way.' });
    },

    /** Sends a notice; never throws (a failed delivery is recorded and logged). */
    async notify(projectId: number, notice: Notice): Promise<void> {
      await deliver(projectId, notice).catch((err: unknown) => deps.log.warn({ projectId, err }, 'Notifications could not be sent'));
    },

    close(): void {
      email?.close();
    },
  };
}

export type NotificationService = ReturnType<typeof createNotificationService>;
