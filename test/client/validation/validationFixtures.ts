import { http, HttpResponse } from 'msw';
import type { DocumentationResponse } from '../../../src/shared/api/documentation';
import type { Step } from '../../../src/shared/api/execution';
import type { ValidationApproveStepBody, ValidationApproveStepResponse, ValidationPlanResponse, ValidationProgress } from '../../../src/shared/api/validation';
import { DOCUMENTATION } from '../../../src/shared/constants';
import { makeStep } from '../execution/executionFixtures';
import { api, server } from '../utils/server';

/** An SSE answer of `frames` (JSON strings), 10 ms apart. */
export function sseResponse(frames: string[]): HttpResponse<ReadableStream<Uint8Array>> {
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const frame of frames) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        controller.enqueue(encoder.encode(`data: ${frame}\n\n`));
      }
      controller.close();
    },
  });
  return new HttpResponse(stream, { headers: { 'Content-Type': 'text/event-stream' } });
}

export const AGENT_FRAMES = [
  '{"event":"on_chat_model_stream","thread_id":"v-1","chunk":{"content":"# Validation Plan"}}',
  '{"event":"on_chat_model_end","thread_id":"v-1"}',
];

/** A fake validation and documentation server: state is served as is; every call is recorded. */
export interface FakeValidation {
  plan: ValidationPlanResponse;
  progress: ValidationProgress | Record<string, unknown>;
  documentation: DocumentationResponse;
  agentUrls: string[];
  triggers: Array<{ body: unknown; projectId: string | null }>;
  approvals: ValidationApproveStepBody[];
  cancels: unknown[];
  generations: unknown[];
  /** The trigger's answer status (200 unless set). */
  triggerStatus: number;
  onTrigger?: () => void;
  onApprove?: (body: ValidationApproveStepBody) => void;
}

export function useFakeValidation(steps: Step[] = [], plan: ValidationPlanResponse = { status: 'none', plan: null }): FakeValidation {
  const fake: FakeValidation = {
    plan,
    progress: { steps },
    documentation: {
      status: 'missing',
      documentation: DOCUMENTATION.documentationPlaceholders[0],
      quickstart: DOCUMENTATION.quickstartPlaceholders[0],
      key_value_data: {},
    },
    agentUrls: [],
    triggers: [],
    approvals: [],
    cancels: [],
    generations: [],
    triggerStatus: 200,
  };
  server.use(
    http.get(api('/validation/plan'), () => HttpResponse.json(fake.plan)),
    http.get(api('/validation/progress'), () => HttpResponse.json(fake.progress)),
    http.get(api('/validation/agent'), ({ request }) => {
      fake.agentUrls.push(request.url);
      fake.plan = { status: 'ready', plan: '# Validation Plan\n\n## Step 1: Check\n' };
      return sseResponse(AGENT_FRAMES);
    }),
    http.post(api('/validation/trigger'), async ({ request }) => {
      fake.triggers.push({ body: await request.json(), projectId: request.headers.get('Project-Id') });
      if (fake.triggerStatus !== 200) return HttpResponse.json({ detail: 'no plan' }, { status: fake.triggerStatus });
      fake.onTrigger?.();
      return HttpResponse.json({ status: 'success' });
    }),
    http.post(api('/validation/approve-step'), async ({ request }) => {
      const body = (await request.json()) as ValidationApproveStepBody;
      fake.approvals.push(body);
      fake.onApprove?.(body);
      return HttpResponse.json({ step_number: body.step_number, status: 'in_progress' } satisfies ValidationApproveStepResponse);
    }),
    http.post(api('/validation/cancel-step'), async ({ request }) => {
      const body = (await request.json()) as { step_number: number };
      fake.cancels.push(body);
      const stopped = makeStep(body.step_number, { status: 'failed', error_message: 'Cancelled by you' });
      fake.progress = { steps: [stopped] };
      return HttpResponse.json(stopped);
    }),
    http.get(api('/documentation/current'), () => HttpResponse.json(fake.documentation)),
    http.post(api('/documentation/generate'), async ({ request }) => {
      fake.generations.push(await request.json());
      fake.documentation = { status: 'ready', documentation: '# Docs', quickstart: '# Start', key_value_data: { workspace_directory: '/home/u/workspace' } };
      return sseResponse(['{"event":"on_chat_model_stream","thread_id":"d-1","chunk":{"content":"Done"}}', '{"event":"on_chat_model_end","thread_id":"d-1"}']);
    }),
  );
  return fake;
}
