import { http, HttpResponse } from 'msw';
import type { ApproveStepResponse, ExecutionApproveStepBody, ExecutionProgress, Step } from '../../../src/shared/api/execution';
import type { DriftCheck, ReleaseSummary, RollbackResponse } from '../../../src/shared/api/releases';

const api = (path: string): string => `http://localhost/api${path}`;

/**
 * Releases, roll backs and drift checks by project, as the server keeps them. A roll back is a step of
 * the execution plan: approving it starts it, the next progress poll finds it completed and the server
 * lists the restored release as a new one, as the real server records it after the step.
 */
export const releasesDb = {
  releases: new Map<number, ReleaseSummary[]>(),
  drift: new Map<number, DriftCheck>(),
  /** The drift check the next "Check drift" answers. */
  nextDrift: null as DriftCheck | null,
  steps: new Map<number, Step[]>(),
  approved: [] as ExecutionApproveStepBody[],
};

export function resetReleasesDb(): void {
  releasesDb.releases = new Map();
  releasesDb.drift = new Map();
  releasesDb.nextDrift = null;
  releasesDb.steps = new Map();
  releasesDb.approved = [];
}

const PLAN_ID = 31;

export const releasesHandlers = [
  http.get(api('/projects/:id/releases'), ({ params }) => HttpResponse.json({ releases: releasesDb.releases.get(Number(params.id)) ?? [] })),
  http.post(api('/projects/:id/releases/:number/rollback'), ({ params }) => {
    const id = Number(params.id);
    const number = Number(params.number);
    const target = (releasesDb.releases.get(id) ?? []).find((r) => r.number === number);
    if (!target) return HttpResponse.json({ detail: `The project has no release ${number}` }, { status: 404 });
    const steps = releasesDb.steps.get(id) ?? [];
    const command = `ssh -F ssh-keys/config da-server 'bash -s' <<'REMOTE'\n# restore release ${number}\nREMOTE`;
    const step: Step = { step_number: steps.length + 1, status: 'waiting_approval', command, prompt: `Roll back to release ${number}`, description: `Roll back to release ${number}`, output: null, error_message: null, started_at: null, finished_at: null };
    releasesDb.steps.set(id, [...steps, step]);
    const body: RollbackResponse = { plan_id: PLAN_ID, step_number: step.step_number, command, detail: `Step ${step.step_number} rolls back to release ${number}: approve it to run it.` };
    return HttpResponse.json(body);
  }),
  http.post(api('/execution/approve-step'), async ({ request }) => {
    const id = Number(request.headers.get('Project-Id'));
    const body = (await request.json()) as ExecutionApproveStepBody;
    releasesDb.approved.push(body);
    const steps = releasesDb.steps.get(id) ?? [];
    const status = body.approved ? 'in_progress' : 'rejected';
    releasesDb.steps.set(id, steps.map((s) => (s.step_number === body.step_number ? { ...s, status, started_at: '2026-11-28T10:00:00.000Z' } : s)));
    return HttpResponse.json({ step_number: body.step_number, status } satisfies ApproveStepResponse);
  }),
  http.get(api('/execution/progress'), ({ request }) => {
    const id = Number(request.headers.get('Project-Id'));
    // The running roll back ends between two polls: restored and healthy, and recorded as the newest release.
    const steps = (releasesDb.steps.get(id) ?? []).map((s) => {
      if (s.status !== 'in_progress') return s;
      const list = releasesDb.releases.get(id) ?? [];
      const target = list.find((r) => s.prompt.endsWith(` ${r.number}`))!;
      releasesDb.releases.set(id, [{ ...target, number: list[0]!.number + 1, status: 'live', created_at: '2026-11-28T10:00:03.000Z' }, ...list.map((r) => ({ ...r, status: r.status === 'live' ? ('superseded' as const) : r.status }))]);
      return { ...s, status: 'completed' as const, output: `release ${target.number} restored and healthy\n`, finished_at: '2026-11-28T10:00:03.200Z' };
    });
    releasesDb.steps.set(id, steps);
    const progress: ExecutionProgress = { id: PLAN_ID, currentStep: 0, totalSteps: steps.length, steps };
    return HttpResponse.json(progress);
  }),
  http.get(api('/projects/:id/drift'), ({ params }) => HttpResponse.json({ check: releasesDb.drift.get(Number(params.id)) ?? null })),
  http.post(api('/projects/:id/drift'), ({ params }) => {
    const check = releasesDb.nextDrift;
    if (!check) return HttpResponse.json({ detail: 'no drift check prepared' }, { status: 409 });
    releasesDb.drift.set(Number(params.id), check);
    return HttpResponse.json(check);
  }),
];
