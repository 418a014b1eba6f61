import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { ExecutionStage } from '../../../src/client/features/execution/ExecutionStage';
import { executionApi } from '../../../src/client/features/execution/executionApi';
import type { SandboxPreflightResponse } from '../../../src/shared/api/sandbox';
import { EXECUTION_TEXT, INSTALLATION_ID_KEY } from '../../../src/shared/constants';
import { makeProgress, makeStep, useFakeExecution } from '../execution/executionFixtures';
import { makeProject, makeStages } from '../utils/factories';
import { renderWithProviders } from '../utils/renderWithProviders';
import { api, server } from '../utils/server';

const PROJECT = 7;

function servePreflight(answer: SandboxPreflightResponse): { calls: number } {
  const seen = { calls: 0 };
  server.use(
    http.get(api('/sandboxes/:projectId/preflight'), ({ params }) => {
      seen.calls += 1;
      return params.projectId === String(PROJECT) ? HttpResponse.json(answer) : HttpResponse.json({ detail: 'Not found' }, { status: 404 });
    }),
  );
  return seen;
}

const renderStage = () =>
  renderWithProviders(<ExecutionStage projectId={PROJECT} project={makeProject({ id: PROJECT })} stage={makeStages()[3]} stages={makeStages()} />, {
    route: `/app/${PROJECT}`,
  });

beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

describe('tool preflight in the execution stage', () => {
  it('names each tool the plan calls that the sandbox lacks, with its steps, before step 1', async () => {
    useFakeExecution(makeProgress([makeStep(1, { status: 'waiting_approval', description: 'Create the server' }), makeStep(2, {})]));
    const seen = servePreflight({
      missing_tools: [
        { tool: 'doctl', steps: [1, 2] },
        { tool: 'az', steps: [2] },
      ],
      checked_at: '2026-11-24T08:00:00.000Z',
    });
    renderStage();
    const notice = await screen.findByRole('status', { name: 'Tools missing from the sandbox' });
    expect(within(notice).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['doctl — steps 1, 2', 'az — step 2']);
    expect(notice).toHaveTextContent('unless an earlier step installs the tool');
    const firstStep = await screen.findByRole('listitem', { name: /^Step 1:/ });
    // Before step 1 in the page's order.
    expect(notice.compareDocumentPosition(firstStep) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(seen.calls).toBeGreaterThan(0);
  });

  it('shows nothing when the sandbox has every tool the plan calls', async () => {
    useFakeExecution(makeProgress([makeStep(1, { status: 'waiting_approval' })]));
    const seen = servePreflight({ missing_tools: [], checked_at: '2026-11-24T08:00:00.000Z' });
    renderStage();
    expect(await screen.findByText(EXECUTION_TEXT.completedCount(0, 1))).toBeInTheDocument();
    expect(seen.calls).toBeGreaterThan(0);
    expect(screen.queryByRole('status', { name: 'Tools missing from the sandbox' })).not.toBeInTheDocument();
  });

  it('drops a tool once every step that calls it has completed, and the notice once none is left', async () => {
    const fake = useFakeExecution(makeProgress([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'waiting_approval' })]));
    servePreflight({
      missing_tools: [
        { tool: 'doctl', steps: [1] },
        { tool: 'az', steps: [1, 2] },
      ],
      checked_at: '2026-11-24T08:00:00.000Z',
    });
    const { store } = renderStage();
    const notice = await screen.findByRole('status', { name: 'Tools missing from the sandbox' });
    await waitFor(() => expect(within(notice).getAllByRole('listitem').map((item) => item.textContent)).toEqual(['az — steps 1, 2']));
    fake.progress = makeProgress([makeStep(1, { status: 'completed' }), makeStep(2, { status: 'completed' })]);
    await act(async () => {
      await store.dispatch(executionApi.endpoints.getExecutionProgress.initiate(PROJECT, { forceRefetch: true }));
    });
    await waitFor(() => expect(screen.queryByRole('status', { name: 'Tools missing from the sandbox' })).not.toBeInTheDocument());
  });
});
