import { http, HttpResponse } from 'msw';
import type { NotificationSettings, NotificationSettingsBody, NotificationTestResponse } from '../../../src/shared/api/notifications';

const api = (path: string): string => `http://localhost/api${path}`;

/** Notification settings by project, as the server would keep them (the webhook reduced to its origin). */
export const notificationsDb = { byProject: new Map<number, NotificationSettings>(), webhooks: new Map<number, string>() };

export function resetNotificationsDb(): void {
  notificationsDb.byProject = new Map();
  notificationsDb.webhooks = new Map();
}

const settingsOf = (id: number): NotificationSettings =>
  notificationsDb.byProject.get(id) ?? { email: null, webhook_origin: null, email_available: true, last_email: null, last_webhook: null };

export const notificationsHandlers = [
  http.get(api('/projects/:id/notifications'), ({ params }) => HttpResponse.json(settingsOf(Number(params.id)))),
  http.put(api('/projects/:id/notifications'), async ({ params, request }) => {
    const id = Number(params.id);
    const body = (await request.json()) as NotificationSettingsBody;
    if (body.webhook_url) notificationsDb.webhooks.set(id, body.webhook_url);
    if (body.webhook_url === null) notificationsDb.webhooks.delete(id);
    const hook = notificationsDb.webhooks.get(id);
    const next = { ...settingsOf(id), email: body.email, webhook_origin: hook ? new URL(hook).origin : null };
    notificationsDb.byProject.set(id, next);
    return HttpResponse.json(next);
  }),
  http.post(api('/projects/:id/notifications/test'), ({ params }) => {
    const id = Number(params.id);
    const s = settingsOf(id);
    const at = new Date().toISOString();
    const result: NotificationTestResponse = {
      email: s.email ? { at, ok: true, error: null } : null,
      webhook: s.webhook_origin ? { at, ok: false, error: 'The webhook answered 404' } : null,
    };
    notificationsDb.byProject.set(id, { ...s, last_email: result.email ?? s.last_email, last_webhook: result.webhook ?? s.last_webhook });
    return HttpResponse.json(result);
  }),
];
