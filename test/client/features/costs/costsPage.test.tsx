import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { TokenUsageResponse } from '../../../../src/shared/api/costs';
import { COSTS, FREE_MODELS, INSTALLATION_ID_KEY } from '../../../../src/shared/constants';
import { makeProject } from '../../utils/factories';
import { renderApp } from '../../utils/renderWithProviders';
import { api, db, seedProjects, server } from '../../utils/server';

function serveTokenUsage(usage: TokenUsageResponse): void {
  server.use(http.get(api('/projects/:id/token-usage'), () => HttpResponse.json(usage)));
}

const usage: TokenUsageResponse = {
  total_cost: 0.0421,
  breakdown: [
    { agent: 'cloudArchitectAgent', model: 'gpt-4o-mini', input_tokens: 2000, output_tokens: 500, cost: 0.02 },
    { agent: 'requirementsAgent', model: 'offline-planner', input_tokens: 1200, output_tokens: 800, cost: 0.0221 },
  ],
  daily: [
    { date: '2025-03-01', cost: 0.01 },
    { date: '2025-03-02', cost: 0.0321 },
  ],
  rates: { mode: 'research_preview', input_per_million: 5, output_per_million: 20 },
};

describe('costs page', () => {
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    seedProjects(makeProject({ id: 7, name: 'Metered' }));
    db.costs.set(7, { total_cost: '0.04210000', last_updated: '2025-03-02T10:00:00.000Z' });
  });

  it('shows the total with 4 decimals, the last update, the breakdown by agent and model, the chart and the notices', async () => {
    serveTokenUsage(usage);
    renderApp('/app/7/costs');
    await waitFor(() => expect(screen.getByTestId('total-cost')).toHaveTextContent('$0.0421'));
    expect(screen.getByTestId('last-updated')).toHaveTextContent(new Date('2025-03-02T10:00:00.000Z').toLocaleString());
    const intelligence = screen.getByRole('region', { name: COSTS.intelligenceCosts });
    const rows = await within(intelligence).findAllByRole('row');
    expect(rows).toHaveLength(3);
    // People see the agent's name, not the id it is metered under.
    expect(rows[1]).toHaveTextContent('Cloud Architecture Assistant');
    expect(rows[1]).not.toHaveTextContent('cloudArchitectAgent');
    expect(rows[1]).toHaveTextContent('gpt-4o-mini');
    expect(rows[1]).toHaveTextContent('$0.0200');
    expect(rows[2]).toHaveTextContent('$0.0221');
    const chart = within(intelligence).getByRole('img', { name: COSTS.costOverTime });
    expect(chart.querySelectorAll('rect')).toHaveLength(2);
    const about = screen.getByRole('region', { name: COSTS.aboutCosts });
    expect(about).toHaveTextContent(COSTS.aboutCostsText);
    expect(about).toHaveTextContent(COSTS.researchPreviewNotice(5, 20));
    expect(about).toHaveTextContent(COSTS.regularAfterPreview());
    expect(within(about).getByRole('link', { name: COSTS.viewPricing })).toHaveAttribute('href', '/pricing');
  });

  it('lists each turn with the model that answered it, a free model marked free, and says why it is free', async () => {
    serveTokenUsage({
      ...usage,
      turns: [
        { at: '2025-03-02T10:00:00.000Z', agent: 'requirementsAgent', model: 'offline-planner', input_tokens: 1200, output_tokens: 800, cost: 0 },
        { at: '2025-03-01T09:00:00.000Z', agent: 'cloudArchitectAgent', model: 'gpt-4o-mini', input_tokens: 2000, output_tokens: 500, cost: 0.02 },
      ],
      turn_count: 7,
    });
    renderApp('/app/7/costs');
    const turns = await screen.findByRole('region', { name: COSTS.turns });
    expect(turns).toHaveTextContent(COSTS.turnsNote(2, 7));
    const rows = within(turns).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toHaveTextContent('Requirements Gatherer');
    expect(rows[1]).toHaveTextContent('offline-planner');
    expect(rows[1]).toHaveTextContent('$0.0000 (free)');
    expect(rows[2]).toHaveTextContent('gpt-4o-mini');
    expect(rows[2]).toHaveTextContent('$0.0200');
    expect(rows[2]).not.toHaveTextContent('free');
    expect(screen.getByRole('region', { name: COSTS.aboutCosts })).toHaveTextContent(FREE_MODELS['offline-planner']!);
  });

  it('shows the regular rate when the server charges it', async () => {
    serveTokenUsage({ ...usage, rates: { mode: 'regular', input_per_million: 30, output_per_million: 30 } });
    renderApp('/app/7/costs');
    const about = screen.getByRole('region', { name: COSTS.aboutCosts });
    expect(await within(about).findByText(COSTS.regularNotice(30))).toBeInTheDocument();
    expect(about).not.toHaveTextContent(COSTS.regularAfterPreview());
  });

  it('says so when nothing has been spent', async () => {
    db.costs.set(7, { total_cost: '0', last_updated: null });
    serveTokenUsage({ total_cost: 0, breakdown: [], daily: [] });
    renderApp('/app/7/costs');
    expect(await screen.findByText(COSTS.noUsage)).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('last-updated')).toHaveTextContent(COSTS.never));
    expect(screen.getByTestId('total-cost')).toHaveTextContent('$0.0000');
    expect(screen.getByTestId('last-updated')).toHaveTextContent(COSTS.never);
  });

  it.each([
    ['?returnTo=home', '/app/7/home'],
    ['', '/app/7'],
    ['?returnTo=other', '/app/7'],
  ])('goes back by the returnTo rule (%s → %s)', async (query, target) => {
    serveTokenUsage(usage);
    const { user, router } = renderApp(`/app/7/costs${query}`);
    await user.click(await screen.findByRole('button', { name: COSTS.back }));
    expect(router.state.location.pathname).toBe(target);
  });

  it('shows a load failure', async () => {
    server.use(http.get(api('/projects/:id/token-usage'), () => HttpResponse.json({ detail: 'boom' }, { status: 500 })));
    renderApp('/app/7/costs');
    expect(await screen.findByText(COSTS.loadFailed)).toBeInTheDocument();
  });
});
