import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { browser } from '../../../src/client/common/browser';
import {
  COSTS,
  DOCUMENTATION,
  DOCUMENTATION_ERRORS,
  DOCUMENTATION_TEXT,
  INSTALLATION_ID_KEY,
  PROJECT_HOME_NAV,
  PROJECT_HOME_SANDBOX,
  SANDBOX_ERRORS,
  SANDBOX_TIMING,
  TIMING,
  WORKSPACE,
} from '../../../src/shared/constants';
import { ENVIRONMENT_GUIDE, PROJECT_HOME_TEXT } from '../../../src/shared/constants/environmentGuide';
import { makeProject } from '../utils/factories';
import { renderApp } from '../utils/renderWithProviders';
import { api, db, seedProjects, server } from '../utils/server';
import { useFakeProjectHome } from './fakeSandbox';

const PROJECT = 7;

function saveFileMock(): jest.SpyInstance<void, [Blob, string]> {
  return jest.spyOn(browser, 'saveFile').mockImplementation(() => undefined);
}

function sidebarNav(): HTMLElement {
  return screen.getByRole('navigation', { name: 'Project home' });
}

beforeEach(() => {
  sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
  seedProjects(makeProject({ id: PROJECT, name: 'Edge proxy', description: 'Traefik with TLS' }));
  db.costs.set(PROJECT, { total_cost: '0.04210000', last_updated: '2025-03-02T10:00:00.000Z' });
});

