import { screen, waitFor, within } from '@testing-library/react';
import { NOTIFICATIONS_TEXT } from '../../../src/shared/constants/notifications';
import { useFakeProjectHome } from '../projectHome/fakeSandbox';
import { notificationsDb } from '../utils/notificationsServer';
import { INSTALLATION_ID_KEY } from '../../../src/shared/constants';
import { makeProject } from '../utils/factories';
import { renderApp } from '../utils/renderWithProviders';
import { seedProjects } from '../utils/server';

/** The project home's notification settings, through the real store against msw's server. */
describe('notifications on the project home', () => {
  const PROJECT = 7;
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    seedProjects(makeProject({ id: PROJECT, name: 'Edge proxy' }));
  });

  it('saves an address and a webhook, never shows the webhook URL again, and shows a failed test as failed', async () => {
    useFakeProjectHome();
    const { user } = renderApp(`/app/${PROJECT}/home`);
    await screen.findByRole('heading', { level: 1, name: 'Edge proxy' });
    const panel = (await screen.findByRole('heading', { level: 2, name: NOTIFICATIONS_TEXT.title })).closest('section')!;
    const email = within(panel).getByLabelText(NOTIFICATIONS_TEXT.emailLabel);
    const webhook = within(panel).getByLabelText(NOTIFICATIONS_TEXT.webhookLabel);
    expect(within(panel).getByRole('button', { name: NOTIFICATIONS_TEXT.test })).toBeDisabled();

    await user.type(email, 'ops@example.org');
    await user.type(webhook, 'https://hooks.example.org/T0K3N');
    await user.click(within(panel).getByRole('button', { name: NOTIFICATIONS_TEXT.save }));
    await waitFor(() => expect(notificationsDb.byProject.get(PROJECT)?.email).toBe('ops@example.org'));
    expect(await within(panel).findByText(new RegExp(NOTIFICATIONS_TEXT.webhookSet('https://hooks.example.org').replace(/[.]/g, '\\.')))).toBeInTheDocument();
    expect(webhook).toHaveValue('');
    expect(panel).not.toHaveTextContent('T0K3N');

    await user.click(within(panel).getByRole('button', { name: NOTIFICATIONS_TEXT.test }));
    expect(await within(panel).findByText(/Last webhook notification failed .*: The webhook answered 404/)).toHaveAttribute('role', 'alert');
    expect(within(panel).getByText(/Last email notification delivered/)).toBeInTheDocument();

    await user.click(within(panel).getByRole('button', { name: NOTIFICATIONS_TEXT.removeWebhook }));
    await waitFor(() => expect(notificationsDb.webhooks.has(PROJECT)).toBe(false));
  });
});
