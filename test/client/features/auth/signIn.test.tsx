import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { INSTALLATION_ID_KEY, SIGN_IN } from '../../../../src/shared/constants';
import { renderApp } from '../../utils/renderWithProviders';
import { api, server } from '../../utils/server';

describe('local sign-in page', () => {
  it('signs in with a login name and lands on the projects home', async () => {
    const { user, router } = renderApp('/signin');
    await user.type(await screen.findByLabelText(SIGN_IN.loginLabel), 'alice');
    await user.click(screen.getByRole('button', { name: SIGN_IN.submit }));

    expect(await screen.findByRole('heading', { name: 'My Projects' })).toBeInTheDocument();
    expect(sessionStorage.getItem(INSTALLATION_ID_KEY)).toBe('1000');
    expect(router.state.location.pathname).toBe('/app');
  });

  it.each(['', 'has space', 'a'.repeat(40), 'under_score'])('refuses %j without calling the server', async (login) => {
    const calls = jest.fn();
    server.events.on('request:start', calls);
    const { user } = renderApp('/signin');
    const input = await screen.findByLabelText(SIGN_IN.loginLabel);
    if (login) await user.type(input, login);
    await user.click(screen.getByRole('button', { name: SIGN_IN.submit }));

    expect(await screen.findByRole('alert')).toHaveTextContent(SIGN_IN.invalidLogin);
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(calls).not.toHaveBeenCalled();
    server.events.removeAllListeners();
  });

  it("shows the server's error", async () => {
    server.use(http.post(api('/github/local-login'), () => HttpResponse.json({ detail: 'Too many attempts' }, { status: 429 })));
    const { user } = renderApp('/signin');
    await user.type(await screen.findByLabelText(SIGN_IN.loginLabel), 'bob');
    await user.click(screen.getByRole('button', { name: SIGN_IN.submit }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Too many attempts');
  });
});
