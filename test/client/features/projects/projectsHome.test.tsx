import { act, screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import { HOME, INSTALLATION_ID_KEY, TIMING } from '../../../../src/shared/constants';
import { makeProject } from '../../utils/factories';
import { renderApp } from '../../utils/renderWithProviders';
import { api, seedProjects, server } from '../../utils/server';
import { useCreditsServer } from '../credits/creditsHandlers';

function cards(): HTMLElement[] {
  return within(screen.getByRole('list', { name: 'Projects' })).getAllByRole('link');
}

function seedMany(count: number): void {
  for (let i = 1; i <= count; i += 1) seedProjects(makeProject({ name: `Service ${i}`, description: `Stack number ${i}` }));
}

describe('projects home', () => {
  beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

  it('shows the sidebar: title, Create New Project, credits and the profile', async () => {
    renderApp('/app');
    const sidebar = await screen.findByRole('complementary', { name: 'Sidebar' });
    expect(within(sidebar).getByText('DevOps Agents')).toBeInTheDocument();
    expect(within(sidebar).getByRole('button', { name: HOME.createButton })).toBeInTheDocument();
    expect(within(sidebar).getByRole('button', { name: HOME.creditsButton })).toBeInTheDocument();
    expect(await within(sidebar).findByText('@alice')).toBeInTheDocument();
  });

  it('shows a card per project with name, description or "No description", and both dates', async () => {
    seedProjects(
      makeProject({ name: 'Edge proxy', description: 'Traefik in front of everything' }),
      makeProject({ name: 'Bare', description: null, created_at: '2024-03-01T00:00:00Z', updated_at: '2024-04-02T00:00:00Z' }),
    );
    renderApp('/app');
    const bare = (await screen.findByText('Bare')).closest('a') as HTMLElement;
    expect(screen.getByText('Traefik in front of everything')).toBeInTheDocument();
    expect(within(bare).getByText(HOME.noDescription)).toBeInTheDocument();
    expect(within(bare).getByText(/Created:/)).toHaveTextContent(new Date('2024-03-01T00:00:00Z').toLocaleDateString(undefined, { year: 'numeric', month: 'short', day: 'numeric' }));
    expect(within(bare).getByText(/Last Updated:/)).toBeInTheDocument();
  });

  it('shows 6 projects first, then all with "See all {n} projects", and 6 again with "Show less"', async () => {
    seedMany(9);
    const { user } = renderApp('/app');
    await screen.findByText('Service 1');
    expect(cards()).toHaveLength(6);

    await user.click(screen.getByRole('button', { name: HOME.seeAll(9) }));
    expect(cards()).toHaveLength(9);

    await user.click(screen.getByRole('button', { name: HOME.showLess }));
    expect(cards()).toHaveLength(6);
  });

  it('has no see-all control for 6 projects or fewer', async () => {
    seedMany(6);
    renderApp('/app');
    await screen.findByText('Service 6');
    expect(cards()).toHaveLength(6);
    expect(screen.queryByRole('button', { name: /See all/ })).not.toBeInTheDocument();
  });

  it('searches name and description case-insensitively, shows every match, and clears', async () => {
    seedMany(8);
    seedProjects(
      makeProject({ name: 'Grafana Stack', description: 'dashboards' }),
      makeProject({ name: 'Logs', description: 'An ELK stack with GRAFANA alerts' }),
    );
    const { user } = renderApp('/app');
    const search = await screen.findByPlaceholderText(HOME.searchPlaceholder);
    await screen.findByText('Service 1');

    await user.type(search, 'grafana');
    expect(cards().map((card) => within(card).getByRole('heading').textContent)).toEqual(['Grafana Stack', 'Logs']);

    await user.clear(search);
    await user.type(search, 'STACK');
    // Every match shows, past the first 6, and the see-all control is gone while searching.
    expect(cards()).toHaveLength(10);
    expect(screen.queryByRole('button', { name: /See all/ })).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Clear search' }));
    expect(search).toHaveValue('');
    // The clear button goes away with the text; the focus stays in the search box.
    expect(search).toHaveFocus();
    expect(cards()).toHaveLength(6);
    expect(screen.getByRole('button', { name: HOME.seeAll(10) })).toBeInTheDocument();
  });

  it('says so when a search matches nothing', async () => {
    seedMany(2);
    const { user } = renderApp('/app');
    await screen.findByText('Service 1');
    await user.type(screen.getByPlaceholderText(HOME.searchPlaceholder), 'kubernetes');
    expect(screen.getByText(/No projects match/)).toBeInTheDocument();
  });

  it('shows loading, then the empty state', async () => {
    server.use(
      http.get(api('/projects'), async () => {
        await delay(50);
        return HttpResponse.json([]);
      }),
    );
    renderApp('/app');
    expect(await screen.findByText('Loading projects...')).toBeInTheDocument();
    expect(await screen.findByText(/No projects yet/)).toBeInTheDocument();
  });

  it('shows the message of a failed project list', async () => {
    server.use(http.get(api('/projects'), () => HttpResponse.json({ detail: 'Database is not reachable' }, { status: 503 })));
    renderApp('/app');
    expect(await screen.findByRole('alert')).toHaveTextContent('Database is not reachable');
  });

  it('opens a project from its card with the project in navigation state (no reload)', async () => {
    const [project] = seedProjects(makeProject({ name: 'Edge proxy', description: 'Traefik' }));
    const fetchedOne = jest.fn();
    server.use(
      http.get(api('/projects/:id'), () => {
        fetchedOne();
        return HttpResponse.json({ detail: 'should not be called' }, { status: 500 });
      }),
    );
    const { user, router } = renderApp('/app');
    await user.click(await screen.findByRole('link', { name: /Edge proxy/ }));

    expect(await screen.findByRole('heading', { level: 1, name: 'Edge proxy' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe(`/app/${project.id}`);
    expect(router.state.location.state).toEqual({ project, skipLoad: true });
    expect(fetchedOne).not.toHaveBeenCalled();
  });

  it('has a place for the recent-activity timeline', async () => {
    renderApp('/app');
    expect(await screen.findByRole('heading', { name: 'Recent Activity' })).toBeInTheDocument();
  });

  it('the credits button opens the credits dialog with the balance; Escape closes it', async () => {
    useCreditsServer({ balance: 7.25 });
    const { user } = renderApp('/app');
    await user.click(await screen.findByRole('button', { name: HOME.creditsButton }));
    const dialog = screen.getByRole('dialog', { name: 'Credits' });
    expect(await within(dialog).findByText('$7.25')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  describe('payment-success banner', () => {
    it('shows with paymentSuccess state, hides after 5 s, and replaces the state', async () => {
      jest.useFakeTimers();
      try {
        const { router } = renderApp({ pathname: '/app', state: { paymentSuccess: true } });
        expect(await screen.findByText(HOME.paymentBanner)).toBeInTheDocument();
        act(() => jest.advanceTimersByTime(TIMING.paymentBannerMs - 100));
        expect(screen.getByText(HOME.paymentBanner)).toBeInTheDocument();
        act(() => jest.advanceTimersByTime(100));
        expect(screen.queryByText(HOME.paymentBanner)).not.toBeInTheDocument();
        expect(router.state.location.state).toBeNull();
        expect(router.state.historyAction).toBe('REPLACE');
      } finally {
        jest.useRealTimers();
      }
    });

    it('closes by hand', async () => {
      const { user, router } = renderApp({ pathname: '/app', state: { paymentSuccess: true } });
      await screen.findByText(HOME.paymentBanner);
      await user.click(screen.getByRole('button', { name: 'Dismiss' }));
      expect(screen.queryByText(HOME.paymentBanner)).not.toBeInTheDocument();
      await waitFor(() => expect(router.state.location.state).toBeNull());
    });

    it('does not show without the state', async () => {
      renderApp('/app');
      await screen.findByRole('heading', { name: 'My Projects' });
      expect(screen.queryByText(HOME.paymentBanner)).not.toBeInTheDocument();
    });
  });
});
