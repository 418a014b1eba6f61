import { act, screen, waitFor, within } from '@testing-library/react';
import type { DriftCheck, ReleaseSummary } from '../../../src/shared/api/releases';
import { INSTALLATION_ID_KEY } from '../../../src/shared/constants';
import { DRIFT_TEXT, RELEASES_TEXT } from '../../../src/shared/constants/releases';
import { useFakeProjectHome } from './fakeSandbox';
import { makeProject } from '../utils/factories';
import { releasesDb } from '../utils/releasesServer';
import { renderApp } from '../utils/renderWithProviders';
import { openCommandStreams, seedProjects, sendCommandFrame } from '../utils/server';

const PROJECT = 7;
const release = (number: number, status: ReleaseSummary['status'], image: string, note: string | null = null): ReleaseSummary => ({
  number,
  status,
  created_at: `2026-11-28T09:0${number}:00.000Z`,
  directory: '/opt/stack',
  files: ['docker-compose.yml'],
  containers: status === 'rolled_back' ? [] : [{ service: 'web', image, digest: `sha256:${String(number).repeat(64)}`, ports: ['0.0.0.0:80->80/tcp'] }],
  note,
});

const panel = async (title: string): Promise<HTMLElement> => (await screen.findByRole('heading', { level: 2, name: title })).closest('section')!;

/** The project home's releases and drift panels, through the real store against msw's server. */
describe('releases and drift on the project home', () => {
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    seedProjects(makeProject({ id: PROJECT, name: 'Edge proxy' }));
    useFakeProjectHome();
  });

  it('"Roll back" shows the exact command, runs only once approved, and shows the outcome and the restored release', async () => {
    releasesDb.releases.set(PROJECT, [
      release(3, 'live', 'nginx:1.27.3'),
      release(2, 'rolled_back', 'nginx:1.28', 'The change did not pass its health gate: worker running unhealthy 0. The last healthy release is restored and healthy.'),
      release(1, 'superseded', 'nginx:1.27.2'),
    ]);
    const { user } = renderApp(`/app/${PROJECT}/home`);
    const releases = await panel(RELEASES_TEXT.title);
    expect(await within(releases).findByText(/worker running unhealthy/)).toBeInTheDocument();
    // Only a release that ran and is not running now can be restored.
    expect(within(releases).getAllByRole('button', { name: /Roll back/ }).map((b) => b.getAttribute('aria-label'))).toEqual([RELEASES_TEXT.rollBackTo(1)]);

    await user.click(within(releases).getByRole('button', { name: RELEASES_TEXT.rollBackTo(1) }));
    const confirm = await within(releases).findByRole('group', { name: RELEASES_TEXT.confirmTitle(1) });
    expect(within(confirm).getByText(/# restore release 1/)).toBeInTheDocument();
    expect(releasesDb.approved).toEqual([]);

    await user.click(within(confirm).getByRole('button', { name: RELEASES_TEXT.approve }));
    expect(releasesDb.approved).toEqual([{ plan_id: 31, step_number: 1, approved: true }]);
    expect(await within(releases).findByText(RELEASES_TEXT.done(1, 3.2), {}, { timeout: 8_000 })).toBeInTheDocument();
    // The restored release is listed as the one running now.
    await waitFor(() => expect(within(releases).getByText(RELEASES_TEXT.release(4))).toBeInTheDocument(), { timeout: 8_000 });
  }, 20_000);

  it('lists a release the server records after a deploy ended, without a reload, when the step stream says so', async () => {
    releasesDb.releases.set(PROJECT, [release(1, 'live', 'nginx:1.27.2')]);
    renderApp(`/app/${PROJECT}/home`);
    const releases = await panel(RELEASES_TEXT.title);
    expect(await within(releases).findByText(RELEASES_TEXT.release(1))).toBeInTheDocument();
    await waitFor(() => expect(openCommandStreams()).toBeGreaterThan(0));
    // The deploy's last step ended some seconds ago; the server has now read the stack and recorded release 2.
    releasesDb.releases.set(PROJECT, [release(2, 'live', 'nginx:1.27.3'), release(1, 'superseded', 'nginx:1.27.2')]);
    act(() => sendCommandFrame({ release: { number: 2, status: 'live' } }));
    expect(await within(releases).findByText(RELEASES_TEXT.release(2))).toBeInTheDocument();
    expect(within(releases).getByRole('button', { name: RELEASES_TEXT.rollBackTo(1) })).toBeInTheDocument();
  });

  it('cancelling the roll back rejects its step: nothing runs', async () => {
    releasesDb.releases.set(PROJECT, [release(2, 'live', 'nginx:1.27.3'), release(1, 'superseded', 'nginx:1.27.2')]);
    const { user } = renderApp(`/app/${PROJECT}/home`);
    const releases = await panel(RELEASES_TEXT.title);
    await user.click(await within(releases).findByRole('button', { name: RELEASES_TEXT.rollBackTo(1) }));
    await user.click(await within(releases).findByRole('button', { name: RELEASES_TEXT.reject }));
    expect(await within(releases).findByText(RELEASES_TEXT.rejected)).toBeInTheDocument();
    expect(releasesDb.approved).toEqual([{ plan_id: 31, step_number: 1, approved: false }]);
  });

  it('"Check drift" shows what differs by kind, each command with its output, and when it ran', async () => {
    const check: DriftCheck = {
      checked_at: new Date(Date.now() - 5_000).toISOString(),
      release: 4,
      checks: [{ title: 'Firewall rules', command: "ssh -F ssh-keys/config da-server 'bash -s' <<'CHECK'\nsudo -n iptables -S\nCHECK", output: '-A INPUT -s 203.0.113.7/32 -j DROP\n', exit_code: 0 }],
      differences: [
        { kind: 'firewall', detail: 'firewall rule added on the server: -A INPUT -s 203.0.113.7/32 -j DROP' },
        { kind: 'ports', detail: 'web published port added on the server: 127.0.0.1:18082->80/tcp' },
      ],
      error: null,
    };
    releasesDb.nextDrift = check;
    const { user } = renderApp(`/app/${PROJECT}/home`);
    const drift = await panel(DRIFT_TEXT.title);
    expect(await within(drift).findByText(DRIFT_TEXT.never)).toBeInTheDocument();
    await user.click(within(drift).getByRole('button', { name: DRIFT_TEXT.check }));
    expect(await within(drift).findByText(/Last checked .* against release 4\./)).toBeInTheDocument();
    expect(within(within(drift).getByRole('region', { name: DRIFT_TEXT.kinds.firewall })).getByText(/203\.0\.113\.7/)).toBeInTheDocument();
    expect(within(drift).getByRole('region', { name: DRIFT_TEXT.kinds.ports })).toHaveTextContent('127.0.0.1:18082->80/tcp');
    expect(within(drift).getByLabelText('Firewall rules: command')).toHaveTextContent('sudo -n iptables -S');
    expect(within(drift).getByLabelText('Firewall rules: output')).toHaveTextContent('203.0.113.7');
  });
});
