import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { ExecutionProgressPanel } from '../../../src/client/features/execution/components/ExecutionProgressPanel';
import { ExecutionStage } from '../../../src/client/features/execution/ExecutionStage';
import { executionApi } from '../../../src/client/features/execution/executionApi';
import {
  CHAT,
  EXECUTION,
  EXECUTION_ERRORS,
  EXECUTION_TEXT,
  FULL_OUTPUT_MODAL,
  INSTALLATION_ID_KEY,
  TERMINAL,
  VALIDATION,
  VALIDATION_ERRORS,
} from '../../../src/shared/constants';
import { makeProject, makeProjectState, makeStages } from '../utils/factories';
import { loggedErrors } from '../utils/loggedErrors';
import { renderWithProviders } from '../utils/renderWithProviders';
import { api, db, seedProjects, sendCommandFrame, server } from '../utils/server';
import { makeProgress, makeStep, useFakeExecution } from './executionFixtures';
import { useFakeValidation } from '../validation/validationFixtures';

const PROJECT = 7;
const route = `/app/${PROJECT}`;

function renderPanel(): ReturnType<typeof renderWithProviders> {
  return renderWithProviders(<ExecutionProgressPanel projectId={PROJECT} />, { route });
}

function card(number: number): HTMLElement {
  return screen.getByRole('listitem', { name: new RegExp(`^Step ${number}:`) });
}

/** A poll as the 5 s interval would make it. */
async function refetch(store: ReturnType<typeof renderWithProviders>['store']): Promise<void> {
  await act(async () => {
    await store.dispatch(executionApi.endpoints.getExecutionProgress.initiate(PROJECT, { forceRefetch: true }));
  });
}

/** The execution stage with its chat opened, as the person opens it (it is closed at first). */
async function renderStageWithChat(): Promise<ReturnType<typeof renderWithProviders>> {
  const rendered = renderWithProviders(
    <ExecutionStage projectId={PROJECT} project={makeProject({ id: PROJECT })} stage={makeStages()[3]} stages={makeStages()} />,
    { route },
  );
  expect(screen.queryByRole('tab')).toBeNull();
  await rendered.user.click(await screen.findByRole('button', { name: /Open the agent chat/ }));
  return rendered;
}

const LONG_OUTPUT = ['line 1', 'line 2', 'line 3', 'line 4', 'line 5', 'line 6', 'line 7'].join('\n');

beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

