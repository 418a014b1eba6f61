import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { HOME_AFTER_MS } from '../../../src/client/features/validation/components/ValidationProgressPanel';
import { ValidationStage } from '../../../src/client/features/validation/ValidationStage';
import { validationApi } from '../../../src/client/features/validation/validationApi';
import { selectValidationPending } from '../../../src/client/features/validation/validationSlice';
import { DEVOPS_HELPER_ASK_PARAM, DOCUMENTATION, failedCheckQuestion, INSTALLATION_ID_KEY, VALIDATION, VALIDATION_ERRORS, VALIDATION_HELP, VALIDATION_TEXT } from '../../../src/shared/constants';
import { makeStep } from '../execution/executionFixtures';
import { makeProject, makeStages } from '../utils/factories';
import { renderWithProviders } from '../utils/renderWithProviders';
import { api, db, seedProjects, server } from '../utils/server';
import { loggedErrors } from '../utils/loggedErrors';
import { useFakeValidation } from './validationFixtures';

const PROJECT = 7;
const route = `/app/${PROJECT}`;

function renderStage(fakeTimers = false): ReturnType<typeof renderWithProviders> {
  return renderWithProviders(
    <ValidationStage projectId={PROJECT} project={makeProject({ id: PROJECT })} stage={makeStages()[4]!} stages={makeStages()} />,
    { route, path: '/app/:projectId', routes: [{ path: '/app/:projectId/home', element: <h1>Project home</h1> }], fakeTimers },
  );
}

/** Runs `body` on jest's clock (promises and I/O stay real), so a test can move past a timer's moment at once. */
async function onFakeClock(body: () => Promise<void>): Promise<void> {
  jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
  try {
    await body();
  } finally {
    jest.useRealTimers();
  }
}

/** The validation stage's `is_completed` as the fake server holds it (seeded by `seedProjects`). */
const validationStageCompleted = (): boolean | undefined =>
  db.projectStates.get(PROJECT)?.stages.find((stage) => stage.stage_id === 'validation')?.is_completed;

const progressPanel = (): HTMLElement => screen.getByRole('region', { name: VALIDATION_TEXT.title });
const card = (n: number): HTMLElement => within(progressPanel()).getByRole('listitem', { name: new RegExp(`^Step ${n}:`) });

beforeEach(() => {
  seedProjects(makeProject({ id: PROJECT }));
  sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
  // The POST stream channel reads the project from the address bar, as in the app.
  window.history.pushState({}, '', route);
});