describe('project home: frame and documentation views', () => {
  it('shows the project, the sidebar entries, the cost box (returnTo=home) and Return to Projects', async () => {
    useFakeProjectHome();
    renderApp(`/app/${PROJECT}/home`);
    expect(await screen.findByRole('heading', { level: 1, name: 'Edge proxy' })).toBeInTheDocument();
    expect(screen.getByText('Traefik with TLS')).toBeInTheDocument();
    const nav = sidebarNav();
    expect(within(nav).getByRole('link', { name: PROJECT_HOME_NAV.devopsHelper })).toHaveAttribute('href', `/app/${PROJECT}/home/devops-helper`);
    expect(within(nav).getByRole('link', { name: PROJECT_HOME_NAV.quickStart })).toHaveAttribute('href', `/app/${PROJECT}/home`);
    expect(within(nav).getByRole('link', { name: PROJECT_HOME_NAV.fullDocumentation })).toBeInTheDocument();
    expect(within(nav).getByRole('link', { name: PROJECT_HOME_NAV.environmentGuide })).toBeInTheDocument();
    // No key-value data: no Configuration Data entry.
    expect(within(nav).queryByRole('link', { name: PROJECT_HOME_NAV.configurationData })).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('project-cost')).toHaveTextContent('$0.0421'));
    expect(screen.getByRole('link', { name: WORKSPACE.viewDetails })).toHaveAttribute(
      'href',
      `/app/${PROJECT}/costs?returnTo=${COSTS.returnToHome}`,
    );
    expect(screen.getByRole('link', { name: WORKSPACE.returnToProjects })).toHaveAttribute('href', '/app');
  });

  it('shows the quick start as markdown under a Before You Begin note that leads to the Environment Guide', async () => {
    useFakeProjectHome();
    const { user, router } = renderApp(`/app/${PROJECT}/home`);
    expect(await screen.findByRole('heading', { name: 'Connect' })).toBeInTheDocument();
    expect(screen.getByText('ssh deploy@host').tagName).toBe('CODE');
    const note = screen.getByRole('note');
    expect(note).toHaveTextContent(DOCUMENTATION_TEXT.beforeYouBegin);
    await user.click(within(note).getByRole('link'));
    expect(router.state.location.pathname).toBe(`/app/${PROJECT}/home/environment`);
    expect(await screen.findByRole('heading', { level: 2, name: ENVIRONMENT_GUIDE.title })).toBeInTheDocument();
    for (const section of ENVIRONMENT_GUIDE.sections) {
      expect(screen.getByRole('heading', { level: 3, name: section.title })).toBeInTheDocument();
    }
    expect(screen.getByText('ssh-keys/')).toBeInTheDocument();
    expect(screen.getByText('terraform/')).toBeInTheDocument();
    expect(screen.getByText('ansible/')).toBeInTheDocument();
  });

  it('shows the full documentation; the sidebar link is keyboard reachable and marked current', async () => {
    useFakeProjectHome();
    const { user } = renderApp(`/app/${PROJECT}/home`);
    const link = await within(await screen.findByRole('navigation', { name: 'Project home' })).findByRole('link', {
      name: PROJECT_HOME_NAV.fullDocumentation,
    });
    link.focus();
    await user.keyboard('{Enter}');
    expect(await screen.findByRole('heading', { name: 'Infrastructure' })).toBeInTheDocument();
    expect(screen.getByText('two').tagName).toBe('STRONG');
    expect(link).toHaveAttribute('aria-current', 'page');
  });

  it('shows the empty messages for placeholder documents', async () => {
    useFakeProjectHome({
      docs: {
        status: 'missing',
        documentation: 'No documentation has been created yet.',
        quickstart: 'No quickstart guide has been created yet.',
        key_value_data: {},
      },
    });
    renderApp(`/app/${PROJECT}/home`);
    expect(await screen.findByText(DOCUMENTATION_TEXT.noQuickstart)).toBeInTheDocument();
  });

  it('says documentation is being generated while it is', async () => {
    useFakeProjectHome({ docs: { status: 'generating', documentation: '', quickstart: '', key_value_data: {} } });
    renderApp(`/app/${PROJECT}/home`);
    expect(await screen.findByText('Documentation is being generated...')).toBeInTheDocument();
    expect(screen.getByText(DOCUMENTATION_TEXT.noQuickstart)).toBeInTheDocument();
  });

  it('says no documentation is available on the full documentation view', async () => {
    useFakeProjectHome({ docs: { status: 'missing', documentation: '', quickstart: '', key_value_data: {} } });
    renderApp(`/app/${PROJECT}/home/documentation`);
    expect(await screen.findByText(DOCUMENTATION_TEXT.noDocumentation)).toBeInTheDocument();
  });

  it('lists configuration data in a Key / Value table, objects as formatted JSON', async () => {
    useFakeProjectHome({
      docs: {
        status: 'ready',
        documentation: 'Docs',
        quickstart: 'Quick',
        key_value_data: { domain: 'example.com', ports: { http: 80, https: 443 } },
      },
    });
    const { user } = renderApp(`/app/${PROJECT}/home`);
    await user.click(await within(sidebarNav()).findByRole('link', { name: PROJECT_HOME_NAV.configurationData }));
    expect(await screen.findByRole('heading', { name: DOCUMENTATION_TEXT.rawConfigurationData })).toBeInTheDocument();
    const table = screen.getByRole('table');
    expect(within(table).getByRole('columnheader', { name: DOCUMENTATION_TEXT.keyColumn })).toBeInTheDocument();
    expect(within(table).getByRole('columnheader', { name: DOCUMENTATION_TEXT.valueColumn })).toBeInTheDocument();
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toHaveTextContent('domainexample.com');
    expect(rows[2].querySelector('pre')?.textContent).toBe(JSON.stringify({ http: 80, https: 443 }, null, 2));
  });

  it('says there is no configuration data when the table view is opened without any', async () => {
    useFakeProjectHome();
    renderApp(`/app/${PROJECT}/home/configuration`);
    expect(await screen.findByText(DOCUMENTATION_TEXT.noConfigurationData)).toBeInTheDocument();
  });

  it("shows 'Failed to load documentation' when the documentation call fails", async () => {
    useFakeProjectHome();
    server.use(http.get(api('/documentation/current'), () => HttpResponse.json({ detail: 'boom' }, { status: 500 })));
    renderApp(`/app/${PROJECT}/home`);
    expect(await screen.findByText(DOCUMENTATION_ERRORS.load)).toBeInTheDocument();
  });
});