describe('execution progress panel', () => {
  it('shows the ring, the counts, Current Execution and Last Executed', async () => {
    useFakeExecution(
      makeProgress([
        makeStep(1, { status: 'completed', description: 'Install Docker' }),
        makeStep(2, { status: 'failed' }),
        makeStep(3, { status: 'in_progress' }),
        makeStep(4, { status: 'waiting_approval' }),
      ]),
    );
    const { container } = renderPanel();
    expect(await screen.findByText(EXECUTION_TEXT.completedCount(1, 4))).toBeInTheDocument();
    const circles = container.querySelectorAll('svg circle');
    expect([...circles].map((circle) => circle.getAttribute('r'))).toEqual([String(EXECUTION.progressRingRadius), String(EXECUTION.progressRingRadius)]);
    expect(screen.getByRole('img', { name: '25% complete' })).toBeInTheDocument();
    expect(screen.getByText(`${EXECUTION_TEXT.currentExecution}:`).parentElement).toHaveTextContent(`${EXECUTION_TEXT.currentExecution}: 3`);
    expect(screen.getByText(`${EXECUTION_TEXT.lastExecuted}:`).parentElement).toHaveTextContent('Step 2 (failed)');
    expect(screen.getByRole('switch', { name: EXECUTION_TEXT.autoApprove })).not.toBeChecked();
    expect(screen.getByRole('switch', { name: EXECUTION_TEXT.autoRetry })).not.toBeChecked();
    expect(screen.queryByText(EXECUTION_TEXT.allCompleted)).not.toBeInTheDocument();
  });

  it('shows None when nothing runs and nothing ran, and the empty text', async () => {
    useFakeExecution(makeProgress([], { id: null }));
    renderPanel();
    expect(await screen.findByText(EXECUTION_TEXT.noSteps)).toBeInTheDocument();
    expect(screen.getByText(`${EXECUTION_TEXT.currentExecution}:`).parentElement).toHaveTextContent(EXECUTION_TEXT.none);
    expect(screen.getByText(`${EXECUTION_TEXT.lastExecuted}:`).parentElement).toHaveTextContent(EXECUTION_TEXT.none);
  });

  it("says 'Failed to load execution progress' when the call fails", async () => {
    server.use(http.get(api('/execution/progress'), () => HttpResponse.json({ detail: 'boom' }, { status: 500 })));
    renderPanel();
    expect(await screen.findByText(new RegExp(EXECUTION_ERRORS.loadProgress))).toBeInTheDocument();
  });

  it("says 'No steps data available' for an answer without a steps array", async () => {
    useFakeExecution({ id: 1, currentStep: 0, totalSteps: 0 });
    renderPanel();
    expect(await screen.findByText(EXECUTION_ERRORS.noStepsData)).toBeInTheDocument();
  });

  it('polls the progress every 5 seconds', async () => {
    let calls = 0;
    server.use(
      http.get(api('/execution/progress'), () => {
        calls += 1;
        return HttpResponse.json(makeProgress([makeStep(1)]));
      }),
    );
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
    try {
      renderPanel();
      await act(() => jest.advanceTimersByTimeAsync(100));
      expect(calls).toBe(1);
      await act(() => jest.advanceTimersByTimeAsync(EXECUTION.progressPollMs));
      expect(calls).toBe(2);
      await act(() => jest.advanceTimersByTimeAsync(EXECUTION.progressPollMs));
      expect(calls).toBe(3);
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('step cards', () => {
  it('header: number, description or the default, status with spaces; collapsible body with the labels', async () => {
    useFakeExecution(
      makeProgress([
        makeStep(1, { status: 'completed', description: 'Install Docker', prompt: 'Install the engine', command: 'apt-get install docker.io', output: 'ok' }),
        makeStep(2, { status: 'waiting_approval' }),
      ]),
    );
    const { user } = renderPanel();
    await screen.findByText('Install Docker');
    const second = card(2);
    expect(within(second).getByText(EXECUTION_TEXT.stepDefault(2))).toBeInTheDocument();
    expect(within(second).getByText('waiting approval')).toBeInTheDocument();

    const first = card(1);
    const toggle = within(first).getByRole('button', { name: /Install Docker/ });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(within(first).getByText(EXECUTION_TEXT.promptLabel)).toBeVisible();
    expect(within(first).getByText('Install the engine')).toBeVisible();
    expect(within(first).getByText(EXECUTION_TEXT.commandLabel)).toBeVisible();
    expect(within(first).getByText('apt-get install docker.io')).toBeVisible();
    expect(within(first).getByText(EXECUTION_TEXT.outputLabel)).toBeVisible();
    expect(within(first).getByRole('button', { name: EXECUTION_TEXT.reExecute })).toBeEnabled();
    await user.click(toggle);
    expect(within(first).getByText('Install the engine')).not.toBeVisible();
  });

  it('quick Approve sends approved: true, disables the actions while pending, and clears when the step runs', async () => {
    const fake = useFakeExecution(makeProgress([makeStep(1, { status: 'waiting_approval' })]));
    fake.answer = 'waiting_approval';
    const { user, store } = renderPanel();
    await screen.findByText(EXECUTION_TEXT.stepDefault(1));
    const header = card(1);
    await user.click(within(header).getByRole('button', { name: EXECUTION_TEXT.approve }));
    await waitFor(() => expect(fake.approvals).toHaveLength(1));
    expect(fake.approvals[0]).toMatchObject({ plan_id: 11, step_number: 1, approved: true });

    // Still waiting on the server: both quick buttons stay disabled.
    await refetch(store);
    expect(within(card(1)).getByRole('button', { name: EXECUTION_TEXT.approve })).toBeDisabled();
    expect(within(card(1)).getByRole('button', { name: EXECUTION_TEXT.reject })).toBeDisabled();

    fake.progress = makeProgress([makeStep(1, { status: 'in_progress' })]);
    await refetch(store);
    await waitFor(() => expect(within(card(1)).getByText('in progress')).toBeInTheDocument());
    expect(within(card(1)).queryByRole('button', { name: EXECUTION_TEXT.approve })).not.toBeInTheDocument();
  });

  it('Reject sends approved: false; loading clears when the step fails', async () => {
    const fake = useFakeExecution(makeProgress([makeStep(1, { status: 'waiting_approval' })]));
    fake.answer = 'waiting_approval';
    const { user, store } = renderPanel();
    await screen.findByText(EXECUTION_TEXT.stepDefault(1));
    await user.click(within(card(1)).getByRole('button', { name: EXECUTION_TEXT.reject }));
    await waitFor(() => expect(fake.approvals[0]).toMatchObject({ step_number: 1, approved: false }));
    fake.progress = makeProgress([makeStep(1, { status: 'failed', error_message: 'Rejected by the user' })]);
    await refetch(store);
    await waitFor(() => expect(within(card(1)).getByRole('button', { name: EXECUTION_TEXT.reExecute })).toBeEnabled());
    expect(within(card(1)).getByRole('alert')).toHaveTextContent('Rejected by the user');
  });

  it('Re-execute on a failed step sends an approval; a failed call re-enables the button', async () => {
    const fake = useFakeExecution(makeProgress([makeStep(1, { status: 'failed', error_message: 'exit 1' })]));
    server.use(http.post(api('/execution/approve-step'), () => HttpResponse.json({ detail: 'Plan changed' }, { status: 409 })));
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = renderPanel();
    await screen.findByText(EXECUTION_TEXT.stepDefault(1));
    const button = within(card(1)).getByRole('button', { name: EXECUTION_TEXT.reExecute });
    await user.click(button);
    await waitFor(() => expect(within(card(1)).getByRole('button', { name: EXECUTION_TEXT.reExecute })).toBeEnabled());
    expect(fake.approvals).toEqual([]);
    expect(console.error).toHaveBeenCalled();
  });

  it('a running step shows its output so far, how long it has been running, and Cancel stops it', async () => {
    const startedAt = new Date(Date.now() - 65_000).toISOString();
    const fake = useFakeExecution(makeProgress([makeStep(1, { status: 'in_progress', output: 'pulling images\n', started_at: startedAt, finished_at: null })]));
    const { user, store } = renderPanel();
    await screen.findByText(EXECUTION_TEXT.stepDefault(1));
    expect(within(card(1)).getByTestId('step-1-output')).toHaveTextContent('pulling images');
    expect(within(card(1)).getByTestId('step-1-timing')).toHaveTextContent(/^Running for 1 min 0[5-9] s$/);
    // The timer counts on by itself between polls.
    await waitFor(() => expect(within(card(1)).getByTestId('step-1-timing')).not.toHaveTextContent(/1 min 05 s$/), { timeout: 3_000 });
    await user.click(within(card(1)).getByRole('button', { name: EXECUTION_TEXT.cancel }));
    await waitFor(() => expect(fake.cancels).toEqual([{ plan_id: 11, step_number: 1 }]));
    expect(fake.approvals).toEqual([]);
    fake.progress = makeProgress([
      makeStep(1, { status: 'failed', error_message: 'Cancelled by you', started_at: startedAt, finished_at: new Date(Date.parse(startedAt) + 72_000).toISOString() }),
    ]);
    await refetch(store);
    await waitFor(() => expect(within(card(1)).getByTestId('step-1-timing')).toHaveTextContent('Took 1 min 12 s'));
    expect(within(card(1)).queryByRole('button', { name: EXECUTION_TEXT.cancel })).toBeNull();
  });

  it('a rejected step can be re-executed, or changed with the agent (the chat gets the start of the message)', async () => {
    const fake = useFakeExecution(makeProgress([makeStep(2, { status: 'rejected' })]));
    const { user, store } = renderPanel();
    await screen.findByText(EXECUTION_TEXT.stepDefault(2));
    // A rejected step is not the current one: its body opens on request.
    await user.click(within(card(2)).getByRole('button', { name: /Execution Step 2/ }));
    await user.click(within(card(2)).getByRole('button', { name: EXECUTION_TEXT.changeWithAgent }));
    expect(store.getState().execution?.offeredDraft?.text).toBe('Change step 2: ');
    await user.click(within(card(2)).getByRole('button', { name: EXECUTION_TEXT.reExecute }));
    await waitFor(() => expect(fake.approvals).toMatchObject([{ step_number: 2, approved: true }]));
  });

  it('a proposed change shows the difference from the command; Save sends it, nothing changes before', async () => {
    const command = ['cd /opt/stack', 'docker-compose pull', 'docker-compose up -d', 'docker ps'].join('\n');
    useFakeExecution(
      makeProgress([
        makeStep(3, { status: 'failed', command, proposal: { command: command.replace('docker-compose up -d', 'docker compose up -d --wait'), description: '', prompt: 'Do step 3', request: 'use --wait' } }),
      ]),
    );
    const resolved: unknown[] = [];
    server.use(
      http.post(api('/execution/resolve-change'), async ({ request }) => {
        resolved.push(await request.json());
        return HttpResponse.json(makeStep(3, { status: 'waiting_approval' }));
      }),
    );
    const { user } = renderPanel();
    await screen.findByText(EXECUTION_TEXT.stepDefault(3));
    const diff = within(card(3)).getByTestId('line-diff');
    expect(diff).toHaveTextContent('- docker-compose up -d');
    expect(diff).toHaveTextContent('+ docker compose up -d --wait');
    expect(diff).not.toHaveTextContent('- docker ps');
    await user.click(within(card(3)).getByRole('button', { name: EXECUTION_TEXT.saveChange }));
    await waitFor(() => expect(resolved).toEqual([{ plan_id: 11, step_number: 3, save: true }]));
  });

  it('a revised plan marks what differs from what ran and lists the removed steps', async () => {
    useFakeExecution(
      makeProgress(
        [
          makeStep(1, { status: 'completed', description: 'Reach the server' }),
          makeStep(2, { status: 'waiting_approval', description: 'Write the stack files', change: 'changed', previous_command: 'echo old', command: 'echo new' }),
          makeStep(3, { status: 'waiting_approval', description: 'Start the stack', change: 'rerun' }),
        ],
        { revision: { number: 1, removed: [{ step_number: 4, description: 'Obtain the certificate', status: 'completed' }] } },
      ),
    );
    renderPanel();
    await screen.findByText('Write the stack files');
    expect(screen.getByText(EXECUTION_TEXT.revisionTitle(1))).toBeInTheDocument();
    expect(screen.getByText(/Obtain the certificate/)).toBeInTheDocument();
    expect(screen.queryByText(EXECUTION_TEXT.allCompleted)).toBeNull();
    expect(within(card(2)).getByTestId('step-2-change')).toHaveTextContent(EXECUTION_TEXT.changeLabels.changed!);
    expect(within(card(2)).getByTestId('line-diff')).toHaveTextContent('- echo old');
    expect(within(card(3)).getByTestId('step-3-change')).toHaveTextContent(EXECUTION_TEXT.changeLabels.rerun!);
  });

  it('opens only the current step; Expand all and Collapse all open and close every card', async () => {
    useFakeExecution(makeProgress([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'waiting_approval' }), makeStep(3, { status: 'waiting_approval' })]));
    const { user } = renderPanel();
    await screen.findByText(EXECUTION_TEXT.stepDefault(3));
    const expanded = (): (string | null)[] => [1, 2, 3].map((n) => within(card(n)).getByRole('button', { name: new RegExp(`Execution Step ${n}`) }).getAttribute('aria-expanded'));
    expect(expanded()).toEqual(['false', 'true', 'false']);
    await user.click(screen.getByRole('button', { name: 'Expand all' }));
    expect(expanded()).toEqual(['true', 'true', 'true']);
    await user.click(screen.getByRole('button', { name: 'Collapse all' }));
    expect(expanded()).toEqual(['false', 'false', 'false']);
  });

  it("streams a running step's output into its card from the event stream, in order, as a terminal shows it", async () => {
    const fake = useFakeExecution(makeProgress([makeStep(1, { status: 'waiting_approval', command: 'docker compose up -d --wait' })]));
    const { store } = renderPanel();
    await screen.findByText(EXECUTION_TEXT.stepDefault(1));
    fake.progress = makeProgress([makeStep(1, { status: 'in_progress', output: null, started_at: new Date().toISOString(), finished_at: null })]);
    await refetch(store);
    // The page's stream is open before the step starts (its ': connected' comment came first).
    await act(async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      sendCommandFrame({ command: 'docker compose up -d --wait', step_number: 1 });
      sendCommandFrame({ step_number: 1, output: ' Container redis  \u001b[32mStarted\u001b[0m\n' });
      sendCommandFrame({ step_number: 1, output: ' Container caddy  Waiting\r Container caddy  Healthy\n' });
    });
    await waitFor(() => expect(within(card(1)).getByTestId('step-1-output')).toHaveTextContent(/^Container redis Started\s+Container caddy Healthy$/));
    // The step's end refetches the progress at once.
    fake.progress = makeProgress([makeStep(1, { status: 'completed', output: 'all done', started_at: new Date().toISOString(), finished_at: new Date().toISOString() })]);
    await act(async () => {
      sendCommandFrame({ step_number: 1, status: 'completed', error_message: null });
      await new Promise((resolve) => setTimeout(resolve, 50));
    });
    await waitFor(() => expect(within(card(1)).getByText('completed')).toBeInTheDocument());
  });

  it('says why a dangerous step needs an explicit approval', async () => {
    useFakeExecution(makeProgress([makeStep(1, { status: 'waiting_approval', dangerous_reason: 'Drops the production database' })]));
    renderPanel();
    await screen.findByText(EXECUTION_TEXT.stepDefault(1));
    expect(within(card(1)).getByRole('note')).toHaveTextContent('Drops the production database');
  });

  it('cuts output to 5 lines; the Full Output modal shows it all, copies it, locks scrolling and closes on Escape or overlay', async () => {
    useFakeExecution(makeProgress([makeStep(1, { status: 'failed', output: LONG_OUTPUT })]));
    const { user } = renderPanel();
    // After user-event's setup, which installs its own clipboard.
    const writeText = jest.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await screen.findByText(EXECUTION_TEXT.stepDefault(1));
    expect(screen.getByTestId('step-1-output').textContent).toBe('line 1\nline 2\nline 3\nline 4\nline 5');

    await user.click(within(card(1)).getByRole('button', { name: FULL_OUTPUT_MODAL.open }));
    const dialog = screen.getByRole('dialog', { name: FULL_OUTPUT_MODAL.title });
    expect(dialog).toHaveAccessibleDescription(FULL_OUTPUT_MODAL.hint);
    expect(within(dialog).getByLabelText(FULL_OUTPUT_MODAL.title).textContent).toBe(LONG_OUTPUT);
    expect(document.body.style.overflow).toBe('hidden');

    await user.click(within(dialog).getByRole('button', { name: FULL_OUTPUT_MODAL.copy }));
    expect(writeText).toHaveBeenCalledWith(LONG_OUTPUT);

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(document.body.style.overflow).toBe('');

    await user.click(within(card(1)).getByRole('button', { name: FULL_OUTPUT_MODAL.open }));
    const backdrop = screen.getByRole('dialog').parentElement as HTMLElement;
    await user.pointer({ keys: '[MouseLeft]', target: backdrop });
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();

    await user.click(within(card(1)).getByRole('button', { name: FULL_OUTPUT_MODAL.open }));
    // The dialog's × is also named Close; the spec's button is the one that reads 'Close'.
    const closeButtons = within(screen.getByRole('dialog')).getAllByRole('button', { name: FULL_OUTPUT_MODAL.close });
    await user.click(closeButtons.find((button) => button.textContent === FULL_OUTPUT_MODAL.close) as HTMLElement);
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(document.body.style.overflow).toBe('');
  });

  it("all complete: the banner, and 'Proceed to Validation Stage' completes execution and makes validation current", async () => {
    seedProjects(makeProject({ id: PROJECT }));
    const stages = makeStages().map((stage, index) => ({ ...stage, is_completed: index < 3, is_active: index <= 3 }));
    db.projectStates.set(PROJECT, makeProjectState(PROJECT, { stages, current_stage_index: 3 }));
    useFakeExecution(makeProgress([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'completed' })]));
    const validation = useFakeValidation();
    const { user } = renderPanel();
    expect(await screen.findByText(EXECUTION_TEXT.allCompleted)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: EXECUTION_TEXT.proceedToValidation }));
    await waitFor(() => expect(db.projectStates.get(PROJECT)?.current_stage_index).toBe(4));
    expect(db.projectStates.get(PROJECT)?.stages[3].is_completed).toBe(true);
    // The plan was asked for with the fixed prompt, then validation triggered with no body message.
    expect(validation.agentUrls).toHaveLength(1);
    expect(new URL(validation.agentUrls[0]!).searchParams.get('message')).toBe(VALIDATION.planPrompt);
    expect(validation.triggers).toEqual([{ body: {}, projectId: String(PROJECT) }]);
  });

  it("'Proceed to Validation Stage' shows the start error and stays when the trigger fails", async () => {
    seedProjects(makeProject({ id: PROJECT }));
    const stages = makeStages().map((stage, index) => ({ ...stage, is_completed: index < 3, is_active: index <= 3 }));
    db.projectStates.set(PROJECT, makeProjectState(PROJECT, { stages, current_stage_index: 3 }));
    useFakeExecution(makeProgress([makeStep(1, { status: 'completed' })]));
    const validation = useFakeValidation();
    validation.triggerStatus = 409;
    const logged = await loggedErrors(async () => {
      const { user } = renderPanel();
      await user.click(await screen.findByRole('button', { name: EXECUTION_TEXT.proceedToValidation }));
      expect(await screen.findByText(VALIDATION_ERRORS.start)).toBeInTheDocument();
    });
    expect(logged).toEqual(['[execution.proceedToValidation]']);
    expect(db.projectStates.get(PROJECT)?.current_stage_index).toBe(3);
  });
});

