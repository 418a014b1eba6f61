import { screen, waitFor, within } from '@testing-library/react';
import { CHAT, INSTALLATION_ID_KEY, PLANNING_PROMPTS, REQUIREMENTS_TEXT, SECRET_MESSAGES } from '../../../src/shared/constants';
import { formatDateTime } from '../../../src/client/common/format';
import { makeProject } from '../utils/factories';
import { COMPLETE_DOCUMENT, makeAnalysis, makeSecret, planningDb, replyEvents, sseResponse, sseText, textStream } from '../utils/planningServer';
import { renderApp } from '../utils/renderWithProviders';
import { db, seedProjects } from '../utils/server';

// The machine is shared: lazy chunks and streams can take longer than the 1 s default under load.

async function openRequirements() {
  seedProjects(makeProject({ id: 7, name: 'Shop' }));
  const view = renderApp('/app/7');
  const panel = await screen.findByRole('region', { name: REQUIREMENTS_TEXT.panelTitle }, { timeout: 5000 });
  return { ...view, panel };
}

const tab = (name: string | RegExp): HTMLElement => screen.getByRole('tab', { name });

describe('requirements stage', () => {
  beforeEach(() => sessionStorage.setItem(INSTALLATION_ID_KEY, '42'));

  it("shows the 'Requirements Gatherer' chat and the placeholder rows while nothing is collected", async () => {
    const { panel } = await openRequirements();
    expect(screen.getByRole('region', { name: REQUIREMENTS_TEXT.chatTitle })).toBeInTheDocument();
    for (const row of REQUIREMENTS_TEXT.placeholderRows) expect(within(panel).getByText(row)).toBeInTheDocument();
    expect(tab(REQUIREMENTS_TEXT.tabs.current)).toHaveAttribute('aria-selected', 'true');
  });

  it('parses the sectioned document and stops at "User Secrets Configuration:"', async () => {
    planningDb.requirements = { content: COMPLETE_DOCUMENT, ready_to_continue: false };
    const { panel } = await openRequirements();
    expect(await within(panel).findByText('A VPS running PostgreSQL for the shop API')).toBeInTheDocument();
    expect(within(panel).getByText('Scale & Resource Requirements')).toBeInTheDocument();
    expect(within(panel).getByText('eu-west-1')).toBeInTheDocument();
    // The timestamp is written for people, in their locale (not the raw ISO text).
    const generated = panel.querySelector('time');
    expect(generated).toHaveAttribute('dateTime', '2025-03-01');
    expect(generated).toHaveTextContent(formatDateTime('2025-03-01'));
    expect(within(panel).queryByText(/DB_PASSWORD/)).not.toBeInTheDocument();
    expect(within(panel).queryByText('Stack Type')).not.toBeInTheDocument();
  });

  it('shows "- " lines of a section as a list, without their markers', async () => {
    planningDb.requirements = {
      content: COMPLETE_DOCUMENT.replace('Configuration Requirements: Daily backups, TLS', 'Configuration Requirements:\n- Daily backups\n- TLS everywhere'),
      ready_to_continue: false,
    };
    const { panel } = await openRequirements();
    const item = await within(panel).findByText('TLS everywhere');
    expect(item.tagName).toBe('LI');
    expect(within(panel).getByText('Daily backups').tagName).toBe('LI');
    expect(panel).not.toHaveTextContent(/(^|\s)- (Daily|TLS)/);
  });

  it("disables 'Repository Analysis' until an analysis exists and 'User Secrets' while there are none", async () => {
    await openRequirements();
    await waitFor(() => expect(tab(REQUIREMENTS_TEXT.tabs.analysis)).toBeDisabled());
    expect(tab(REQUIREMENTS_TEXT.tabs.secrets)).toBeDisabled();
  });

  it('opens the analysis tab when one exists', async () => {
    planningDb.analysis = makeAnalysis();
    const { user } = await openRequirements();
    await waitFor(() => expect(tab(REQUIREMENTS_TEXT.tabs.analysis)).toBeEnabled());
    await user.click(tab(REQUIREMENTS_TEXT.tabs.analysis));
    const panel = screen.getByRole('tabpanel');
    expect(within(panel).getByRole('heading', { name: 'alice/shop-api' })).toBeInTheDocument();
    expect(within(panel).getByText('Express')).toBeInTheDocument();
    expect(within(panel).getByText('PostgreSQL')).toBeInTheDocument();
    expect(within(panel).getByText('Which domain?')).toBeInTheDocument();
    expect(await within(panel).findByText('Express', { selector: 'strong' })).toBeInTheDocument();
  });

  it('badges the secrets tab with the required secrets not provided', async () => {
    planningDb.secrets = [
      makeSecret({ name: 'DB_PASSWORD', required: true, provided: false }),
      makeSecret({ name: 'API_KEY', required: true, provided: false }),
      makeSecret({ name: 'SMTP_USER', required: false, provided: false, secret_type: 'text' }),
      makeSecret({ name: 'GITHUB_TOKEN', required: true, provided: true }),
    ];
    await openRequirements();
    await waitFor(() => expect(tab(/User Secrets/)).toBeEnabled());
    expect(tab(/User Secrets/)).toHaveTextContent('User Secrets2');
  });

  describe('confirm', () => {
    const confirmButton = (): HTMLElement => screen.getByRole('button', { name: 'Confirm Requirements' });

    it('stays disabled until the agent says ready_to_continue', async () => {
      planningDb.requirements = { content: COMPLETE_DOCUMENT, ready_to_continue: false };
      await openRequirements();
      await screen.findByText('eu-west-1');
      expect(confirmButton()).toBeDisabled();
    });

    it('stays disabled while a generation runs', async () => {
      planningDb.requirements = { content: COMPLETE_DOCUMENT, ready_to_continue: true };
      planningDb.stream = () => sseResponse(textStream([], { hold: true }));
      const { user } = await openRequirements();
      await waitFor(() => expect(confirmButton()).toBeEnabled());
      await user.type(screen.getByRole('textbox', { name: /Message/ }), 'One more thing{Enter}');
      await waitFor(() => expect(confirmButton()).toBeDisabled());
      await user.click(screen.getByRole('button', { name: CHAT.stop }));
      await waitFor(() => expect(confirmButton()).toBeEnabled());
    });

    it("triggers 'Generate architecture plan', completes 'requirements' and moves to the architecture stage", async () => {
      planningDb.requirements = { content: COMPLETE_DOCUMENT, ready_to_continue: true };
      planningDb.stream = () => sseResponse(sseText(replyEvents('Here is your architecture plan.', 'arch-1')));
      const { user } = await openRequirements();
      await waitFor(() => expect(confirmButton()).toBeEnabled());
      await user.click(confirmButton());

      expect(await screen.findByRole('region', { name: 'Cloud Architecture Plan' })).toBeInTheDocument();
      const architectChat = screen.getByRole('region', { name: 'Cloud Architecture Assistant' });
      expect(await within(architectChat).findByText('Here is your architecture plan.')).toBeInTheDocument();
      expect(within(architectChat).getByText(PLANNING_PROMPTS.generateArchitecturePlan, { selector: 'div' })).toBeInTheDocument();
      expect(planningDb.streamCalls).toEqual([expect.objectContaining({ agent: 'architect', body: { message: 'Generate architecture plan' } })]);
      const state = db.projectStates.get(7)!;
      expect(state.stages[0].is_completed).toBe(true);
      expect(state.current_stage_index).toBe(1);
    });
  });

  describe('user secrets', () => {
    beforeEach(() => {
      planningDb.secrets = [
        makeSecret({ name: 'DB_PASSWORD', description: 'Database password', required: true, provided: false, secret_type: 'password' }),
        makeSecret({ name: 'DOMAIN', description: 'Public domain', required: false, provided: false, secret_type: 'text' }),
        makeSecret({ name: 'GITHUB_TOKEN', description: 'Repository token', required: true, provided: true, secret_type: 'password' }),
      ];
    });

    async function openSecrets() {
      const view = await openRequirements();
      await waitFor(() => expect(tab(/User Secrets/)).toBeEnabled());
      await view.user.click(tab(/User Secrets/));
      return view;
    }

    it('masks password secrets and keeps GITHUB_TOKEN read-only', async () => {
      await openSecrets();
      expect(screen.getByLabelText(/^DB_PASSWORD/)).toHaveAttribute('type', 'password');
      expect(screen.getByLabelText(/^DOMAIN/)).toHaveAttribute('type', 'text');
      expect(screen.getByLabelText(/^GITHUB_TOKEN/)).toHaveAttribute('readonly');
      expect(screen.getByText('Database password')).toBeInTheDocument();
    });

    it("says 'No changes to save' when nothing non-blank was typed", async () => {
      const { user } = await openSecrets();
      await user.type(screen.getByLabelText(/^DOMAIN/), '   ');
      await user.click(screen.getByRole('button', { name: 'Save Secrets' }));
      expect(await screen.findByText(SECRET_MESSAGES.noChanges)).toBeInTheDocument();
      expect(planningDb.savedSecrets).toEqual([]);
      // Typing again: the old status no longer describes the form and goes away.
      await user.type(screen.getByLabelText(/^DOMAIN/), 'shop.example');
      expect(screen.queryByText(SECRET_MESSAGES.noChanges)).not.toBeInTheDocument();
    });

    it('saves each typed secret and reports the count, then shows them provided', async () => {
      const { user } = await openSecrets();
      await user.type(screen.getByLabelText(/^DB_PASSWORD/), 'hunter2');
      await user.type(screen.getByLabelText(/^DOMAIN/), 'shop.example');
      await user.click(screen.getByRole('button', { name: 'Save Secrets' }));
      expect(await screen.findByText(SECRET_MESSAGES.saved(2))).toBeInTheDocument();
      expect(planningDb.savedSecrets).toEqual([
        { name: 'DB_PASSWORD', value: 'hunter2' },
        { name: 'DOMAIN', value: 'shop.example' },
      ]);
      expect(screen.getByLabelText(/^DB_PASSWORD/)).toHaveValue('');
      await waitFor(() => expect(tab(/User Secrets/)).toHaveTextContent(/^User Secrets$/));
    });

    it('reports a partial and a total failure', async () => {
      planningDb.failingSecrets = new Set(['DOMAIN']);
      const { user } = await openSecrets();
      await user.type(screen.getByLabelText(/^DB_PASSWORD/), 'hunter2');
      await user.type(screen.getByLabelText(/^DOMAIN/), 'shop.example');
      await user.click(screen.getByRole('button', { name: 'Save Secrets' }));
      // The count, then what the server said about the refused one.
      expect(await screen.findByText(`${SECRET_MESSAGES.partiallySaved(1, 1)} Could not store it`)).toBeInTheDocument();
      expect(screen.getByLabelText(/^DOMAIN/)).toHaveValue('shop.example');

      await user.click(screen.getByRole('button', { name: 'Save Secrets' }));
      expect(await screen.findByText(`${SECRET_MESSAGES.failed} Could not store it`)).toBeInTheDocument();
    });
  });

  it('polls the requirements every 5 seconds while shown', async () => {
    const { panel } = await openRequirements();
    await within(panel).findByText('Stack Type');
    planningDb.requirements = { content: 'Summary: Polled in', ready_to_continue: false };
    expect(await within(panel).findByText('Polled in', {}, { timeout: 7000 })).toBeInTheDocument();
  }, 15_000);
});
