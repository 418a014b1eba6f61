import { waitFor } from '@testing-library/react';
import { executionApi } from '../../../src/client/features/execution/executionApi';
import { autoRetryDecision, nextAutoApproval, toViewSteps } from '../../../src/client/common/steps/stepModel';
import { autoApproveToggled, autoRetryToggled, selectPendingActions } from '../../../src/client/features/execution/executionSlice';
import { EXECUTION, INSTALLATION_ID_KEY } from '../../../src/shared/constants';
import { makeAppStore } from '../utils/store';
import { makeProgress, makeStep, useFakeExecution } from './executionFixtures';

const PROJECT = 7;

/** One poll of the progress, as the stage's 5 s polling would make it. */
async function poll(store: ReturnType<typeof makeAppStore>): Promise<void> {
  const request = store.dispatch(executionApi.endpoints.getExecutionProgress.initiate(PROJECT, { forceRefetch: true }));
  await request;
  request.unsubscribe();
}

/**
 * Waits until every step action the sagas asked for has its answer, so any approve-step call they made
 * has reached the fake server. The sagas decide while the poll's answer or the toggle is dispatched,
 * and an action stays pending until its call answers.
 */
async function settle(store: ReturnType<typeof makeAppStore>): Promise<void> {
  await waitFor(() => expect(Object.values(selectPendingActions(store.getState())).filter((action) => !action.settled)).toEqual([]));
}

beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

describe('auto-approve and auto-retry rules', () => {
  it('picks the waiting step numbered highest completed + 1, or 1 when none completed', () => {
    const steps = toViewSteps([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'waiting_approval' }), makeStep(3, { status: 'waiting_approval' })]);
    expect(nextAutoApproval(steps)?.number).toBe(2);
    expect(nextAutoApproval(toViewSteps([makeStep(1, { status: 'waiting_approval' })]))?.number).toBe(1);
    expect(nextAutoApproval(toViewSteps([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'in_progress' })]))).toBeNull();
    expect(nextAutoApproval(toViewSteps([makeStep(1, { status: 'waiting_approval', dangerous_reason: 'drops a database' })]))).toBeNull();
  });

  it('reads the step number from step_number, else number, else the position, and sorts by it', () => {
    const steps = toViewSteps([{ number: 3, status: 'pending' }, { step_number: 1, status: 'completed' }, { prompt: 'x' }] as never);
    expect(steps.map((step) => [step.number, step.status])).toEqual([
      [1, 'completed'],
      [3, 'pending'],
      [3, 'pending'],
    ]);
  });

  it('retries only the first failed step, while its count is under the limit, and names the step it leaves', () => {
    const steps = toViewSteps([makeStep(1, { status: 'failed' }), makeStep(2, { status: 'failed' })]);
    const retried = (counts: Record<string, number>): number | undefined => {
      const decision = autoRetryDecision(steps, counts, 3, 7);
      return decision && 'retry' in decision ? decision.retry.number : undefined;
    };
    expect(retried({})).toBe(1);
    expect(retried({ '7:1': 2 })).toBe(1);
    expect(autoRetryDecision(steps, { '7:1': 3 }, 3, 7)).toEqual({ skip: expect.objectContaining({ number: 1 }), reason: 'exhausted' });
    // Another project's retries of its step 1 are its own.
    expect(retried({ '8:1': 3 })).toBe(1);
    const dangerous = toViewSteps([makeStep(1, { status: 'failed', dangerous_reason: 'deletes /etc' })]);
    expect(autoRetryDecision(dangerous, {}, 3, 7)).toEqual({ skip: expect.objectContaining({ number: 1 }), reason: 'dangerous' });
    expect(autoRetryDecision(toViewSteps([makeStep(1, { status: 'completed' })]), {}, 3, 7)).toBeNull();
  });
});

