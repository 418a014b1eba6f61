import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ARCHITECTURE_TEXT, INSTALLATION_ID_KEY, PLANNING_PROMPTS } from '../../../src/shared/constants';
import type { ServerFacts } from '../../../src/shared/stackModel';
import { makeProject, makeProjectState, makeStages } from '../utils/factories';
import { planningDb } from '../utils/planningServer';
import { renderApp } from '../utils/renderWithProviders';
import { db, seedProjects } from '../utils/server';

/**
 * "Your server" on the architecture step: the exact inspection command is shown before anything runs, one
 * approval posts that command, then what the server runs is shown with the findings the server made on the
 * saved plan from it, and the plan is made again when the person asks; a server
 * that cannot be reached is said in words and the plan goes on; a new machine shows nothing.
 */

const COMMAND = "# da-inspect v1 target=deploy@203.0.113.7:2222: reads listening ports…; it changes nothing on the server.\nssh … 'bash -s' <<'INSPECT'";
const FACTS: ServerFacts = {
  inspectedAt: '2026-11-28T10:00:00.000Z',
  os: 'Debian GNU/Linux 12 (bookworm)',
  composeVersion: '1.29.2 (docker-compose)',
  freeDiskGb: 46.8,
  portsInUse: [
    { port: 80, protocol: 'tcp', holder: 'container shop_web_1 (compose project shop)' },
    { port: 2222, protocol: 'tcp', holder: 'sshd' },
  ],
  containers: [{ name: 'shop_web_1', image: 'nginx:1.27.2-alpine', project: 'shop' }],
  composeProjects: ['shop'],
  hostKey: { algorithm: 'ED25519', fingerprint: 'SHA256:NX93hazBngDX4muBCArRGKauVIWgjLgZcjAZcuBv6cw', firstContact: true },
};

function atArchitecture(): void {
  seedProjects(makeProject({ id: 7 }));
  const stages = makeStages().map((stage, i) => ({ ...stage, is_completed: i < 1, is_active: i <= 1 }));
  db.projectStates.set(7, makeProjectState(7, { stages, current_stage_index: 1 }));
}

