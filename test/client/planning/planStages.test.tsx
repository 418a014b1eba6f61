import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { ImplementationStage } from '../../../src/client/features/planning/ImplementationStage';
import { implementationConfirmRequested, selectConfirming } from '../../../src/client/features/planning/planningSlice';
import {
  ARCHITECTURE_TEXT,
  IMPLEMENTATION_TEXT,
  INSTALLATION_ID_KEY,
  PLANNING_PROMPTS,
  SANDBOX_INIT,
  SANDBOX_INIT_ERRORS,
  WORKSPACE,
} from '../../../src/shared/constants';
import { makeProgress, useFakeExecution } from '../execution/executionFixtures';
import { makeProject, makeProjectState, makeStages } from '../utils/factories';
import { useFakeValidation } from '../validation/validationFixtures';
import { planningDb, replyEvents, sseResponse, sseText } from '../utils/planningServer';
import { renderApp, renderWithProviders } from '../utils/renderWithProviders';
import { api, db, seedProjects, server } from '../utils/server';
import { makeAppStore } from '../utils/store';

// The machine is shared: lazy chunks and streams can take longer than the 1 s default under load.

function atStage(index: number): void {
  seedProjects(makeProject({ id: 7 }));
  const stages = makeStages().map((stage, i) => ({ ...stage, is_completed: i < index, is_active: i <= index }));
  db.projectStates.set(7, makeProjectState(7, { stages, current_stage_index: index }));
}

const ARCHITECTURE_PLAN = [
  '# Architecture',
  'Read the [compose docs](https://docs.docker.com/compose/).',
  '```yaml',
  'services:',
  '  db:',
  '    image: postgres:16',
  '```',
  '```mermaid',
  'graph TD; web-->db',
  '```',
].join('\n');