describe('project home: sandbox controls', () => {
  it('shows the status and the last backup; Backup records a new backup time', async () => {
    const fake = useFakeProjectHome();
    const { user } = renderApp(`/app/${PROJECT}/home`);
    expect(await screen.findByRole('heading', { name: PROJECT_HOME_SANDBOX.header })).toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId('sandbox-status')).toHaveTextContent('Running'));
    expect(screen.getByTestId('last-backup')).toHaveTextContent('Never backed up');
    const backup = screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.backup });
    expect(backup).toHaveAccessibleDescription(PROJECT_HOME_SANDBOX.backupTooltip);
    await user.click(backup);
    await waitFor(() => expect(screen.getByTestId('last-backup')).toHaveTextContent('Just now'));
    expect(fake.calls).toEqual(['backup']);
  });

  it("shows a backup's error", async () => {
    const fake = useFakeProjectHome();
    fake.backupError = 'disk full';
    const { user } = renderApp(`/app/${PROJECT}/home`);
    await waitFor(() => expect(screen.getByTestId('sandbox-status')).toHaveTextContent('Running'));
    await user.click(screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.backup }));
    expect(await screen.findByText(SANDBOX_ERRORS.syncWithError('disk full'))).toBeInTheDocument();
  });

  it('stops after a backup, then offers Start, and starts again', async () => {
    const fake = useFakeProjectHome();
    const { user } = renderApp(`/app/${PROJECT}/home`);
    const stop = await screen.findByRole('button', { name: PROJECT_HOME_SANDBOX.stop });
    await waitFor(() => expect(stop).toBeEnabled());
    await user.click(stop);
    const start = await screen.findByRole('button', { name: PROJECT_HOME_SANDBOX.start });
    expect(fake.calls).toEqual(['backup', 'stop']);
    await waitFor(() => expect(screen.getByTestId('sandbox-status')).toHaveTextContent('Stopped'));
    // Downloads and backup need a running sandbox.
    expect(screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.backup })).toBeDisabled();
    expect(screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.downloadWorkspace })).toBeDisabled();
    expect(screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.downloadProjectFolder })).toBeDisabled();
    await waitFor(() => expect(start).toBeEnabled());
    await user.click(start);
    await waitFor(() => expect(screen.getByTestId('sandbox-status')).toHaveTextContent('Running'));
    expect(fake.calls).toEqual(['backup', 'stop', 'start']);
    expect(screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.stop })).toBeEnabled();
  });

  it('aborts the stop when the backup reports an error', async () => {
    const fake = useFakeProjectHome();
    fake.backupError = 'tar failed';
    const { user } = renderApp(`/app/${PROJECT}/home`);
    const stop = await screen.findByRole('button', { name: PROJECT_HOME_SANDBOX.stop });
    await waitFor(() => expect(stop).toBeEnabled());
    await user.click(stop);
    expect(await screen.findByText(SANDBOX_ERRORS.syncWithError('tar failed'))).toBeInTheDocument();
    expect(fake.calls).toEqual(['backup']);
    expect(screen.getByTestId('sandbox-status')).toHaveTextContent('Running');
  });

  it("shows the server's 409 message when the stop is refused", async () => {
    const fake = useFakeProjectHome();
    fake.stopConflict = `${SANDBOX_ERRORS.stop} (backup failed)`;
    const { user } = renderApp(`/app/${PROJECT}/home`);
    const stop = await screen.findByRole('button', { name: PROJECT_HOME_SANDBOX.stop });
    await waitFor(() => expect(stop).toBeEnabled());
    await user.click(stop);
    expect(await screen.findByText(`${SANDBOX_ERRORS.stop} (backup failed)`)).toBeInTheDocument();
  });

  it('disables the buttons while a call runs', async () => {
    useFakeProjectHome();
    let release: () => void = () => undefined;
    server.use(
      http.post(api('/sandboxes/:projectId/backup'), async () => {
        await new Promise<void>((resolve) => {
          release = resolve;
        });
        return HttpResponse.json({ status: 'success', last_sync_time: new Date().toISOString() });
      }),
    );
    const { user } = renderApp(`/app/${PROJECT}/home`);
    const backup = await screen.findByRole('button', { name: PROJECT_HOME_SANDBOX.backup });
    await waitFor(() => expect(backup).toBeEnabled());
    await user.click(backup);
    expect(await screen.findByRole('button', { name: 'Backing up...' })).toBeDisabled();
    expect(screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.stop })).toBeDisabled();
    expect(screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.downloadWorkspace })).toBeDisabled();
    act(() => release());
    await waitFor(() => expect(screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.backup })).toBeEnabled());
  });

  it('offers Start only for NotRunning; other statuses disable the button', async () => {
    useFakeProjectHome({ status: { container_status: 'Pending', username: 'user-7-ab12', last_sync_time: null } });
    renderApp(`/app/${PROJECT}/home`);
    await waitFor(() => expect(screen.getByTestId('sandbox-status')).toHaveTextContent('Pending'));
    expect(screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.start })).toBeDisabled();
  });

  it('downloads the workspace as {projectId}-working-directory.zip and the folder as user_{part}_{part}.zip', async () => {
    const fake = useFakeProjectHome();
    const save = saveFileMock();
    const { user } = renderApp(`/app/${PROJECT}/home`);
    const workspace = await screen.findByRole('button', { name: PROJECT_HOME_SANDBOX.downloadWorkspace });
    await waitFor(() => expect(workspace).toBeEnabled());
    await user.click(workspace);
    await waitFor(() => expect(save).toHaveBeenCalledWith(expect.any(Blob), `${PROJECT}-working-directory.zip`));
    await user.click(screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.downloadProjectFolder }));
    await waitFor(() => expect(save).toHaveBeenLastCalledWith(expect.any(Blob), 'user_7_ab12.zip'));
    expect(fake.folderPaths).toEqual(['/home/user-7-ab12/workspace/']);
    // Secret files are left out unless asked for, and the panel says which.
    expect(screen.getByText(PROJECT_HOME_SANDBOX.secretsLeftOut)).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: PROJECT_HOME_SANDBOX.includeSecrets }));
    expect(screen.getByText(PROJECT_HOME_SANDBOX.secretsIncluded)).toBeInTheDocument();
    await user.click(workspace);
    await waitFor(() => expect(fake.calls.filter((c) => c.startsWith('workspace'))).toEqual(['workspace', 'workspace with secrets']));
  });

  it('shows the download error texts', async () => {
    useFakeProjectHome();
    saveFileMock();
    server.use(
      http.get(api('/projects/:id/workspace/download'), () => HttpResponse.json({ detail: 'nope' }, { status: 409 })),
      http.get(api('/sandboxes/:projectId/workspace/folder_download'), () => HttpResponse.json({ detail: 'nope' }, { status: 409 })),
    );
    const { user } = renderApp(`/app/${PROJECT}/home`);
    const workspace = await screen.findByRole('button', { name: PROJECT_HOME_SANDBOX.downloadWorkspace });
    await waitFor(() => expect(workspace).toBeEnabled());
    await user.click(workspace);
    expect(await screen.findByText(SANDBOX_ERRORS.downloadWorkingDirectory)).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.downloadProjectFolder }));
    expect(await screen.findByText(SANDBOX_ERRORS.download)).toBeInTheDocument();
  });

  it("shows 'Failed to load container status' when the status call fails", async () => {
    useFakeProjectHome();
    server.use(http.get(api('/sandboxes/:projectId/status'), () => HttpResponse.json({ detail: 'x' }, { status: 500 })));
    renderApp(`/app/${PROJECT}/home`);
    expect(await screen.findByText(SANDBOX_ERRORS.loadStatus)).toBeInTheDocument();
    expect(screen.getByTestId('sandbox-status')).toHaveTextContent('Unknown');
  });
});