describe('inspecting the server on the architecture step', () => {
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    atArchitecture();
  });

  it('shows the command, runs it only when approved, then says what the server runs and shows the findings the server checked again', async () => {
    planningDb.architecturePlan = '# Architecture\n\nRedis on 127.0.0.1:80.';
    planningDb.inspectionOffer = { target_kind: 'existing', available: true, target: 'deploy@203.0.113.7:2222', command: COMMAND };
    planningDb.inspectionResult = { status: 'completed', detail: 'found', facts: FACTS, not_read: ['Docker version'] };
    planningDb.findingsAfterInspection = [
      { severity: 'error', code: 'port-in-use', message: 'redis publishes port 80/tcp, which container shop_web_1 on the server already holds', where: 'docker-compose.yml services.redis.ports' },
    ];
    renderApp('/app/7');
    const panel = await screen.findByRole('region', { name: 'Your server' }, { timeout: 5000 });
    expect(within(panel).getByLabelText('Inspection command')).toHaveTextContent('# da-inspect v1 target=deploy@203.0.113.7:2222');
    expect(planningDb.inspectionsRun).toEqual([]);
    const planView = screen.getByRole('region', { name: ARCHITECTURE_TEXT.viewTitle });
    await within(planView).findByText(/Redis on 127\.0\.0\.1:80/);
    expect(within(planView).queryByText(/already holds/)).toBeNull();

    await userEvent.click(within(panel).getByRole('button', { name: 'Approve and inspect the server' }));
    const found = await within(panel).findByRole('region', { name: 'What the server runs' });
    expect(planningDb.inspectionsRun).toEqual([COMMAND]);
    expect(found).toHaveTextContent('Ports in use: 80/tcp (container shop_web_1 (compose project shop)), 2222/tcp (sshd)');
    expect(found).toHaveTextContent('compose projects: shop');
    expect(found).toHaveTextContent('Not read: Docker version');
    // The first key seen, with its fingerprint and how to check it on the server.
    expect(found).toHaveTextContent('SSH host key ED25519 SHA256:NX93hazBngDX4muBCArRGKauVIWgjLgZcjAZcuBv6cw, pinned at this first contact');
    expect(found).toHaveTextContent('ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub');
    // The plan is read again with the findings the server made from the facts; nothing is generated unasked.
    expect(await within(planView).findByText(/which container shop_web_1 on the server already holds/, {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Confirm Architecture' })).toBeDisabled();
    expect(planningDb.streamCalls).toEqual([]);

    // Making the plan again is the person's choice.
    await userEvent.click(within(found).getByRole('button', { name: 'Make the plan again from what was found' }));
    await waitFor(() => expect(planningDb.streamCalls.map((c) => [c.agent, c.body.message])).toEqual([['architect', PLANNING_PROMPTS.generateArchitecturePlan]]));
  });

  it('a server that cannot be reached is said in words, and nothing stops the plan', async () => {
    planningDb.inspectionOffer = { target_kind: 'existing', available: true, target: 'deploy@203.0.113.7:2222', command: COMMAND };
    planningDb.inspectionResult = { status: 'failed', detail: 'Could not reach deploy@203.0.113.7:2222 over SSH: nothing answered on that address and port.', not_read: [] };
    renderApp('/app/7');
    const panel = await screen.findByRole('region', { name: 'Your server' }, { timeout: 5000 });
    await userEvent.click(within(panel).getByRole('button', { name: 'Approve and inspect the server' }));
    expect(await within(panel).findByRole('alert')).toHaveTextContent('Could not reach deploy@203.0.113.7:2222 over SSH');
    expect(within(panel).getByText(/You can go on without it/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: PLANNING_PROMPTS.generateArchitecturePlan })).toBeEnabled();
    expect(planningDb.streamCalls).toEqual([]);
  });

  it('says why there is no command (no key yet), and shows nothing for a new machine', async () => {
    planningDb.inspectionOffer = { target_kind: 'existing', available: false, target: 'deploy@203.0.113.7:2222', reason: 'Add the private key … as the SSH_PRIVATE_KEY User Secret' };
    const { unmount } = renderApp('/app/7');
    const panel = await screen.findByRole('region', { name: 'Your server' }, { timeout: 5000 });
    expect(panel).toHaveTextContent('SSH_PRIVATE_KEY');
    expect(within(panel).queryByRole('button')).toBeNull();
    unmount();

    planningDb.inspectionOffer = { target_kind: 'new', available: false, reason: 'The plan creates a new machine' };
    renderApp('/app/7');
    await screen.findByText(/No architecture plan yet/, {}, { timeout: 5000 });
    expect(screen.queryByRole('region', { name: 'Your server' })).toBeNull();
  });

  it('a server named by User Secrets: the command with the variables, and a word that their values stay in the workspace', async () => {
    const command = "# da-inspect v1 target=$SERVER_USER@$SERVER_HOST:22: reads listening ports…\nssh … \"$SERVER_USER@$SERVER_HOST\" 'bash -s' <<'INSPECT'";
    planningDb.inspectionOffer = { target_kind: 'existing', available: true, target: '$SERVER_USER@$SERVER_HOST:22', named_by_secrets: ['SERVER_USER', 'SERVER_HOST'], command };
    renderApp('/app/7');
    const panel = await screen.findByRole('region', { name: 'Your server' }, { timeout: 5000 });
    expect(within(panel).getByRole('heading', { name: 'Your server: $SERVER_USER@$SERVER_HOST:22' })).toBeInTheDocument();
    expect(panel).toHaveTextContent('The server your User Secrets SERVER_USER and SERVER_HOST name: the command reads their values in your workspace');
    expect(within(panel).getByLabelText('Inspection command')).toHaveTextContent('"$SERVER_USER@$SERVER_HOST"');
  });
});
