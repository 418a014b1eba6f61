import { act, screen, waitFor, within } from '@testing-library/react';
import { delay, http, HttpResponse } from 'msw';
import type { ProjectState } from '../../../../src/shared/api/stages';
import { INSTALLATION_ID_KEY, PROJECT_HOME_SANDBOX, TIMING, WORKSPACE } from '../../../../src/shared/constants';
import { makeProject, makeProjectState, makeStages } from '../../utils/factories';
import { renderApp } from '../../utils/renderWithProviders';
import { api, db, seedProjects, server } from '../../utils/server';
import { useFakeValidation } from '../../validation/validationFixtures';

function stageButtons(): HTMLElement[] {
  return within(screen.getByRole('list', { name: 'Stages' })).getAllByRole('button');
}

function setState(projectId: number, changes: Partial<ProjectState>): void {
  db.projectStates.set(projectId, makeProjectState(projectId, changes));
}

describe('project workspace frame', () => {
  beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

  it('loads the project by id, showing "Loading project...." meanwhile, with name and description', async () => {
    seedProjects(makeProject({ id: 3, name: 'Edge proxy', description: 'Traefik with TLS' }));
    server.use(
      http.get(api('/projects/:id'), async () => {
        await delay(50);
        return HttpResponse.json(db.projects[0]);
      }),
    );
    renderApp('/app/3');
    expect(await screen.findByText(WORKSPACE.loadingProject)).toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 1, name: 'Edge proxy' })).toBeInTheDocument();
    expect(screen.getByText('Traefik with TLS')).toBeInTheDocument();
  });

  it('lists the enabled stages with number, name, description and completed check; inactive ones disabled', async () => {
    seedProjects(makeProject({ id: 3 }));
    const stages = makeStages();
    stages[0] = { ...stages[0], is_completed: true, is_active: false };
    stages[1] = { ...stages[1], is_active: true };
    stages[4] = { ...stages[4], is_enabled: false };
    setState(3, { stages, current_stage_index: 1 });
    renderApp('/app/3');

    await waitFor(() => expect(stageButtons()).toHaveLength(4));
    const [requirements, architecture, implementation, execution] = stageButtons();
    expect(requirements).toHaveTextContent('Stage 1: Requirements (completed)');
    expect(requirements).toHaveTextContent('✓');
    expect(requirements).toHaveTextContent('Gather what the infrastructure must do');
    expect(architecture).toHaveTextContent('2');
    expect(architecture).toHaveAttribute('aria-current', 'step');
    expect(requirements).toBeEnabled();
    expect(architecture).toBeEnabled();
    expect(implementation).toBeDisabled();
    expect(execution).toBeDisabled();
    expect(screen.queryByText('Validation')).not.toBeInTheDocument();
  });

  it('shows the current stage panel from its own chunk', async () => {
    seedProjects(makeProject({ id: 3 }));
    renderApp('/app/3');
    expect(await screen.findByRole('region', { name: 'Requirements Gatherer' })).toBeInTheDocument();
    expect(await screen.findByRole('region', { name: 'Collected Requirements' })).toBeInTheDocument();
  });

  it('clamps a current stage index past the enabled stages to the last one', async () => {
    seedProjects(makeProject({ id: 3 }));
    setState(3, { current_stage_index: 9 });
    const validation = useFakeValidation();
    renderApp('/app/3');
    expect(await screen.findByRole('region', { name: 'Validation Progress' })).toBeInTheDocument();
    expect(stageButtons()[4]).toHaveAttribute('aria-current', 'step');
    // The stage opened starts validation; its calls end within the test, while their handlers are there.
    await waitFor(() => expect(validation.triggers).toHaveLength(1));
  });

  it('says "No stages available" / "No stages configured" without enabled stages', async () => {
    seedProjects(makeProject({ id: 3 }));
    setState(3, { stages: makeStages().map((stage) => ({ ...stage, is_enabled: false })) });
    renderApp('/app/3');
    expect(await screen.findByText(WORKSPACE.noStagesAvailable)).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: WORKSPACE.noStagesConfigured })).toBeInTheDocument();
  });

  it.each([
    ['', WORKSPACE.noAgentConfigured],
    ['mysteryAgent', WORKSPACE.unknownAgentType],
  ])('a stage with agent %j shows "%s"', async (agentId, text) => {
    seedProjects(makeProject({ id: 3 }));
    const stages = makeStages();
    stages[0] = { ...stages[0], agent_id: agentId };
    setState(3, { stages });
    renderApp('/app/3');
    expect(await screen.findByRole('heading', { name: text })).toBeInTheDocument();
  });

  it('sets the current stage when an enabled stage other than the current one is clicked', async () => {
    seedProjects(makeProject({ id: 3 }));
    const stages = makeStages().map((stage, i) => ({ ...stage, is_completed: i < 2, is_active: i === 2 }));
    setState(3, { stages, current_stage_index: 2 });
    const calls: string[] = [];
    server.events.on('request:start', ({ request }) => {
      if (request.method === 'PUT') calls.push(`${new URL(request.url).pathname} ${request.headers.get('Project-Id')}`);
    });
    const { user } = renderApp('/app/3');
    await screen.findByRole('region', { name: 'Implementation Plan' });

    await user.click(stageButtons()[2]);
    expect(calls).toEqual([]);

    await user.click(stageButtons()[0]);
    expect(await screen.findByRole('region', { name: 'Requirements Gatherer' })).toBeInTheDocument();
    expect(calls).toEqual(['/api/project-states/3/current-stage/requirements 3']);
    expect(stageButtons()[0]).toHaveAttribute('aria-current', 'step');
    server.events.removeAllListeners();
  });

  it('shows the project cost in dollars with 4 decimals, View Details and Return to Projects', async () => {
    seedProjects(makeProject({ id: 3 }));
    db.costs.set(3, { total_cost: '1.23456', last_updated: '2025-02-20T12:00:00Z' });
    renderApp('/app/3');
    await waitFor(() => expect(screen.getByTestId('project-cost')).toHaveTextContent('$1.2346'));
    expect(screen.getByRole('link', { name: WORKSPACE.viewDetails })).toHaveAttribute('href', '/app/3/costs');
    expect(screen.getByRole('link', { name: WORKSPACE.returnToProjects })).toHaveAttribute('href', '/');
  });

  it('shows $0.0000 while the cost is unknown', async () => {
    seedProjects(makeProject({ id: 3 }));
    server.use(http.get(api('/projects/:id/costs'), () => HttpResponse.json({ detail: 'nope' }, { status: 500 })));
    renderApp('/app/3');
    expect(await screen.findByTestId('project-cost')).toHaveTextContent('$0.0000');
  });

  it('View Details opens the costs page, whose Back returns to the workspace (returnTo rule)', async () => {
    seedProjects(makeProject({ id: 3, name: 'Edge proxy' }));
    server.use(http.get(api('/projects/:id/token-usage'), () => HttpResponse.json({ total_cost: 0, breakdown: [] })));
    const { user, router } = renderApp('/app/3');
    await user.click(await screen.findByRole('link', { name: WORKSPACE.viewDetails }));
    expect(await screen.findByRole('heading', { name: 'Project Costs' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Back' }));
    expect(await screen.findByRole('heading', { level: 1, name: 'Edge proxy' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/app/3');
  });

  it('the costs page returns to the project home with returnTo=home', async () => {
    seedProjects(makeProject({ id: 3 }));
    server.use(http.get(api('/projects/:id/token-usage'), () => HttpResponse.json({ total_cost: 0, breakdown: [] })));
    const { user, router } = renderApp('/app/3/costs?returnTo=home');
    await user.click(await screen.findByRole('button', { name: 'Back' }));
    expect(await screen.findByRole('heading', { name: PROJECT_HOME_SANDBOX.header })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/app/3/home');
  });

  it('routes the project home and the full-page DevOps Helper', async () => {
    seedProjects(makeProject({ id: 3 }));
    const { user, router } = renderApp('/app/3/home/devops-helper');
    // The full page opens with the helper's 'Important Notice' (its own tests cover the dialog).
    expect(await screen.findByRole('dialog', { name: 'Important Notice' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Back to Project Home' }));
    expect(await screen.findByRole('heading', { name: PROJECT_HOME_SANDBOX.header })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/app/3/home');
  });

  it('rejects a non-numeric project id', async () => {
    renderApp('/app/abc');
    expect(await screen.findByRole('heading', { name: WORKSPACE.invalidProjectIdFull('abc') })).toBeInTheDocument();
  });

  it('"Failed to load project details" when the project cannot be loaded', async () => {
    server.use(http.get(api('/projects/:id'), () => HttpResponse.json({ detail: 'Database is not reachable' }, { status: 503 })));
    renderApp('/app/3');
    expect(await screen.findByRole('heading', { name: WORKSPACE.failedToLoadProjectDetails })).toBeInTheDocument();
    expect(screen.getByText('Database is not reachable')).toBeInTheDocument();
  });

  it('"Failed to load project data" when the stages cannot be loaded', async () => {
    seedProjects(makeProject({ id: 3 }));
    server.use(http.get(api('/project-states/:projectId'), () => HttpResponse.json({ detail: 'State lost' }, { status: 500 })));
    renderApp('/app/3');
    expect(await screen.findByRole('heading', { name: WORKSPACE.failedToLoadProjectData })).toBeInTheDocument();
    expect(screen.getByText('State lost')).toBeInTheDocument();
  });

  describe('a project that does not exist', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('shows "Project not found", then goes to / (and on to /app)', async () => {
      const { router } = renderApp('/app/999');
      expect(await screen.findByRole('heading', { name: WORKSPACE.projectNotFound })).toBeInTheDocument();
      act(() => jest.advanceTimersByTime(TIMING.projectNotFoundRedirectMs));
      expect(await screen.findByRole('heading', { name: 'My Projects' })).toBeInTheDocument();
      expect(router.state.location.pathname).toBe('/app');
    });
  });

  it('sends the Project-Id header on the workspace calls', async () => {
    seedProjects(makeProject({ id: 3 }));
    const seen = new Map<string, string | null>();
    server.events.on('request:start', ({ request }) => {
      seen.set(new URL(request.url).pathname, request.headers.get('Project-Id'));
    });
    renderApp('/app/3');
    await screen.findByRole('region', { name: 'Requirements Gatherer' });
    await waitFor(() => expect(seen.get('/api/projects/3/costs')).toBe('3'));
    expect(seen.get('/api/projects/3')).toBe('3');
    expect(seen.get('/api/project-states/3')).toBe('3');
    server.events.removeAllListeners();
  });
});