describe('project home: polls (fake timers)', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** The fake clock's time of each request to `path`. */
  function requestTimes(path: string): number[] {
    const times: number[] = [];
    server.events.on('request:start', ({ request }) => {
      if (new URL(request.url).pathname === path) times.push(Date.now());
    });
    return times;
  }

  it('polls the container status every 10 s and shows a change', async () => {
    const fake = useFakeProjectHome();
    const times = requestTimes(`/api/sandboxes/${PROJECT}/status`);
    renderApp(`/app/${PROJECT}/home`, { fakeTimers: true });
    await waitFor(() => expect(screen.getByTestId('sandbox-status')).toHaveTextContent('Running'));
    expect(times).toHaveLength(1);
    fake.status = { ...fake.status, container_status: 'NotRunning' };
    await act(() => jest.advanceTimersByTimeAsync(SANDBOX_TIMING.containerStatusPollMs + 100));
    await waitFor(() => expect(screen.getByTestId('sandbox-status')).toHaveTextContent('Stopped'));
    expect(times).toHaveLength(2);
    const gap = times[1] - times[0];
    expect(gap).toBeGreaterThanOrEqual(SANDBOX_TIMING.containerStatusPollMs);
    expect(gap).toBeLessThan(SANDBOX_TIMING.containerStatusPollMs + 500);
    expect(screen.getByRole('button', { name: PROJECT_HOME_SANDBOX.start })).toBeEnabled();
    server.events.removeAllListeners();
  });

  it('polls the project cost every 10 s', async () => {
    useFakeProjectHome();
    let costCalls = 0;
    server.use(
      http.get(api('/projects/:id/costs'), () => {
        costCalls += 1;
        return HttpResponse.json({ total_cost: costCalls === 1 ? '0.01' : '0.12345', last_updated: null });
      }),
    );
    const times = requestTimes(`/api/projects/${PROJECT}/costs`);
    renderApp(`/app/${PROJECT}/home`, { fakeTimers: true });
    await waitFor(() => expect(screen.getByTestId('project-cost')).toHaveTextContent('$0.0100'));
    await act(() => jest.advanceTimersByTimeAsync(10_100));
    await waitFor(() => expect(screen.getByTestId('project-cost')).toHaveTextContent('$0.1235'));
    expect(times).toHaveLength(2);
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(10_000);
    expect(times[1] - times[0]).toBeLessThan(10_500);
    server.events.removeAllListeners();
  });
});

