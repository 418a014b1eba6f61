/** The project home's notification settings (ours: the documents do not have them). */
export const NOTIFICATIONS_TEXT = {
  title: 'Notifications',
  intro: 'Where a failed deployment step or validation check is sent.',
  emailLabel: 'Email',
  emailUnavailable: 'This server has no SMTP server set (SMTP_URL), so only a webhook can be used.',
  webhookLabel: 'Webhook URL',
  webhookHint: 'A Slack or Discord incoming webhook, or any URL that takes a JSON POST. It is stored encrypted and never shown again.',
  webhookSet: (origin: string) => `A webhook to ${origin} is set.`,
  removeWebhook: 'Remove webhook',
  save: 'Save',
  saved: 'Saved',
  test: 'Send a test',
  delivered: (channel: string, at: string) => `Last ${channel} notification delivered ${at}.`,
  failed: (channel: string, at: string, error: string) => `Last ${channel} notification failed ${at}: ${error}`,
  loadError: 'The notification settings could not be loaded.',
} as const;