describe('auto-approve saga (real store, msw)', () => {
  it('approves the next waiting step once the toggle is on, and only that one', async () => {
    const fake = useFakeExecution(
      makeProgress([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'waiting_approval' }), makeStep(3, { status: 'waiting_approval' })]),
    );
    // Like the server: an approved step runs.
    fake.onApprove = (body) => {
      fake.progress = makeProgress([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'in_progress' }), makeStep(3, { status: 'waiting_approval' })]);
      expect(body.step_number).toBe(2);
    };
    const store = makeAppStore();
    await poll(store);
    await settle(store);
    expect(fake.approvals).toEqual([]);

    store.dispatch(autoApproveToggled(true));
    await waitFor(() => expect(fake.approvals).toHaveLength(1));
    expect(fake.approvals[0]).toEqual({ plan_id: 11, step_number: 2, approved: true, projectId: String(PROJECT) });

    // Step 2 is running: step 3 waits for it to complete.
    await poll(store);
    await settle(store);
    expect(fake.approvals).toHaveLength(1);
  });

  it('sends nothing more for a step whose approval is still pending', async () => {
    const fake = useFakeExecution(makeProgress([makeStep(1, { status: 'waiting_approval' })]));
    // The server accepted the approval but has not started the step yet.
    fake.answer = 'waiting_approval';
    const store = makeAppStore();
    store.dispatch(autoApproveToggled(true));
    await poll(store);
    await waitFor(() => expect(fake.approvals).toHaveLength(1));
    await poll(store);
    await settle(store);
    expect(fake.approvals).toHaveLength(1);
  });

  it('approves step 1 when nothing is completed yet', async () => {
    const fake = useFakeExecution(makeProgress([makeStep(1, { status: 'waiting_approval' }), makeStep(2, { status: 'waiting_approval' })]));
    const store = makeAppStore();
    store.dispatch(autoApproveToggled(true));
    await poll(store);
    await waitFor(() => expect(fake.approvals.map((a) => a.step_number)).toEqual([1]));
  });

  it('never approves a step the server marked dangerous', async () => {
    const fake = useFakeExecution(
      makeProgress([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'waiting_approval', dangerous_reason: 'Recursive delete of /' })]),
    );
    const store = makeAppStore();
    store.dispatch(autoApproveToggled(true));
    await poll(store);
    await poll(store);
    await settle(store);
    expect(fake.approvals).toEqual([]);
  });

  it('does nothing while the toggle is off', async () => {
    const fake = useFakeExecution(makeProgress([makeStep(1, { status: 'waiting_approval' })]));
    const store = makeAppStore();
    await poll(store);
    store.dispatch(autoApproveToggled(false));
    await settle(store);
    expect(fake.approvals).toEqual([]);
  });
});

describe('auto-retry saga (real store, msw, local storage)', () => {
  it('re-executes the first failed step at most 3 times, counting in local storage', async () => {
    const fake = useFakeExecution(
      makeProgress([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'failed' }), makeStep(3, { status: 'failed' })]),
    );
    // The server answers `in_progress`, then the step fails again at the next poll.
    fake.answer = 'in_progress';
    const store = makeAppStore();
    store.dispatch(autoRetryToggled(true));
    for (let poll_ = 0; poll_ < 6; poll_ += 1) {
      await poll(store);
      await settle(store);
    }
    expect(fake.approvals.map((a) => [a.step_number, a.approved])).toEqual([
      [2, true],
      [2, true],
      [2, true],
    ]);
    expect(JSON.parse(localStorage.getItem(EXECUTION.retryCountStorageKey) ?? '{}')).toEqual({ [`${PROJECT}:2`]: 3 });
  });

  it('keeps the count across page loads: a step already retried 3 times is left alone', async () => {
    localStorage.setItem(EXECUTION.retryCountStorageKey, JSON.stringify({ [`${PROJECT}:1`]: 3 }));
    const fake = useFakeExecution(makeProgress([makeStep(1, { status: 'failed' }), makeStep(2, { status: 'failed' })]));
    const store = makeAppStore();
    store.dispatch(autoRetryToggled(true));
    await poll(store);
    await settle(store);
    // Only the first failed step is ever retried; it is out of retries, so nothing runs.
    expect(fake.approvals).toEqual([]);
  });

  it("does not count another project's retries: a new project's step gets its own 3", async () => {
    localStorage.setItem(EXECUTION.retryCountStorageKey, JSON.stringify({ [`${PROJECT + 1}:1`]: 3 }));
    const fake = useFakeExecution(makeProgress([makeStep(1, { status: 'failed' })]));
    fake.answer = 'in_progress';
    const store = makeAppStore();
    store.dispatch(autoRetryToggled(true));
    await poll(store);
    await settle(store);
    expect(fake.approvals.map((a) => a.step_number)).toEqual([1]);
  });

  it('leaves a failed dangerous step to the user', async () => {
    const fake = useFakeExecution(makeProgress([makeStep(1, { status: 'failed', dangerous_reason: 'Formats a disk' })]));
    const store = makeAppStore();
    store.dispatch(autoRetryToggled(true));
    await poll(store);
    await settle(store);
    expect(fake.approvals).toEqual([]);
  });
});