describe('project home: a project that does not exist', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('shows "Project not found", then goes to / (and on to /app)', async () => {
    useFakeProjectHome();
    const { router } = renderApp('/app/999/home', { fakeTimers: true });
    expect(await screen.findByRole('heading', { name: WORKSPACE.projectNotFound })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: PROJECT_HOME_SANDBOX.header })).not.toBeInTheDocument();
    act(() => jest.advanceTimersByTime(TIMING.projectNotFoundRedirectMs));
    expect(await screen.findByRole('heading', { name: 'My Projects' })).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/app');
  });
});

describe('project home: no dead ends after the plan ran', () => {
  it('lists the stages the project reached; one opens the workspace on it', async () => {
    useFakeProjectHome();
    const state = db.projectStates.get(PROJECT)!;
    state.stages = state.stages.map((stage) => ({ ...stage, is_completed: stage.order < 4, is_active: true }));
    state.current_stage_index = 4;
    renderApp(`/app/${PROJECT}/home`);
    const stages = await screen.findByRole('navigation', { name: PROJECT_HOME_TEXT.stages });
    const buttons = await within(stages).findAllByRole('button');
    expect(buttons).toHaveLength(5);
    await act(async () => within(stages).getByRole('button', { name: PROJECT_HOME_TEXT.openStage('Execution') }).click());
    expect(await screen.findByRole('navigation', { name: 'Workflow stages' }, { timeout: 20_000 })).toBeInTheDocument();
    expect(db.projectStates.get(PROJECT)!.current_stage_index).toBe(3);
  }, 30_000);

  it('says out-of-date documents are so and regenerates them on request', async () => {
    const fake = useFakeProjectHome({
      docs: { status: 'ready', documentation: '> **Out of date.** Written before.\n\n# Infrastructure', quickstart: '> **Out of date.** Written before.\n\n## Connect', key_value_data: {}, out_of_date: '**Out of date.** Written before.' },
    });
    const generations: unknown[] = [];
    server.use(
      http.post(api('/documentation/generate'), async ({ request }) => {
        generations.push(await request.json());
        fake.docs = { ...fake.docs, documentation: '# Infrastructure, current', quickstart: '## Connect', out_of_date: null };
        const end = JSON.stringify({ event: 'on_chat_model_end', thread_id: 't1', chunk: { content: '' } });
        return new HttpResponse(`data: ${end}\n\n`, { headers: { 'Content-Type': 'text/event-stream' } });
      }),
    );
    renderApp(`/app/${PROJECT}/home/documentation`);
    const note = await screen.findByRole('status', { name: PROJECT_HOME_TEXT.outOfDate });
    await act(async () => within(note).getByRole('button', { name: PROJECT_HOME_TEXT.regenerate }).click());
    expect(await screen.findByText('Infrastructure, current')).toBeInTheDocument();
    expect(generations).toEqual([{ message: DOCUMENTATION.generatePrompt }]);
    expect(screen.queryByRole('status', { name: PROJECT_HOME_TEXT.outOfDate })).not.toBeInTheDocument();
  });
});