describe('architecture stage', () => {
  beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

  it("shows the 'Cloud Architecture Plan' as markdown with its diagram beside the 'Cloud Architecture Assistant'", async () => {
    atStage(1);
    planningDb.architecturePlan = ARCHITECTURE_PLAN;
    renderApp('/app/7');
    const view = await screen.findByRole('region', { name: ARCHITECTURE_TEXT.viewTitle }, { timeout: 5000 });
    expect(await within(view).findByRole('heading', { name: 'Architecture' }, { timeout: 5000 })).toBeInTheDocument();
    expect(within(view).getByRole('link', { name: 'compose docs' })).toHaveAttribute('href', 'https://docs.docker.com/compose/');
    expect(within(view).getByText(/image: postgres:16/)).toBeInTheDocument();
    // Drawn: an <svg> with the plan's nodes in place of the source, and no failure note.
    const diagram = await within(view).findByRole('figure', { name: 'Diagram' });
    await waitFor(() => expect(diagram).toHaveAttribute('aria-busy', 'false'));
    expect(Array.from(diagram.querySelectorAll('svg g.node'), (node) => node.textContent)).toEqual(['web', 'db']);
    expect(diagram).not.toHaveTextContent('graph TD');
    expect(diagram).not.toHaveTextContent(/could not be drawn/);
    expect(screen.getByRole('region', { name: ARCHITECTURE_TEXT.chatTitle })).toBeInTheDocument();
  });

  it("says 'Error loading architecture plan' when the plan cannot be read", async () => {
    atStage(1);
    server.use(http.get(api('/planning/architecture-plan'), () => HttpResponse.json({ detail: 'boom' }, { status: 500 })));
    renderApp('/app/7');
    expect(await screen.findByText(ARCHITECTURE_TEXT.loadError, {}, { timeout: 5000 })).toBeInTheDocument();
  });

  it('keeps confirm disabled without a plan', async () => {
    atStage(1);
    renderApp('/app/7');
    await screen.findByText(/No architecture plan yet/, {}, { timeout: 5000 });
    expect(screen.getByRole('button', { name: 'Confirm Architecture' })).toBeDisabled();
  });

  it('shows what the plan verifier found; an error keeps confirm disabled, saying why', async () => {
    atStage(1);
    const findings = [
      { severity: 'warning', code: 'volume-not-backed-up', message: 'volume caddy_data (caddy) is in no backup', where: 'docker-compose.yml volumes.caddy_data' },
      { severity: 'error', code: 'published-private', message: 'redis is published on port 80 to every address', where: 'docker-compose.yml services.redis.ports' },
    ];
    server.use(http.get(api('/planning/architecture-plan'), () => HttpResponse.json({ plan: ARCHITECTURE_PLAN, findings })));
    renderApp('/app/7');
    const check = await screen.findByRole('region', { name: 'Plan check' }, { timeout: 5000 });
    expect(within(check).getByRole('status')).toHaveTextContent('1 error blocks the confirm: ask the assistant to fix it');
    // Errors first, each saying where.
    expect(within(check).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Error docker-compose.yml services.redis.ports: redis is published on port 80 to every address',
      'Warning docker-compose.yml volumes.caddy_data: volume caddy_data (caddy) is in no backup',
    ]);
    const confirm = screen.getByRole('button', { name: 'Confirm Architecture' });
    expect(confirm).toBeDisabled();
    expect(confirm).toHaveAttribute('title', expect.stringContaining('The plan has an error to fix before it can be confirmed'));
  });

  it('a plan with warnings only can be confirmed', async () => {
    atStage(1);
    const findings = [{ severity: 'warning', code: 'claim-os-version', message: 'nothing backs it', where: 'architecture plan' }];
    server.use(http.get(api('/planning/architecture-plan'), () => HttpResponse.json({ plan: ARCHITECTURE_PLAN, findings })));
    renderApp('/app/7');
    const check = await screen.findByRole('region', { name: 'Plan check' }, { timeout: 5000 });
    expect(within(check).getByRole('status')).toHaveTextContent('1 warning: the plan can be confirmed.');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Confirm Architecture' })).toBeEnabled());
  });

  it("confirm triggers 'Generate implementation plan', completes 'architecture' and moves to stage index 2", async () => {
    atStage(1);
    planningDb.architecturePlan = ARCHITECTURE_PLAN;
    planningDb.stream = () => sseResponse(sseText(replyEvents('Step 1: install Docker.', 'impl-1')));
    const { user } = renderApp('/app/7');
    const confirm = await screen.findByRole('button', { name: 'Confirm Architecture' }, { timeout: 5000 });
    await waitFor(() => expect(confirm).toBeEnabled());
    await user.click(confirm);

    expect(await screen.findByRole('region', { name: IMPLEMENTATION_TEXT.viewTitle }, { timeout: 5000 })).toBeInTheDocument();
    expect(await screen.findByText('Step 1: install Docker.')).toBeInTheDocument();
    expect(planningDb.streamCalls).toEqual([
      expect.objectContaining({ agent: 'implementation', body: { message: PLANNING_PROMPTS.generateImplementationPlan } }),
    ]);
    expect(db.projectStates.get(7)).toMatchObject({ current_stage_index: 2 });
    expect(db.projectStates.get(7)!.stages[1].is_completed).toBe(true);
  });
});

