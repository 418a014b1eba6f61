import { screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { UserProfile } from '../../../../src/client/common/auth/UserProfile';
import { INSTALLATION_ID_KEY, PATHS, PROFILE } from '../../../../src/shared/constants';
import { assignMock } from '../../utils/browser';
import { renderWithProviders } from '../../utils/renderWithProviders';
import { api, db, server } from '../../utils/server';

describe('user profile area', () => {
  beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

  it('shows a skeleton while loading, then avatar, name and @login', async () => {
    server.use(
      http.get(api('/github/user'), async () => {
        await delay(50);
        return HttpResponse.json(db.user);
      }),
    );
    renderWithProviders(<UserProfile />);
    expect(screen.getByLabelText('Loading profile')).toHaveAttribute('aria-busy', 'true');
    expect(await screen.findByText('Alice Liddell')).toBeInTheDocument();
    expect(screen.getByText('@alice')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'alice avatar' })).toHaveAttribute('src', db.user.avatar_url);
    expect(screen.queryByLabelText('Loading profile')).not.toBeInTheDocument();
  });

  it('falls back to the login when there is no display name', async () => {
    db.user = { ...db.user, name: null };
    renderWithProviders(<UserProfile />);
    expect(await screen.findByText('@alice')).toBeInTheDocument();
    const trigger = screen.getByRole('button', { name: /alice/ });
    expect(within(trigger).getAllByText(/alice/)).toHaveLength(2);
  });

  it('shows no profile when it fails to load (and only logs), but Sign Out stays', async () => {
    const log = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    server.use(http.get(api('/github/user'), () => HttpResponse.json({ detail: 'GitHub is down' }, { status: 502 })));
    const { container } = renderWithProviders(
      <div data-testid="host">
        <UserProfile />
      </div>,
    );
    await waitFor(() => expect(log).toHaveBeenCalled());
    const host = container.querySelector('[data-testid="host"]')!;
    expect(host.querySelector('img')).toBeNull();
    expect(host).toHaveTextContent(/^Sign Out$/);
    expect(screen.getByRole('button', { name: 'Sign Out' })).toBeEnabled();
  });

  it('opens and closes its menu, and closes on an outside click or Escape', async () => {
    const { user } = renderWithProviders(
      <div>
        <p>Outside</p>
        <UserProfile />
      </div>,
    );
    const trigger = await screen.findByRole('button', { name: /Alice Liddell/ });
    expect(trigger).toHaveAttribute('aria-expanded', 'false');

    await user.click(trigger);
    expect(screen.getByRole('menuitem', { name: PROFILE.signOut })).toHaveFocus();
    expect(trigger).toHaveAttribute('aria-expanded', 'true');
    await user.click(trigger);
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();

    await user.click(trigger);
    await user.click(screen.getByText('Outside'));
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();

    await user.click(trigger);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    expect(trigger).toHaveFocus();
  });

  it('signs out: logout call, session storage cleared, provider logout in a hidden frame for 1 s, then /', async () => {
    const logout = jest.fn();
    server.use(
      http.post(api('/github/logout'), ({ request }) => {
        logout(request.headers.get('Installation-Id'));
        return new HttpResponse(null, { status: 204 });
      }),
    );
    sessionStorage.setItem('other', 'value');
    const { user } = renderWithProviders(<UserProfile />);
    await user.click(await screen.findByRole('button', { name: /Alice Liddell/ }));
    await user.click(screen.getByRole('menuitem', { name: PROFILE.signOut }));

    await waitFor(() => expect(logout).toHaveBeenCalledWith('42'));
    await waitFor(() => expect(sessionStorage.length).toBe(0));
    const frame = document.querySelector('iframe');
    expect(frame).toHaveAttribute('src', PATHS.providerLogout);
    expect(frame).not.toBeVisible();
    expect(screen.getByRole('menuitem', { name: 'Signing out...' })).toBeDisabled();
    expect(assignMock()).not.toHaveBeenCalled();

    await waitFor(() => expect(assignMock()).toHaveBeenCalledWith('/'), { timeout: 3000 });
    expect(document.querySelector('iframe')).toBeNull();
  });

  it('signs out even when the logout call fails', async () => {
    server.use(http.post(api('/github/logout'), () => HttpResponse.json({ detail: 'boom' }, { status: 500 })));
    const { user } = renderWithProviders(<UserProfile />);
    await user.click(await screen.findByRole('button', { name: /Alice Liddell/ }));
    await user.click(screen.getByRole('menuitem', { name: PROFILE.signOut }));
    await waitFor(() => expect(assignMock()).toHaveBeenCalledWith('/'), { timeout: 3000 });
    expect(sessionStorage.getItem(INSTALLATION_ID_KEY)).toBeNull();
  });
});
