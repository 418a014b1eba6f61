import { useState, type FormEvent, type ReactElement } from 'react';
import styled from 'styled-components';
import type { Delivery } from '../../../../shared/api/notifications';
import { relativeTime } from '../../../../shared/constants/activity';
import { NOTIFICATIONS_TEXT } from '../../../../shared/constants/notifications';
import { errorMessage } from '../../../api/apiSlice';
import { Button } from '../../../common/components/Button';
import { ButtonRow, Card } from '../../../common/components/Card';
import { ErrorText, FieldGroup, FieldHint, Label, TextInput } from '../../../common/components/Field';
import { useGetNotificationsQuery, useSaveNotificationsMutation, useTestNotificationsMutation } from '../notificationsApi';

function DeliveryLine({ channel, delivery }: { channel: string; delivery: Delivery | null }): ReactElement | null {
  if (!delivery) return null;
  const at = relativeTime(delivery.at);
  return delivery.ok ? <FieldHint>{NOTIFICATIONS_TEXT.delivered(channel, at)}</FieldHint> : <ErrorText>{NOTIFICATIONS_TEXT.failed(channel, at, delivery.error ?? '')}</ErrorText>;
}

/**
 * Where a project's failures are sent: an email address and a webhook. The webhook URL is write-only
 * (the server keeps it sealed); the last delivery of each channel shows, failed ones as errors.
 */
export function NotificationsPanel({ projectId }: { projectId: number }): ReactElement {
  const settings = useGetNotificationsQuery(projectId);
  const [save, saving] = useSaveNotificationsMutation();
  const [sendTest, testing] = useTestNotificationsMutation();
  // What the person typed, until saved; the stored address otherwise.
  const [editedEmail, setEmail] = useState<string | null>(null);
  const email = editedEmail ?? settings.data?.email ?? '';
  const [webhook, setWebhook] = useState('');

  const onSubmit = (event: FormEvent): void => {
    event.preventDefault();
    void save({ projectId, body: { email: email.trim() || null, ...(webhook.trim() ? { webhook_url: webhook.trim() } : {}) } })
      .unwrap()
      .then(
        () => {
          setWebhook('');
          setEmail(null);
        },
        () => undefined,
      );
  };
  const data = settings.data;
  return (
    <Card aria-labelledby="notifications-title">
      <h2 id="notifications-title">{NOTIFICATIONS_TEXT.title}</h2>
      <FieldHint>{NOTIFICATIONS_TEXT.intro}</FieldHint>
      {settings.error ? <ErrorText>{NOTIFICATIONS_TEXT.loadError}</ErrorText> : null}
      <Form onSubmit={onSubmit}>
        <FieldGroup>
          <Label htmlFor="notifications-email">{NOTIFICATIONS_TEXT.emailLabel}</Label>
          <TextInput id="notifications-email" type="email" autoComplete="email" value={email} disabled={data ? !data.email_available : false} onChange={(e) => setEmail(e.target.value)} />
          {data && !data.email_available ? <FieldHint>{NOTIFICATIONS_TEXT.emailUnavailable}</FieldHint> : null}
          <DeliveryLine channel="email" delivery={data?.last_email ?? null} />
        </FieldGroup>
        <FieldGroup>
          <Label htmlFor="notifications-webhook">{NOTIFICATIONS_TEXT.webhookLabel}</Label>
          <TextInput id="notifications-webhook" type="url" autoComplete="off" placeholder="https://hooks.slack.com/services/…" value={webhook} onChange={(e) => setWebhook(e.target.value)} aria-describedby="notifications-webhook-hint" />
          <FieldHint id="notifications-webhook-hint">{data?.webhook_origin ? `${NOTIFICATIONS_TEXT.webhookSet(data.webhook_origin)} ` : ''}{NOTIFICATIONS_TEXT.webhookHint}</FieldHint>
          <DeliveryLine channel="webhook" delivery={data?.last_webhook ?? null} />
        </FieldGroup>
        {saving.error ? <ErrorText>{errorMessage(saving.error)}</ErrorText> : null}
        {testing.error ? <ErrorText>{errorMessage(testing.error)}</ErrorText> : null}
        <ButtonRow>
          <Button type="submit" $variant="primary" disabled={saving.isLoading || !data}>
            {saving.isSuccess && !saving.isLoading ? NOTIFICATIONS_TEXT.saved : NOTIFICATIONS_TEXT.save}
          </Button>
          <Button type="button" disabled={testing.isLoading || !data || (!data.email && !data.webhook_origin)} onClick={() => void sendTest(projectId)}>
            {NOTIFICATIONS_TEXT.test}
          </Button>
          {data?.webhook_origin ? (
            <Button type="button" $variant="ghost" disabled={saving.isLoading} onClick={() => void save({ projectId, body: { email: data.email, webhook_url: null } })}>
              {NOTIFICATIONS_TEXT.removeWebhook}
            </Button>
          ) : null}
        </ButtonRow>
      </Form>
    </Card>
  );
}

const Form = styled.form`
  margin-top: ${({ theme }) => theme.space(3)};
`;
