import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import {
  ENVIRONMENT_DIALOG,
  INSTALLATION_ID_KEY,
  PLANNING_ERRORS,
  REPOSITORY_ERRORS,
  REPOSITORY_PICKER,
} from '../../../src/shared/constants';
import type { StreamEvent } from '../../../src/shared/events';
import { makeProject } from '../utils/factories';
import { makeRepository, planningDb, replyEvents, sseResponse, sseText, type StreamCall } from '../utils/planningServer';
import { renderApp } from '../utils/renderWithProviders';
import { api, seedProjects, server } from '../utils/server';

// The machine is shared: lazy chunks and streams can take longer than the 1 s default under load.

const REPOSITORIES = [
  makeRepository({ id: 1, name: 'shop-api', full_name: 'alice/shop-api', description: 'Orders and payments', private: true, language: 'TypeScript', stargazers_count: 12 }),
  makeRepository({ id: 2, name: 'blog', full_name: 'alice/blog', description: 'Static site', private: false, language: 'Go', stargazers_count: 3 }),
  makeRepository({ id: 3, name: 'infra', full_name: 'acme/infra', description: null, private: false, language: null, stargazers_count: 0 }),
];

async function openPicker() {
  seedProjects(makeProject({ id: 7 }));
  const view = renderApp('/app/7');
  await view.user.click(await screen.findByRole('button', { name: 'Analyse a Repository' }, { timeout: 5000 }));
  const dialog = await screen.findByRole('dialog', { name: REPOSITORY_PICKER.title });
  return { ...view, dialog };
}

describe('repository picker', () => {
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    planningDb.repositories = { repositories: REPOSITORIES, requires_permission_request: false, message: null };
  });

  it('lists each repository with name, description, private flag, language, stars and updated time', async () => {
    const { dialog } = await openPicker();
    const items = await within(dialog).findAllByRole('button', { name: /alice|acme/ });
    expect(items).toHaveLength(3);
    expect(items[0]).toHaveTextContent('shop-api');
    expect(items[0]).toHaveTextContent('Orders and payments');
    expect(items[0]).toHaveTextContent('Private');
    expect(items[0]).toHaveTextContent('TypeScript');
    expect(within(items[0]).getByLabelText('12 stars')).toBeInTheDocument();
    expect(items[0]).toHaveTextContent(/Updated .*2025/);
    expect(items[1]).toHaveTextContent('Public');
  });

  it('shows a description written in markdown (a README) as text, not raw', async () => {
    planningDb.repositories = {
      repositories: [makeRepository({ id: 4, name: 'docs', full_name: 'alice/docs', description: '# Docs site\n**Fast** docs with [Hugo](https://gohugo.io) and `make`' })],
      requires_permission_request: false,
      message: null,
    };
    const { dialog } = await openPicker();
    const item = await within(dialog).findByRole('button', { name: /alice\/docs/ });
    expect(item).toHaveTextContent('Docs site Fast docs with Hugo and make');
    expect(item).not.toHaveTextContent(/[#*`]|\]\(/);
  });

  it('opens focused on its search once the list is there, not on the close button', async () => {
    const { dialog } = await openPicker();
    const search = await within(dialog).findByPlaceholderText(REPOSITORY_PICKER.searchPlaceholder);
    await waitFor(() => expect(search).toHaveFocus());
  });

  it("searches case-insensitively on name, full name and description with 'Find a repository...'", async () => {
    const { dialog, user } = await openPicker();
    const search = await within(dialog).findByPlaceholderText(REPOSITORY_PICKER.searchPlaceholder);
    await user.type(search, 'STATIC');
    expect(within(dialog).getAllByRole('listitem')).toHaveLength(1);
    expect(within(dialog).getByText('blog')).toBeInTheDocument();
    await user.clear(search);
    await user.type(search, 'acme/');
    expect(within(dialog).getByText('infra')).toBeInTheDocument();
    expect(within(dialog).queryByText('blog')).not.toBeInTheDocument();
  });

  it('asks for repository access when the server says permission is required', async () => {
    planningDb.repositories = { repositories: [], requires_permission_request: true, message: null };
    const { dialog } = await openPicker();
    expect(await within(dialog).findByText(`${REPOSITORY_ERRORS.noRepositories} ${REPOSITORY_ERRORS.grantAccess}`)).toBeInTheDocument();
  });

  it('shows the server message for an empty list', async () => {
    planningDb.repositories = { repositories: [], requires_permission_request: false, message: 'Set LOCAL_REPOS_DIR to list repositories.' };
    const { dialog } = await openPicker();
    expect(await within(dialog).findByText('Set LOCAL_REPOS_DIR to list repositories.')).toBeInTheDocument();
  });

  it.each([
    [403, REPOSITORY_ERRORS.forbidden],
    [404, REPOSITORY_ERRORS.notFound],
    [500, REPOSITORY_ERRORS.other('GitHub is down')],
  ])('words a %i failure as part 1 section 8 does', async (status, reason) => {
    server.use(http.get(api('/github/repositories'), () => HttpResponse.json({ detail: 'GitHub is down' }, { status })));
    const { dialog } = await openPicker();
    expect(await within(dialog).findByText(`${REPOSITORY_ERRORS.fetchPrefix} ${reason}`)).toBeInTheDocument();
  });
});