describe('implementation stage', () => {
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    // A confirmed plan moves the page on to the execution stage, which polls its progress.
    useFakeExecution(makeProgress([]));
    useFakeValidation();
  });

  it("shows the 'Implementation Plan' and the planner chat", async () => {
    atStage(2);
    planningDb.implementationPlan = '1. **Install Docker**\n\n   ```sh\n   apt-get install -y docker.io\n   ```';
    renderApp('/app/7');
    const view = await screen.findByRole('region', { name: IMPLEMENTATION_TEXT.viewTitle }, { timeout: 5000 });
    expect(await within(view).findByText('Install Docker', {}, { timeout: 5000 })).toBeInTheDocument();
    expect(within(view).getByText('apt-get install -y docker.io')).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Implementation Planner' })).toBeInTheDocument();
  });

  it('an implementation plan made before the architecture changed says so, cannot be confirmed, and regenerates on request', async () => {
    atStage(2);
    planningDb.implementationPlan = '1. Install Docker';
    server.use(http.get(api('/planning/implementation-plan'), () => HttpResponse.json({ plan: planningDb.implementationPlan, outdated: true })));
    const { user } = renderApp('/app/7');
    expect(await screen.findByText(IMPLEMENTATION_TEXT.outdated, {}, { timeout: 5000 })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Confirm Implementation Plan' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: IMPLEMENTATION_TEXT.regenerate }));
    await waitFor(() => expect(planningDb.streamCalls.map((c) => c.body.message)).toContain(PLANNING_PROMPTS.generateImplementationPlan));
  });

  it("says 'Error loading implementation plan' when the plan cannot be read", async () => {
    atStage(2);
    server.use(http.get(api('/planning/implementation-plan'), () => HttpResponse.json({ detail: 'boom' }, { status: 500 })));
    renderApp('/app/7');
    expect(await screen.findByText(IMPLEMENTATION_TEXT.loadError, {}, { timeout: 5000 })).toBeInTheDocument();
  });

  it("says 'Invalid project ID: {id}…' without a numeric project id", () => {
    const [stage] = makeStages();
    renderWithProviders(<ImplementationStage projectId={Number.NaN} project={makeProject({ id: 1 })} stage={stage} stages={[stage]} />, {
      route: '/app/abc',
      path: '/app/:projectId',
    });
    expect(screen.getByText(WORKSPACE.invalidProjectIdFull('abc'))).toBeInTheDocument();
  });

  /** A ready sandbox and an accepted execution trigger: the sandbox feature's half of the confirm flow. */
  const sandboxReady = (): void => {
    server.use(
      http.get(api('/sandbox/status/:projectId'), () => HttpResponse.json({ status: 'READY' })),
      http.post(api('/sandbox/initialize/:projectId'), () => HttpResponse.json({ status: 'success', detail: 'Sandbox ready' })),
      http.post(api('/execution/trigger'), () => HttpResponse.json({ status: 'success' })),
    );
  };

  it("confirm initialises the sandbox, completes 'implementation' and moves to index 3", async () => {
    atStage(2);
    sandboxReady();
    planningDb.implementationPlan = '1. Install Docker';
    const { user } = renderApp('/app/7');
    const confirm = await screen.findByRole('button', { name: 'Confirm Implementation Plan' }, { timeout: 5000 });
    await waitFor(() => expect(confirm).toBeEnabled());
    await user.click(confirm);
    await waitFor(() => expect(db.projectStates.get(7)).toMatchObject({ current_stage_index: 3 }));
    expect(db.projectStates.get(7)!.stages[2].is_completed).toBe(true);
  });

  it('shows the sandbox preparation under the confirm, and its failure once, with the credentials case', async () => {
    atStage(2);
    let answerInitialise: (response: Response) => void = () => undefined;
    server.use(
      http.get(api('/sandbox/status/:projectId'), () => HttpResponse.json({ status: 'READY' })),
      http.post(api('/sandbox/initialize/:projectId'), () => new Promise<Response>((resolve) => (answerInitialise = resolve))),
    );
    planningDb.implementationPlan = '## Step 1: Install Docker';
    const { user } = renderApp('/app/7');
    const confirm = await screen.findByRole('button', { name: 'Confirm Implementation Plan' });
    await waitFor(() => expect(confirm).toBeEnabled());
    await user.click(confirm);

    const plan = screen.getByRole('region', { name: IMPLEMENTATION_TEXT.viewTitle });
    expect(await within(plan).findByRole('status')).toHaveTextContent(`Preparing the sandbox (attempt 1 of ${SANDBOX_INIT.maxAttempts})...`);
    answerInitialise(HttpResponse.json({ status: 'failed', detail: 'Missing cloud provider API key for Hetzner' }));

    expect(await within(plan).findByRole('alert')).toHaveTextContent('Missing cloud provider API key for Hetzner');
    expect(within(plan).getAllByText('Missing cloud provider API key for Hetzner')).toHaveLength(1);
    expect(within(plan).getByText(SANDBOX_INIT_ERRORS.credentialsNote)).toBeInTheDocument();
    expect(within(plan).getByRole('button', { name: SANDBOX_INIT_ERRORS.returnToRequirements })).toBeInTheDocument();
    expect(db.projectStates.get(7)).toMatchObject({ current_stage_index: 2 });
  });

  it("runs the flow from the 'implementation/confirmRequested' action", async () => {
    atStage(2);
    sandboxReady();
    window.history.replaceState(null, '', '/app/7');
    const store = makeAppStore();
    store.dispatch(implementationConfirmRequested({ projectId: 7 }));
    expect(implementationConfirmRequested.type).toBe('implementation/confirmRequested');
    expect(selectConfirming(store.getState(), 7, 'implementation')).toBe(true);
    await waitFor(() => expect(selectConfirming(store.getState(), 7, 'implementation')).toBe(false));
    expect(db.projectStates.get(7)).toMatchObject({ current_stage_index: 3 });
  });
});
