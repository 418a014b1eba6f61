import { act, screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { SandboxInitStatus } from '../../../src/client/common/sandbox/SandboxInitStatus';
import { selectSandboxInit } from '../../../src/client/common/sandbox/sandboxSlice';
import { implementationConfirmRequested } from '../../../src/client/features/planning/planningSlice';
import type { ExecutionTriggerBody } from '../../../src/shared/api/execution';
import type { SandboxInitializeResponse, SandboxProvisioningStatus } from '../../../src/shared/api/sandbox';
import { CALL_ERRORS, INSTALLATION_ID_KEY, SANDBOX_INIT, SANDBOX_INIT_ERRORS } from '../../../src/shared/constants';
import { makeProject, makeProjectState } from '../utils/factories';
import { renderWithProviders } from '../utils/renderWithProviders';
import { api, db, seedProjects, server } from '../utils/server';
import { makeAppStore } from '../utils/store';

const PROJECT = 7;

interface FakeSandbox {
  status: SandboxProvisioningStatus;
  /** Answers of the initialise call, in order; the last one repeats. */
  answers: SandboxInitializeResponse[];
  statusCalls: number;
  initCalls: number;
  initBodies: unknown[];
  triggers: ExecutionTriggerBody[];
}

function useFakeSandbox(status: SandboxProvisioningStatus, answers: SandboxInitializeResponse[]): FakeSandbox {
  const fake: FakeSandbox = { status, answers, statusCalls: 0, initCalls: 0, initBodies: [], triggers: [] };
  server.use(
    http.get(api('/sandbox/status/:projectId'), () => {
      fake.statusCalls += 1;
      return HttpResponse.json({ status: fake.status });
    }),
    http.post(api('/sandbox/initialize/:projectId'), async ({ request }) => {
      fake.initBodies.push(await request.json());
      const answer = fake.answers[Math.min(fake.initCalls, fake.answers.length - 1)];
      fake.initCalls += 1;
      return HttpResponse.json(answer);
    }),
    http.post(api('/execution/trigger'), async ({ request }) => {
      fake.triggers.push((await request.json()) as ExecutionTriggerBody);
      return HttpResponse.json({ status: 'success' });
    }),
  );
  return fake;
}

const creating: SandboxInitializeResponse = { status: 'creating', detail: 'Sandbox is being created' };
const success: SandboxInitializeResponse = { status: 'success', detail: 'Sandbox ready' };

beforeEach(() => {
  sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
  seedProjects(makeProject({ id: PROJECT }));
  db.projectStates.set(PROJECT, makeProjectState(PROJECT, { current_stage_index: 2 }));
  jest.useFakeTimers({ advanceTimers: false, doNotFake: ['queueMicrotask', 'nextTick', 'setImmediate'] });
});

afterEach(() => {
  jest.useRealTimers();
});

/** Lets pending requests and saga steps run without moving the clock. */
async function flush(): Promise<void> {
  await act(async () => {
    for (let i = 0; i < 20; i += 1) await jest.advanceTimersByTimeAsync(0);
  });
}

describe('implementation confirm: sandbox initialisation loop (fake timers)', () => {
  it('asks again every 10 s while creating, up to 30 attempts, then times out', async () => {
    const fake = useFakeSandbox('CREATING', [creating]);
    const store = makeAppStore();
    store.dispatch(implementationConfirmRequested({ projectId: PROJECT }));
    await flush();
    expect(fake.initCalls).toBe(1);
    expect(fake.initBodies[0]).toEqual({});

    // Nothing happens before the 10 s are up.
    await act(() => jest.advanceTimersByTimeAsync(SANDBOX_INIT.retryIntervalMs - 1));
    expect(fake.initCalls).toBe(1);
    await act(() => jest.advanceTimersByTimeAsync(1));
    await flush();
    expect(fake.initCalls).toBe(2);

    for (let attempt = 3; attempt <= SANDBOX_INIT.maxAttempts; attempt += 1) {
      await act(() => jest.advanceTimersByTimeAsync(SANDBOX_INIT.retryIntervalMs));
      await flush();
      expect(fake.initCalls).toBe(attempt);
    }
    expect(selectSandboxInit(store.getState())).toMatchObject({
      phase: 'failed',
      attempt: SANDBOX_INIT.maxAttempts,
      error: SANDBOX_INIT_ERRORS.timeout,
      credentials: false,
    });
    // No 31st attempt, and execution never started.
    await act(() => jest.advanceTimersByTimeAsync(SANDBOX_INIT.retryIntervalMs * 3));
    expect(fake.initCalls).toBe(SANDBOX_INIT.maxAttempts);
    expect(fake.statusCalls).toBe(SANDBOX_INIT.maxAttempts);
    expect(fake.triggers).toEqual([]);
  });

  it('starts execution and moves to the execution stage (index 3) once the sandbox is ready', async () => {
    const fake = useFakeSandbox('CREATING', [creating, creating, success]);
    const store = makeAppStore();
    store.dispatch(implementationConfirmRequested({ projectId: PROJECT }));
    await flush();
    await act(() => jest.advanceTimersByTimeAsync(SANDBOX_INIT.retryIntervalMs));
    await flush();
    await act(() => jest.advanceTimersByTimeAsync(SANDBOX_INIT.retryIntervalMs));
    await flush();
    await flush();
    expect(fake.initCalls).toBe(3);
    expect(fake.triggers).toEqual([{ message: 'Start execution' }]);
    expect(selectSandboxInit(store.getState()).phase).toBe('done');
    const state = db.projectStates.get(PROJECT);
    expect(state?.stages.find((stage) => stage.stage_id === 'implementation')?.is_completed).toBe(true);
    expect(state?.current_stage_index).toBe(3);
  });

  it("stops at once with the spec's message when the container FAILED", async () => {
    const fake = useFakeSandbox('FAILED', [creating]);
    const store = makeAppStore();
    store.dispatch(implementationConfirmRequested({ projectId: PROJECT }));
    await flush();
    expect(selectSandboxInit(store.getState())).toMatchObject({ phase: 'failed', error: SANDBOX_INIT_ERRORS.containerFailed });
    expect(fake.initCalls).toBe(0);
    expect(fake.triggers).toEqual([]);
  });

  it('notices a container that fails while being created', async () => {
    const fake = useFakeSandbox('CREATING', [creating]);
    const store = makeAppStore();
    store.dispatch(implementationConfirmRequested({ projectId: PROJECT }));
    await flush();
    fake.status = 'FAILED';
    await act(() => jest.advanceTimersByTimeAsync(SANDBOX_INIT.retryIntervalMs));
    await flush();
    expect(selectSandboxInit(store.getState()).error).toBe(SANDBOX_INIT_ERRORS.containerFailed);
    expect(fake.initCalls).toBe(1);
  });

  it("shows a failed initialisation's detail, and the generic text when it has none", async () => {
    useFakeSandbox('READY', [{ status: 'failed', detail: '' }]);
    const store = makeAppStore();
    store.dispatch(implementationConfirmRequested({ projectId: PROJECT }));
    await flush();
    expect(selectSandboxInit(store.getState())).toMatchObject({ phase: 'failed', error: SANDBOX_INIT_ERRORS.failed, credentials: false });
  });

  it('refuses a project id that is not a number', async () => {
    const fake = useFakeSandbox('READY', [success]);
    const store = makeAppStore();
    store.dispatch(implementationConfirmRequested({ projectId: Number.NaN }));
    await flush();
    expect(selectSandboxInit(store.getState()).error).toBe(CALL_ERRORS.invalidProjectId);
    expect(fake.statusCalls).toBe(0);
  });

  it("the credentials case: the message, the note, and 'Return to Requirements'", async () => {
    useFakeSandbox('READY', [{ status: 'failed', detail: 'Missing cloud provider API key for AWS' }]);
    const { store, user } = renderWithProviders(<SandboxInitStatus projectId={PROJECT} />, { route: `/app/${PROJECT}`, fakeTimers: true });
    act(() => {
      store.dispatch(implementationConfirmRequested({ projectId: PROJECT }));
    });
    await flush();
    expect(selectSandboxInit(store.getState()).credentials).toBe(true);
    expect(screen.getByRole('alert')).toHaveTextContent('Missing cloud provider API key for AWS');
    expect(screen.getByText(SANDBOX_INIT_ERRORS.credentialsNote)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: SANDBOX_INIT_ERRORS.returnToRequirements }));
    await flush();
    await waitFor(() => expect(db.projectStates.get(PROJECT)?.current_stage_index).toBe(0));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('treats an HTTP error mentioning credentials the same way, without the button for other errors', async () => {
    server.use(
      http.get(api('/sandbox/status/:projectId'), () => HttpResponse.json({ status: 'READY' })),
      http.post(api('/sandbox/initialize/:projectId'), () => HttpResponse.json({ detail: 'Invalid credentials for the cloud provider' }, { status: 400 })),
    );
    const { store } = renderWithProviders(<SandboxInitStatus projectId={PROJECT} />, { route: `/app/${PROJECT}`, fakeTimers: true });
    act(() => {
      store.dispatch(implementationConfirmRequested({ projectId: PROJECT }));
    });
    await flush();
    expect(screen.getByRole('alert')).toHaveTextContent('Invalid credentials for the cloud provider');
    expect(screen.getByRole('button', { name: SANDBOX_INIT_ERRORS.returnToRequirements })).toBeInTheDocument();
  });

  it('shows the attempt while initialising, and no Return button for a non-credentials error', async () => {
    useFakeSandbox('CREATING', [creating]);
    const { store } = renderWithProviders(<SandboxInitStatus projectId={PROJECT} />, { route: `/app/${PROJECT}`, fakeTimers: true });
    act(() => {
      store.dispatch(implementationConfirmRequested({ projectId: PROJECT }));
    });
    await flush();
    expect(screen.getByRole('status')).toHaveTextContent(`attempt 1 of ${SANDBOX_INIT.maxAttempts}`);
    server.use(http.get(api('/sandbox/status/:projectId'), () => HttpResponse.json({ status: 'FAILED' })));
    await act(() => jest.advanceTimersByTimeAsync(SANDBOX_INIT.retryIntervalMs));
    await flush();
    expect(screen.getByRole('alert')).toHaveTextContent(SANDBOX_INIT_ERRORS.containerFailed);
    expect(screen.queryByRole('button', { name: SANDBOX_INIT_ERRORS.returnToRequirements })).not.toBeInTheDocument();
  });
});