describe('environment dialog and analysis', () => {
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    planningDb.repositories = { repositories: REPOSITORIES, requires_permission_request: false, message: null };
  });

  async function openEnvironment(branches: string[] | null) {
    if (branches) planningDb.branches.set('alice/shop-api', branches.map((name) => ({ name, protected: false, commit_sha: 'abc' })));
    const view = await openPicker();
    await view.user.click(await within(view.dialog).findByRole('button', { name: /shop-api/ }));
    const dialog = await screen.findByRole('dialog', { name: ENVIRONMENT_DIALOG.title });
    return { ...view, dialog };
  }

  const branchSelect = (dialog: HTMLElement): HTMLSelectElement => within(dialog).getByRole('combobox', { name: 'Branch' });

  it.each([
    [['dev', 'master', 'main'], 'main'],
    [['dev', 'master'], 'master'],
    [['dev', 'release'], 'dev'],
  ])('picks the default branch of %j: %s', async (branches, expected) => {
    const { dialog } = await openEnvironment(branches);
    await waitFor(() => expect(branchSelect(dialog)).toHaveValue(expected));
  });

  it('falls back to a single branch named main when the branch fetch fails', async () => {
    const { dialog } = await openEnvironment(null);
    await waitFor(() => expect(branchSelect(dialog)).toHaveValue('main'));
    expect(within(branchSelect(dialog)).getAllByRole('option')).toHaveLength(1);
  });

  it('hides Remove while only one block remains', async () => {
    const { dialog, user } = await openEnvironment(['main']);
    expect(within(dialog).getAllByRole('group')).toHaveLength(1);
    expect(within(dialog).queryByRole('button', { name: 'Remove' })).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Add environment' }));
    expect(within(dialog).getAllByRole('button', { name: 'Remove' })).toHaveLength(2);
    await user.click(within(dialog).getAllByRole('button', { name: 'Remove' })[0]);
    expect(within(dialog).getAllByRole('group')).toHaveLength(1);
    expect(within(dialog).queryByRole('button', { name: 'Remove' })).not.toBeInTheDocument();
  });

  it('analyses with the renamed blocks, then starts requirements gathering with an empty message', async () => {
    const analysisEvents: StreamEvent[] = replyEvents('The repository is an Express API.', 'analyzer-1', 'offline-planner');
    planningDb.stream = (call: StreamCall) =>
      sseResponse(sseText(call.agent === 'analyzer' ? analysisEvents : replyEvents('What domain will it use?', 'req-1')));
    const { dialog, user } = await openEnvironment(['main', 'dev']);
    await waitFor(() => expect(branchSelect(dialog)).toHaveValue('main'));
    await user.selectOptions(branchSelect(dialog), 'dev');
    await user.click(within(dialog).getByRole('button', { name: 'Add environment' }));
    await user.click(within(dialog).getByRole('button', { name: 'Add environment' }));
    const contents = within(dialog).getAllByRole('textbox', { name: 'Content' });
    const descriptions = within(dialog).getAllByRole('textbox', { name: 'Description' });
    await user.type(contents[0], 'DATABASE_URL=postgres://db');
    await user.type(descriptions[2], 'Staging');
    await user.click(within(dialog).getByRole('button', { name: 'Analyse Repository' }));

    const chat = screen.getByRole('region', { name: 'Requirements Gatherer' });
    expect(await within(chat).findByText('What domain will it use?')).toBeInTheDocument();
    expect(within(chat).getByText('The repository is an Express API.')).toBeInTheDocument();
    expect(planningDb.streamCalls.map((call) => call.agent)).toEqual(['analyzer', 'requirements']);
    expect(planningDb.streamCalls[0].body).toEqual({
      repository_data: REPOSITORIES[0],
      branch: 'dev',
      environment_configs: [
        { name: 'environment1', description: 'Environment configuration 1', content: 'DATABASE_URL=postgres://db' },
        { name: 'environment2', description: 'Staging', content: '' },
      ],
    });
    expect(planningDb.streamCalls[1].body).toEqual({ message: '' });
    expect(screen.getByText('req-1')).toBeInTheDocument();
  });

  it("reports 'Repository analysis failed: …' and does not start gathering", async () => {
    planningDb.stream = () => HttpResponse.json({ detail: 'Repository not reachable' }, { status: 409 });
    const { dialog, user } = await openEnvironment(['main']);
    await waitFor(() => expect(branchSelect(dialog)).toHaveValue('main'));
    await user.click(within(dialog).getByRole('button', { name: 'Analyse Repository' }));
    expect(await screen.findByText(PLANNING_ERRORS.analysis('Repository not reachable'))).toBeInTheDocument();
    expect(planningDb.streamCalls.map((call) => call.agent)).toEqual(['analyzer']);
  });

  it("reports 'Failed to start requirements gathering: …' when gathering cannot start", async () => {
    planningDb.stream = (call) =>
      call.agent === 'analyzer'
        ? sseResponse(sseText(replyEvents('Analysed.')))
        : HttpResponse.json({ detail: 'A reply is already being generated' }, { status: 409 });
    const { dialog, user } = await openEnvironment(['main']);
    await waitFor(() => expect(branchSelect(dialog)).toHaveValue('main'));
    await user.click(within(dialog).getByRole('button', { name: 'Analyse Repository' }));
    expect(await screen.findByText(PLANNING_ERRORS.gatheringStart('A reply is already being generated'))).toBeInTheDocument();
  });

  it('reports the gathering error when the gathering stream fails', async () => {
    planningDb.stream = (call) =>
      sseResponse(
        sseText(
          call.agent === 'analyzer'
            ? replyEvents('Analysed.')
            : [{ event: 'error', thread_id: 'req-1', data: { detail: 'model failed' } }],
        ),
      );
    const { dialog, user } = await openEnvironment(['main']);
    await waitFor(() => expect(branchSelect(dialog)).toHaveValue('main'));
    await user.click(within(dialog).getByRole('button', { name: 'Analyse Repository' }));
    expect(await screen.findByText(PLANNING_ERRORS.gatheringAfterAnalysis)).toBeInTheDocument();
  });
});
