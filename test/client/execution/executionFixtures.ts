import { http, HttpResponse } from 'msw';
import type { ApproveStepResponse, CancelStepBody, ExecutionApproveStepBody, ExecutionProgress, Step } from '../../../src/shared/api/execution';
import { api, server } from '../utils/server';

export function makeStep(step_number: number, overrides: Partial<Step> = {}): Step {
  return {
    step_number,
    status: 'pending',
    command: `echo step ${step_number}`,
    prompt: `Do step ${step_number}`,
    description: '',
    output: null,
    error_message: null,
    ...overrides,
  };
}

export function makeProgress(steps: Step[], overrides: Partial<ExecutionProgress> = {}): ExecutionProgress {
  return {
    id: 11,
    currentStep: steps.find((step) => step.status === 'in_progress')?.step_number ?? 0,
    totalSteps: steps.length,
    steps,
    ...overrides,
  };
}

/** A fake execution server: `progress` is served as is; approvals are recorded and answered with `answer`. */
export interface FakeExecution {
  progress: ExecutionProgress | Record<string, unknown>;
  approvals: Array<ExecutionApproveStepBody & { projectId: string | null }>;
  /** The status the approve-step call answers; default in_progress. */
  answer: ApproveStepResponse['status'];
  /** Called on each approval, e.g. to change `progress` as the server would. */
  onApprove?: (body: ExecutionApproveStepBody) => void;
  /** The cancel-step calls received. */
  cancels: CancelStepBody[];
}

export function useFakeExecution(initial: FakeExecution['progress']): FakeExecution {
  const fake: FakeExecution = { progress: initial, approvals: [], answer: 'in_progress', cancels: [] };
  server.use(
    http.get(api('/execution/progress'), () => HttpResponse.json(fake.progress)),
    http.post(api('/execution/approve-step'), async ({ request }) => {
      const body = (await request.json()) as ExecutionApproveStepBody;
      fake.approvals.push({ ...body, projectId: request.headers.get('Project-Id') });
      fake.onApprove?.(body);
      return HttpResponse.json({ step_number: body.step_number, status: fake.answer } satisfies ApproveStepResponse);
    }),
    http.post(api('/execution/cancel-step'), async ({ request }) => {
      const body = (await request.json()) as CancelStepBody;
      fake.cancels.push(body);
      return HttpResponse.json(makeStep(body.step_number, { status: 'failed', error_message: 'Cancelled by you' }));
    }),
  );
  return fake;
}
