import { screen, waitFor } from '@testing-library/react';
import { INSTALLATION_ID_KEY, LANDING } from '../../../src/shared/constants';
import { renderApp } from '../utils/renderWithProviders';
import { makeProject } from '../utils/factories';
import { seedProjects } from '../utils/server';

describe('sign-in guards', () => {
  it('shows the landing page at / when no installation id is stored', async () => {
    renderApp('/');
    expect(await screen.findByText(LANDING.tagline)).toBeInTheDocument();
  });

  it('sends a signed-in visitor from / to /app, replacing the history entry', async () => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    const { router } = renderApp('/');
    expect(await screen.findByRole('heading', { name: 'My Projects' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/app');
    expect(router.state.historyAction).toBe('REPLACE');
    expect(screen.queryByText(LANDING.tagline)).not.toBeInTheDocument();
  });

  it.each(['/app', '/app/5', '/app/5/home/docs', '/app/5/costs', '/app/nowhere/at/all'])(
    'sends %s to / without an installation id',
    async (path) => {
      const { router } = renderApp(path);
      expect(await screen.findByText(LANDING.tagline)).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/');
      expect(router.state.historyAction).toBe('REPLACE');
    },
  );

  it('lets /github-success run with an id already stored: the new id is stored, then /app', async () => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '1');
    seedProjects(makeProject({ name: 'Edge proxy' }));
    const { router } = renderApp('/github-success?installation_id=77');
    expect(await screen.findByText('Edge proxy')).toBeInTheDocument();
    expect(sessionStorage.getItem(INSTALLATION_ID_KEY)).toBe('77');
    expect(router.state.location.pathname).toBe('/app');
  });

  it('keeps the public pages reachable while signed in', async () => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    const { router } = renderApp('/pricing');
    expect(await screen.findByRole('heading', { name: 'Pricing' })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('DevOps Agents - Pricing Page'));
    expect(router.state.location.pathname).toBe('/pricing');
  });
});
