import { screen, within } from '@testing-library/react';
import type { BackupRun } from '../../../src/shared/api/backups';
import { INSTALLATION_ID_KEY } from '../../../src/shared/constants';
import { BACKUPS_TEXT, sizeInWords } from '../../../src/shared/constants/backups';
import { useFakeProjectHome } from './fakeSandbox';
import { backupsDb } from '../utils/backupsServer';
import { makeProject } from '../utils/factories';
import { renderApp } from '../utils/renderWithProviders';
import { seedProjects } from '../utils/server';

const PROJECT = 7;
const run = (kind: BackupRun['kind'], ok: boolean, at: string, extra: Partial<BackupRun> = {}): BackupRun => ({
  id: 1,
  kind,
  ok,
  started_at: at,
  seconds: kind === 'drill' ? 58 : 67,
  destination: 'SSH host restic@backup.example.net port 22, /srv/restic',
  bytes: 976_000_000,
  added: kind === 'drill' ? null : 12_500_000,
  snapshot: 'a1b2c3d4',
  failure: ok ? null : 'Failed at "check the repository (restic check)": Fatal: repository contains errors',
  checks: kind === 'drill' && ok ? [{ what: 'postgres', ok: true, tables: 2, rows: 976129, load_errors: 0 }] : [],
  ...extra,
});

const panel = async (): Promise<HTMLElement> => (await screen.findByRole('heading', { level: 2, name: BACKUPS_TEXT.title })).closest('section')!;

/** The project home's backups panel, through the real store against msw's server. */
describe('backups on the project home', () => {
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    seedProjects(makeProject({ id: PROJECT, name: 'Edge proxy' }));
    useFakeProjectHome();
  });

  it('shows the last backup and the last proven restore with times and sizes', async () => {
    backupsDb.byProject.set(PROJECT, { last_backup: run('backup', true, '2026-11-28T03:30:00.000Z'), last_drill: run('drill', true, '2026-11-28T04:00:00.000Z'), last_proven: run('drill', true, '2026-11-28T04:00:00.000Z'), overdue: null });
    renderApp(`/app/${PROJECT}/home`);
    const backups = await panel();
    expect(await within(backups).findByText(/2026-11-28 03:30 UTC\): 930\.8 MB backed up \(11\.9 MB new\) in 67 s, snapshot a1b2c3d4, to SSH host restic@backup\.example\.net/)).toBeInTheDocument();
    expect(within(backups).getByText(/2026-11-28 04:00 UTC\): snapshot a1b2c3d4 restored \(930\.8 MB\) and checked in 58 s: postgres 2 tables 976129 rows\./)).toBeInTheDocument();
    expect(within(backups).queryByRole('alert')).toBeNull();
  });

  it('a failed drill is shown as failed, in words, beside the last restore that passed', async () => {
    backupsDb.byProject.set(PROJECT, { last_backup: run('backup', true, '2026-11-28T03:30:00.000Z'), last_drill: run('drill', false, '2026-11-28T05:00:00.000Z'), last_proven: run('drill', true, '2026-11-27T04:00:00.000Z'), overdue: null });
    renderApp(`/app/${PROJECT}/home`);
    const backups = await panel();
    const alert = await within(backups).findByRole('alert');
    expect(alert).toHaveTextContent(/The restore drill of .*2026-11-28 05:00 UTC\) failed: Failed at "check the repository \(restic check\)": Fatal: repository contains errors/);
    expect(within(backups).getByText(BACKUPS_TEXT.lastProven).nextSibling).toHaveTextContent(/2026-11-27 04:00 UTC/);
  });

  it('a nightly backup that did not run is shown overdue since its first missed due time, with what to check', async () => {
    const detail = 'The nightly backup due at 2026-11-28 02:30 UTC (cron "30 3 * * *") did not report within 120 minutes.\nThe last backup started at 2026-11-26 02:30 UTC.\nThe cron entry /etc/cron.d/stack-backup is gone from the server, so nothing starts the backup: execute the plan\'s backup step again to put it back.';
    backupsDb.byProject.set(PROJECT, {
      last_backup: run('backup', true, '2026-11-26T02:30:00.000Z'),
      last_drill: run('drill', true, '2026-11-26T04:00:00.000Z'),
      last_proven: run('drill', true, '2026-11-26T04:00:00.000Z'),
      overdue: { since: '2026-11-27T02:30:00.000Z', due_at: '2026-11-28T02:30:00.000Z', missed: 2, detail },
    });
    renderApp(`/app/${PROJECT}/home`);
    const alert = await within(await panel()).findByRole('alert');
    expect(alert).toHaveTextContent(/^Overdue since .* \(2026-11-27 02:30 UTC\): the nightly backup did not run at any of the 2 times it was due\. The nightly backup due at 2026-11-28 02:30 UTC/);
    expect(alert).toHaveTextContent('The cron entry /etc/cron.d/stack-backup is gone from the server');
    expect(within(await panel()).getByText(BACKUPS_TEXT.nightly)).toBeInTheDocument();
  });

  it('says when nothing ran yet', async () => {
    renderApp(`/app/${PROJECT}/home`);
    expect(await within(await panel()).findByText(BACKUPS_TEXT.none)).toBeInTheDocument();
  });

  it('says no backup is proven when only failed drills ran', async () => {
    backupsDb.byProject.set(PROJECT, { last_backup: run('backup', false, '2026-11-28T03:30:00.000Z', { bytes: null, snapshot: null, failure: 'The step failed before the backup reported a result: The command exited with status 255.' }), last_drill: run('drill', false, '2026-11-28T05:00:00.000Z'), last_proven: null, overdue: null });
    renderApp(`/app/${PROJECT}/home`);
    const backups = await panel();
    expect(await within(backups).findByText(BACKUPS_TEXT.noProven)).toBeInTheDocument();
    expect(within(backups).getAllByRole('alert').map((a) => a.textContent)).toEqual([expect.stringMatching(/^The backup of .* failed: The step failed before the backup reported a result/), expect.stringMatching(/^The restore drill of .* failed/)]);
  });

  it('says the backups could not be loaded', async () => {
    backupsDb.failing.add(PROJECT);
    renderApp(`/app/${PROJECT}/home`);
    expect(await within(await panel()).findByText(BACKUPS_TEXT.loadError)).toBeInTheDocument();
  });

  it('sizes read as a person reads them', () => {
    expect([0, 1023, 1024, 1_500_000, 976_000_000, 5 * 1024 ** 4].map(sizeInWords)).toEqual(['0 bytes', '1023 bytes', '1 KB', '1.4 MB', '930.8 MB', '5.0 TB']);
  });
});