describe('execution chat panel (the one chat, with each message under its speaker)', () => {
  /** Streams `frames` 20 ms apart, once `before` (when given) has resolved. */
  function serveAgent(frames: string[], before?: Promise<void>): { urls: string[] } {
    const seen = { urls: [] as string[] };
    server.use(
      http.get(api('/execution/agent'), ({ request }) => {
        seen.urls.push(request.url);
        const encoder = new TextEncoder();
        const stream = new ReadableStream<Uint8Array>({
          async start(controller) {
            await before;
            for (const frame of frames) {
              await new Promise((resolve) => setTimeout(resolve, 20));
              controller.enqueue(encoder.encode(`data: ${frame}\n\n`));
            }
            controller.close();
          },
        });
        return new HttpResponse(stream, { headers: { 'Content-Type': 'text/event-stream' } });
      }),
    );
    return seen;
  }

  it('has exactly the Chat and Terminal tabs; a message shows Thinking..., then the streamed reply and the thread', async () => {
    useFakeExecution(makeProgress([]));
    // The reply waits until 'Thinking...' has been seen, however slow the machine.
    let startReply: () => void = () => undefined;
    const replyStarts = new Promise<void>((resolve) => (startReply = resolve));
    const seen = serveAgent(
      [
        '{"event":"on_chat_model_stream","thread_id":"t-9","chunk":{"content":"Step 2 "}}',
        '{"event":"on_chat_model_stream","thread_id":"t-9","chunk":{"content":"is next."}}',
        '{"event":"on_chat_model_end","thread_id":"t-9"}',
      ],
      replyStarts,
    );
    const { user } = await renderStageWithChat();
    expect(screen.getAllByRole('tab').map((tab) => tab.textContent)).toEqual([...TERMINAL.tabs]);
    expect(screen.getByRole('tab', { name: 'Chat' })).toHaveAttribute('aria-selected', 'true');

    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'What runs next?{Enter}');
    expect(await screen.findByText(CHAT.thinking)).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeDisabled();
    startReply();
    expect(await screen.findByText('Step 2 is next.')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Message' })).toBeEnabled());
    expect(screen.getByText(/Thread ID/)).toHaveTextContent('t-9');
    expect(new URL(seen.urls[0]).searchParams.get('message')).toBe('What runs next?');
  });

  it('a reload shows the stored conversation, and the next message continues its thread', async () => {
    useFakeExecution(makeProgress([]));
    db.chatThreads.set(`${PROJECT}:execution`, {
      thread_id: 't-stored',
      model: 'offline-planner',
      messages: [
        { role: 'user', content: 'Why did step 1 fail?' },
        { role: 'assistant', content: 'Step 1 failed: the port is taken.' },
      ],
    });
    const seen = serveAgent(['{"event":"on_chat_model_stream","thread_id":"t-stored","chunk":{"content":"Still taken."}}', '{"event":"on_chat_model_end","thread_id":"t-stored"}']);
    const { user } = await renderStageWithChat();
    const messages = screen.getByRole('list', { name: 'Messages' });
    expect(await within(messages).findByText('Step 1 failed: the port is taken.')).toBeInTheDocument();
    expect(within(messages).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['YouWhy did step 1 fail?', 'AssistantStep 1 failed: the port is taken.']);
    expect(screen.getByText(/Thread ID/)).toHaveTextContent('t-stored');

    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'And now?{Enter}');
    expect(await within(messages).findByText('Still taken.')).toBeInTheDocument();
    expect(new URL(seen.urls[0]).searchParams.get('thread_id')).toBe('t-stored');
    expect(within(messages).getAllByRole('listitem')).toHaveLength(4);
  });

  it('a message sent before the stored conversation arrived stays after it, shown once', async () => {
    useFakeExecution(makeProgress([]));
    let answerHistory: () => void = () => undefined;
    const historyAnswered = new Promise<void>((resolve) => (answerHistory = resolve));
    server.use(
      http.get(api('/execution/thread'), async () => {
        await historyAnswered;
        // The server stored the live turn's message when it began.
        return HttpResponse.json({
          thread_id: 't-1',
          model: 'offline-planner',
          messages: [
            { role: 'user', content: 'Earlier question' },
            { role: 'assistant', content: 'Earlier answer' },
            { role: 'user', content: 'Live question' },
          ],
        });
      }),
    );
    serveAgent(['{"event":"on_chat_model_stream","thread_id":"t-1","chunk":{"content":"Live answer"}}', '{"event":"on_chat_model_end","thread_id":"t-1"}']);
    const { user } = await renderStageWithChat();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Live question{Enter}');
    const messages = screen.getByRole('list', { name: 'Messages' });
    expect(await within(messages).findByText('Live answer')).toBeInTheDocument();
    answerHistory();
    expect(await within(messages).findByText('Earlier answer')).toBeInTheDocument();
    expect(within(messages).getAllByRole('listitem').map((item) => item.textContent)).toEqual([
      'YouEarlier question',
      'AssistantEarlier answer',
      'YouLive question',
      'AssistantLive answer',
    ]);
  });

  it('a failed stream says so; Stop adds the stopped message', async () => {
    useFakeExecution(makeProgress([]));
    server.use(http.get(api('/execution/agent'), () => HttpResponse.json({ detail: 'Out of credits' }, { status: 500 })));
    jest.spyOn(console, 'error').mockImplementation(() => undefined);
    const { user } = await renderStageWithChat();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'hello{Enter}');
    expect(await screen.findByText(CHAT.errorReply)).toBeInTheDocument();

    serveAgent(Array.from({ length: 50 }, () => '{"event":"on_chat_model_stream","thread_id":"t-1","chunk":{"content":"."}}'));
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'again{Enter}');
    await user.click(await screen.findByRole('button', { name: CHAT.stop }));
    expect(await screen.findByText(CHAT.generationStopped)).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'Message' })).toBeEnabled();
  });
});
