import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { CREATE_PROJECT, HOME, INSTALLATION_ID_KEY } from '../../../../src/shared/constants';
import { renderApp } from '../../utils/renderWithProviders';
import { api, db, server } from '../../utils/server';

async function openDialog() {
  const result = renderApp('/app');
  await result.user.click(await screen.findByRole('button', { name: HOME.createButton }));
  const dialog = screen.getByRole('dialog', { name: CREATE_PROJECT.title });
  return { ...result, dialog };
}

describe('create-project dialog', () => {
  beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

  it('is a labelled modal dialog with the focus on the name field', async () => {
    const { dialog } = await openDialog();
    expect(dialog).toHaveAttribute('aria-modal', 'true');
    expect(within(dialog).getByLabelText(CREATE_PROJECT.nameLabel)).toHaveFocus();
  });

  it('requires a name: empty and blank names are refused without a call', async () => {
    const posted = jest.fn();
    server.events.on('request:start', ({ request }) => {
      if (request.method === 'POST') posted();
    });
    const { user, dialog } = await openDialog();
    await user.click(within(dialog).getByRole('button', { name: CREATE_PROJECT.submit }));
    expect(within(dialog).getByText(CREATE_PROJECT.nameRequired)).toBeInTheDocument();

    await user.type(within(dialog).getByLabelText(CREATE_PROJECT.nameLabel), '   ');
    await user.click(within(dialog).getByRole('button', { name: CREATE_PROJECT.submit }));
    expect(within(dialog).getByText(CREATE_PROJECT.nameRequired)).toBeInTheDocument();
    expect(within(dialog).getByLabelText(CREATE_PROJECT.nameLabel)).toHaveAttribute('aria-invalid', 'true');
    expect(posted).not.toHaveBeenCalled();
    server.events.removeAllListeners();
  });

  it('refuses a name over 100 characters and a description over 2000', async () => {
    const { user, dialog } = await openDialog();
    const name = within(dialog).getByLabelText(CREATE_PROJECT.nameLabel);
    const description = within(dialog).getByLabelText(CREATE_PROJECT.descriptionLabel);
    await user.click(name);
    await user.paste('n'.repeat(101));
    await user.click(description);
    await user.paste('d'.repeat(2001));
    await user.click(within(dialog).getByRole('button', { name: CREATE_PROJECT.submit }));
    expect(within(dialog).getByText(CREATE_PROJECT.nameTooLong(100))).toBeInTheDocument();
    expect(within(dialog).getByText(CREATE_PROJECT.descriptionTooLong(2000))).toBeInTheDocument();
    expect(db.projects).toHaveLength(0);
  });

  it('closes on Escape and on Cancel, and gives the focus back', async () => {
    const { user } = await openDialog();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: HOME.createButton })).toHaveFocus();

    await user.click(screen.getByRole('button', { name: HOME.createButton }));
    await user.click(screen.getByRole('button', { name: CREATE_PROJECT.cancel }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it("shows the server's error and stays open", async () => {
    server.use(http.post(api('/projects'), () => HttpResponse.json({ detail: 'Insufficient credits' }, { status: 402 })));
    const { user, dialog } = await openDialog();
    await user.type(within(dialog).getByLabelText(CREATE_PROJECT.nameLabel), 'Mail server');
    await user.click(within(dialog).getByRole('button', { name: CREATE_PROJECT.submit }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Insufficient credits');
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it('creates the project (name trimmed, description optional) and opens it with the project in state', async () => {
    const { user, dialog, router } = await openDialog();
    await user.type(within(dialog).getByLabelText(CREATE_PROJECT.nameLabel), '  Mail server  ');
    await user.type(within(dialog).getByLabelText(CREATE_PROJECT.descriptionLabel), 'Postfix and Dovecot');
    await user.click(within(dialog).getByRole('button', { name: CREATE_PROJECT.submit }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Mail server' })).toBeInTheDocument();
    const [created] = db.projects;
    expect(created).toMatchObject({ name: 'Mail server', description: 'Postfix and Dovecot' });
    expect(router.state.location.pathname).toBe(`/app/${created.id}`);
    expect(router.state.location.state).toEqual({ project: created, skipLoad: true });
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('sends a null description when none is given, and the new project is listed on return', async () => {
    const { user, dialog, router } = await openDialog();
    await user.type(within(dialog).getByLabelText(CREATE_PROJECT.nameLabel), 'Cache');
    await user.click(within(dialog).getByRole('button', { name: CREATE_PROJECT.submit }));
    await screen.findByRole('heading', { level: 1, name: 'Cache' });
    expect(db.projects[0].description).toBeNull();

    // 'Return to Projects' goes to /, which sends a signed-in user on to /app.
    await user.click(screen.getByRole('link', { name: 'Return to Projects' }));
    expect(await screen.findByRole('link', { name: /Cache/ })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/app');
  });
});