describe('validation stage', () => {
  it('with no steps: creates the plan with the fixed prompt, then triggers validation with a message', async () => {
    const fake = useFakeValidation();
    fake.onTrigger = () => {
      fake.progress = { steps: [makeStep(1, { status: 'waiting_approval' }), makeStep(2, { status: 'waiting_approval', description: 'Check the files' })] };
    };
    renderStage();
    expect(await screen.findByText(VALIDATION_TEXT.noSteps)).toBeInTheDocument();
    await waitFor(() => expect(fake.triggers).toHaveLength(1));
    expect(new URL(fake.agentUrls[0]!).searchParams.get('message')).toBe(VALIDATION.planPrompt);
    expect(fake.triggers[0]).toEqual({ body: { message: VALIDATION.triggerMessage }, projectId: String(PROJECT) });
    expect(await screen.findByRole('listitem', { name: 'Step 1: Validation Step 1' })).toBeInTheDocument();
    expect(card(2)).toHaveTextContent('Check the files');
    expect(within(progressPanel()).getByText('0 / 2 steps completed')).toBeInTheDocument();
    expect(within(screen.getByRole('region', { name: 'Validation Plan' })).getByText('Show the plan')).toBeInTheDocument();
  });

  it('does not ask for a plan again when steps exist; shows the counts, Current Validation and Last Executed', async () => {
    const fake = useFakeValidation(
      [makeStep(1, { status: 'completed' }), makeStep(2, { status: 'failed', error_message: 'exit 1' }), makeStep(3, { status: 'in_progress' })],
      { status: 'ready', plan: '# Validation Plan' },
    );
    renderStage();
    expect(await within(progressPanel()).findByText('1 / 3 steps completed')).toBeInTheDocument();
    expect(within(progressPanel()).getByText(`${VALIDATION_TEXT.currentValidation}:`).closest('p')).toHaveTextContent('Current Validation: 3');
    expect(within(progressPanel()).getByText(`${VALIDATION_TEXT.lastExecuted}:`).closest('p')).toHaveTextContent('Last Executed: Step 2 (failed)');
    expect(within(progressPanel()).getByRole('img', { name: '33% complete' })).toBeInTheDocument();
    // A failed step makes the trigger call automatically (part 2 section 4), once.
    await waitFor(() => expect(fake.triggers).toEqual([{ body: { message: VALIDATION.triggerMessage }, projectId: String(PROJECT) }]));
    expect(fake.agentUrls).toEqual([]);
  });

  it('approves and rejects from the card header; re-executes a completed step', async () => {
    const fake = useFakeValidation([makeStep(1, { status: 'waiting_approval' }), makeStep(2, { status: 'waiting_approval' }), makeStep(3, { status: 'completed' })], {
      status: 'ready',
      plan: '# Plan',
    });
    const { user } = renderStage();
    await screen.findByRole('listitem', { name: /^Step 1:/ });
    await user.click(within(card(1)).getByRole('button', { name: 'Approve' }));
    await user.click(within(card(2)).getByRole('button', { name: 'Reject' }));
    await user.click(within(card(3)).getByRole('button', { name: /Step 3/ }));
    await user.click(within(card(3)).getByRole('button', { name: 'Re-execute' }));
    await waitFor(() => expect(fake.approvals).toHaveLength(3));
    expect(fake.approvals).toEqual([
      { step_number: 1, approved: true },
      { step_number: 2, approved: false },
      { step_number: 3, approved: true },
    ]);
  });

  it('a running check shows Cancel, which stops it (POST /api/validation/cancel-step) and nothing else', async () => {
    const fake = useFakeValidation([makeStep(1, { status: 'in_progress', output: 'curl -sf https://…\n' })], { status: 'ready', plan: '# Plan' });
    const { user } = renderStage();
    await screen.findByRole('listitem', { name: /^Step 1:/ });
    await user.click(within(card(1)).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(fake.cancels).toEqual([{ step_number: 1 }]));
    expect(fake.approvals).toEqual([]);
    await waitFor(() => expect(within(card(1)).queryByRole('button', { name: 'Cancel' })).toBeNull());
    expect(card(1)).toHaveTextContent('Cancelled by you');
  });

  it('Auto-Approve approves the next waiting step, never a dangerous one', async () => {
    const fake = useFakeValidation(
      [makeStep(1, { status: 'completed' }), makeStep(2, { status: 'waiting_approval', dangerous_reason: 'Deletes a system path' }), makeStep(3, { status: 'waiting_approval' })],
      { status: 'ready', plan: '# Plan' },
    );
    const { user, store } = renderStage();
    await screen.findByRole('listitem', { name: /^Step 2:/ });
    await user.click(screen.getByRole('switch', { name: VALIDATION_TEXT.autoApprove }));
    // The saga decides as the toggle is dispatched: an approval would be pending (or already answered) now.
    expect(selectValidationPending(store.getState())).toEqual({});
    expect(fake.approvals).toEqual([]);
    fake.progress = { steps: [makeStep(1, { status: 'completed' }), makeStep(2, { status: 'waiting_approval' }), makeStep(3, { status: 'waiting_approval' })] };
    // As the server does: an approved step runs.
    fake.onApprove = (body) => {
      fake.progress = { steps: [makeStep(1, { status: 'completed' }), makeStep(2, { status: body.step_number === 2 ? 'in_progress' : 'waiting_approval' }), makeStep(3, { status: 'waiting_approval' })] };
    };
    // The next poll, as the 3 s interval would make it.
    await act(async () => {
      await store.dispatch(validationApi.endpoints.getValidationProgress.initiate(PROJECT, { forceRefetch: true }));
    });
    await waitFor(() => expect(fake.approvals).toEqual([{ step_number: 2, approved: true }]), { timeout: 5_000 });
    await waitFor(() => expect(selectValidationPending(store.getState())).toEqual({}));
    // The next poll shows step 2 running: step 3 waits for it.
    await act(async () => {
      await store.dispatch(validationApi.endpoints.getValidationProgress.initiate(PROJECT, { forceRefetch: true }));
    });
    expect(selectValidationPending(store.getState())).toEqual({});
    expect(fake.approvals).toHaveLength(1);
  });

  it('polls plan and progress every 3 s', async () => {
    let progressCalls = 0;
    let planCalls = 0;
    useFakeValidation([makeStep(1, { status: 'waiting_approval' })], { status: 'ready', plan: '# Plan' });
    server.use(
      http.get(api('/validation/progress'), () => {
        progressCalls += 1;
        return HttpResponse.json({ steps: [makeStep(1, { status: 'waiting_approval' })] });
      }),
      http.get(api('/validation/plan'), () => {
        planCalls += 1;
        return HttpResponse.json({ status: 'ready', plan: '# Plan' });
      }),
    );
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    try {
      renderStage();
      await act(() => jest.advanceTimersByTimeAsync(200));
      const [progress0, plan0] = [progressCalls, planCalls];
      await act(() => jest.advanceTimersByTimeAsync(VALIDATION.pollMs));
      expect(progressCalls).toBe(progress0 + 1);
      expect(planCalls).toBe(plan0 + 1);
      await act(() => jest.advanceTimersByTimeAsync(VALIDATION.pollMs));
      expect(progressCalls).toBe(progress0 + 2);
      expect(planCalls).toBe(plan0 + 2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('all complete: the banner, documentation generated when missing, then the project home', async () => {
    const fake = useFakeValidation([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'completed' })], { status: 'ready', plan: '# Plan' });
    let releaseGeneration: () => void = () => undefined;
    const generationHeld = new Promise<void>((resolve) => (releaseGeneration = resolve));
    server.use(
      http.post(api('/documentation/generate'), async ({ request }) => {
        fake.generations.push(await request.json());
        await generationHeld;
        fake.documentation = { status: 'ready', documentation: '# Docs', quickstart: '# Start', key_value_data: {} };
        return HttpResponse.text('data: {"event":"on_chat_model_end","thread_id":"d"}\n\n', { headers: { 'Content-Type': 'text/event-stream' } });
      }),
    );
    renderStage();
    const banner = await screen.findByText(VALIDATION_TEXT.validated);
    expect(within(banner.parentElement!).getByRole('button', { name: VALIDATION_TEXT.viewDetails })).toBeInTheDocument();
    expect(await screen.findByText(VALIDATION_TEXT.generatingDocumentation)).toBeInTheDocument();
    expect(fake.generations).toEqual([{ message: DOCUMENTATION.generatePrompt }]);
    expect(validationStageCompleted()).toBe(false);
    releaseGeneration();
    // The banner stays to be read (it showed for under a second before), then the page moves home.
    expect(await screen.findByText(/Opening the project home in/)).toBeInTheDocument();
    expect(screen.getByText(VALIDATION_TEXT.validated)).toBeInTheDocument();
    expect(await screen.findByRole('heading', { name: 'Project home' }, { timeout: HOME_AFTER_MS + 5_000 })).toBeInTheDocument();
    expect(validationStageCompleted()).toBe(true);
  });

  it('a project validated on an earlier visit stays on the stage, its checks can run again', async () => {
    const fake = useFakeValidation([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'completed' })], { status: 'ready', plan: '# Plan' });
    fake.documentation = { status: 'ready', documentation: '# Docs', quickstart: '# Start', key_value_data: {} };
    seedProjects(makeProject({ id: PROJECT }));
    const state = db.projectStates.get(PROJECT)!;
    state.stages = state.stages.map((stage) => ({ ...stage, is_active: true, is_completed: true }));
    state.current_stage_index = 4;
    await onFakeClock(async () => {
      const { store } = renderStage(true);
      expect(await screen.findByText(VALIDATION_TEXT.validated)).toBeInTheDocument();
      await waitFor(() => expect(store.getState().validation?.documentation.status).toBe('done'));
      expect(screen.queryByText(/Opening the project home in/)).not.toBeInTheDocument();
      // Past the moment the page used to move: it stays, with Re-execute on the checks.
      await act(() => jest.advanceTimersByTimeAsync(HOME_AFTER_MS + 500));
      expect(screen.queryByRole('heading', { name: 'Project home' })).not.toBeInTheDocument();
      // In the card's body (collapsed while completed).
      expect(within(card(1)).getByRole('button', { name: 'Re-execute', hidden: true })).toBeInTheDocument();
    });
  });

  it('"Stay here" keeps the page on the stage after a first validation', async () => {
    const fake = useFakeValidation([makeStep(1, { status: 'completed' })], { status: 'ready', plan: '# Plan' });
    fake.documentation = { status: 'ready', documentation: '# Docs', quickstart: '# Start', key_value_data: {} };
    await onFakeClock(async () => {
      const { user } = renderStage(true);
      await user.click(await screen.findByRole('button', { name: 'Stay here' }));
      // Past the moment the page would have moved.
      await act(() => jest.advanceTimersByTimeAsync(HOME_AFTER_MS + 500));
      expect(screen.queryByRole('heading', { name: 'Project home' })).not.toBeInTheDocument();
    });
  });

  it('all complete with documentation present: no generation, straight to the project home', async () => {
    const fake = useFakeValidation([makeStep(1, { status: 'completed' })], { status: 'ready', plan: '# Plan' });
    fake.documentation = { status: 'ready', documentation: '# Docs', quickstart: '# Start', key_value_data: {} };
    renderStage();
    expect(await screen.findByRole('heading', { name: 'Project home' }, { timeout: HOME_AFTER_MS + 5_000 })).toBeInTheDocument();
    expect(fake.generations).toEqual([]);
    expect(validationStageCompleted()).toBe(true);
  });

  it("stays on the checks with the server's reason when the server refuses to complete validation", async () => {
    const fake = useFakeValidation([makeStep(1, { status: 'completed' })], { status: 'ready', plan: '# Plan' });
    fake.documentation = { status: 'ready', documentation: '# Docs', quickstart: '# Start', key_value_data: {} };
    const detail = 'Validation is not complete: 1 of 1 checks did not complete (check 1 is waiting for approval).';
    server.use(http.put(api('/project-states/:projectId/stages/:stageId'), () => HttpResponse.json({ detail }, { status: 409 })));
    const logged = await loggedErrors(async () => {
      renderStage();
      expect(await screen.findByText(detail)).toBeInTheDocument();
    });
    expect(logged).toEqual(['[validation.completeStage]']);
    await act(() => new Promise((r) => setTimeout(r, HOME_AFTER_MS + 200)));
    expect(screen.queryByRole('heading', { name: 'Project home' })).not.toBeInTheDocument();
  });

  it('offers the DevOps Helper for a failed check, with the check, its command and its failure as the question', async () => {
    useFakeValidation(
      [makeStep(1, { status: 'completed' }), makeStep(2, { status: 'failed', description: 'The proxy answers', command: 'curl -fsS http://x/', output: 'curl: (7) refused\nnothing answers on http://x/', error_message: 'exited with code 1' })],
      { status: 'ready', plan: '# Plan' },
    );
    renderStage();
    const box = await screen.findByRole('region', { name: VALIDATION_HELP.title });
    const link = within(box).getByRole('link', { name: VALIDATION_HELP.ask(2) });
    const url = new URL(link.getAttribute('href')!, 'http://app');
    expect(url.pathname).toBe(`/app/${PROJECT}/home/devops-helper`);
    expect(url.searchParams.get(DEVOPS_HELPER_ASK_PARAM)).toBe(
      failedCheckQuestion({ number: 2, title: 'The proxy answers', command: 'curl -fsS http://x/', failure: 'nothing answers on http://x/' }),
    );
    expect(url.searchParams.get(DEVOPS_HELPER_ASK_PARAM)).toContain('Validation check 2 (The proxy answers) failed: nothing answers on http://x/');
  });

  it('shows the create-plan error when the agent fails', async () => {
    const fake = useFakeValidation();
    server.use(http.get(api('/validation/agent'), () => HttpResponse.json({ detail: 'Out of credits' }, { status: 402 })));
    const logged = await loggedErrors(async () => {
      renderStage();
      expect(await screen.findByText(VALIDATION_ERRORS.createPlan)).toBeInTheDocument();
    });
    expect(logged).toEqual(['[validation.createPlan]']);
    expect(fake.triggers).toEqual([]);
  });

  it('shows the start error when the plan cannot be read, and the plan fetch error', async () => {
    useFakeValidation();
    server.use(http.get(api('/validation/plan'), () => HttpResponse.json({ detail: 'boom' }, { status: 500 })));
    const logged = await loggedErrors(async () => {
      renderStage();
      expect(await screen.findByText(VALIDATION_ERRORS.startProcess)).toBeInTheDocument();
      expect(await screen.findByText(VALIDATION_ERRORS.fetchPlan('boom'))).toBeInTheDocument();
    });
    expect(logged).toEqual(['[validation.start]']);
  });
});
