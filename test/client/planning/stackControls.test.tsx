import { screen, waitFor, within } from '@testing-library/react';
import { INSTALLATION_ID_KEY, REQUIREMENTS_TEXT } from '../../../src/shared/constants';
import { applyStackOps } from '../../../src/shared/stackOps';
import { emptyStackModel } from '../../../src/shared/stackModel';
import { searchCatalogue } from '../../../src/client/features/planning/components/CatalogueSearch';
import { makeProject } from '../utils/factories';
import { FAKE_CATALOGUE, planningDb } from '../utils/planningServer';
import { renderApp } from '../utils/renderWithProviders';
import { seedProjects } from '../utils/server';

async function openPanel() {
  seedProjects(makeProject({ id: 7, name: 'Shop' }));
  const view = renderApp('/app/7');
  const panel = await screen.findByRole('region', { name: REQUIREMENTS_TEXT.panelTitle }, { timeout: 5000 });
  const stack = await within(panel).findByRole('region', { name: 'Stack components' }, { timeout: 5000 });
  return { ...view, panel, stack };
}

describe('the Collected Requirements panel’s stack controls', () => {
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    planningDb.stackModel = applyStackOps(emptyStackModel(), [{ op: 'addComponent', product: 'n8n' }, { op: 'addComponent', product: 'redis' }], FAKE_CATALOGUE);
  });

  it('lists the components with how each is reached and removes one with its control', async () => {
    const { user, stack } = await openPanel();
    const items = within(stack).getAllByRole('listitem').filter((li) => li.getAttribute('aria-label'));
    expect(items.map((li) => li.getAttribute('aria-label'))).toEqual(['n8n', 'postgres', 'redis']);
    expect(within(stack).getByRole('listitem', { name: 'postgres' })).toHaveTextContent('added for n8n');
    await user.click(within(stack).getByRole('button', { name: 'Remove redis' }));
    await waitFor(() => expect(within(stack).queryByRole('listitem', { name: 'redis' })).not.toBeInTheDocument());
    expect(planningDb.stackOps).toEqual([[{ op: 'exclude', name: 'redis' }]]);
    expect(within(stack).getByRole('status')).toHaveTextContent('Removed redis.');
  });

  it('adds from the catalogue by name and by category', async () => {
    const { user, stack } = await openPanel();
    const search = within(stack).getByRole('searchbox', { name: 'Add from the catalogue' });
    await user.type(search, 'admin');
    const results = within(stack).getByRole('list', { name: 'Catalogue results' });
    expect(within(results).getAllByRole('listitem')).toHaveLength(1);
    await user.click(within(results).getByRole('button', { name: 'Add Adminer 4.8' }));
    await within(stack).findByRole('listitem', { name: 'adminer' });
    await user.clear(search);
    await user.selectOptions(within(stack).getByRole('combobox', { name: 'Category' }), 'cache');
    expect(within(within(stack).getByRole('list', { name: 'Catalogue results' })).getByText('in the stack')).toBeInTheDocument();
  });

  it('sets a domain and a port, keeps a component private, and shows why the server refused a change', async () => {
    const { user, stack } = await openPanel();
    const n8n = within(stack).getByRole('listitem', { name: 'n8n' });
    await user.click(within(n8n).getByText('Change n8n'));
    await user.type(within(n8n).getByRole('textbox', { name: 'Domain' }), 'flows.example.com');
    await user.click(within(n8n).getByRole('button', { name: 'Set domain' }));
    await waitFor(() => expect(within(stack).getByRole('listitem', { name: 'n8n' })).toHaveTextContent('public at flows.example.com (HTTPS)'));
    expect(planningDb.stackOps.at(-1)).toEqual([{ op: 'setDomain', component: 'n8n', domain: 'flows.example.com' }]);

    const redis = within(stack).getByRole('listitem', { name: 'redis' });
    await user.click(within(redis).getByText('Change redis'));
    await user.click(within(redis).getByRole('button', { name: 'Keep redis private' }));
    await waitFor(() => expect(within(stack).getByRole('listitem', { name: 'redis' })).toHaveTextContent('kept private'));

    const postgres = within(stack).getByRole('listitem', { name: 'postgres' });
    await user.click(within(postgres).getByText('Change postgres'));
    await user.type(within(postgres).getByRole('textbox', { name: 'Host port' }), '443');
    await user.click(within(postgres).getByRole('button', { name: 'Set port' }));
    expect(await within(stack).findByRole('alert')).toHaveTextContent('host port 443 is already taken by caddy');
  });

  it('searches names, ids and categories with every word typed', () => {
    const catalogue = Object.values(FAKE_CATALOGUE);
    expect(searchCatalogue(catalogue, 'postgre', '').map((c) => c.id)).toEqual(['postgres']);
    expect(searchCatalogue(catalogue, '', 'proxy').map((c) => c.id)).toEqual(['caddy']);
    expect(searchCatalogue(catalogue, 'redis database', '')).toEqual([]);
  });
});

describe('the backup destination control', () => {
  beforeEach(() => {
    sessionStorage.setItem(INSTALLATION_ID_KEY, '42');
    planningDb.stackModel = applyStackOps(emptyStackModel(), [{ op: 'addComponent', product: 'n8n' }], FAKE_CATALOGUE);
  });

  it('says the backups stay on the server until a destination is chosen, sets an SSH host and an S3 bucket, and clears it', async () => {
    const { user, stack } = await openPanel();
    const backups = within(stack).getByRole('region', { name: 'Backups' });
    expect(backups).toHaveTextContent('On the server only: no destination is chosen');
    await user.click(within(backups).getByText('Choose where backups go'));
    await user.type(within(backups).getByRole('textbox', { name: 'Host' }), 'u123.your-storagebox.de');
    await user.type(within(backups).getByRole('textbox', { name: 'Port' }), '23');
    await user.type(within(backups).getByRole('textbox', { name: 'User' }), 'u123');
    // Credentials are not asked here: the text names the User Secrets they go to.
    expect(backups).toHaveTextContent('BACKUP_SSH_KEY');
    expect(within(backups).queryByLabelText(/password|key/i)).not.toBeInTheDocument();
    await user.click(within(backups).getByRole('button', { name: 'Set destination' }));
    await waitFor(() => expect(planningDb.stackOps.at(-1)).toEqual([{ op: 'setBackup', destination: 'sftp://u123@u123.your-storagebox.de:23/stack-backups' }]));
    await waitFor(() => expect(within(stack).getByRole('region', { name: 'Backups' })).toHaveTextContent('Nightly, encrypted, to the SSH host u123.your-storagebox.de port 23 as user u123, folder stack-backups (over SFTP).'));

    const again = within(stack).getByRole('region', { name: 'Backups' });
    await user.click(within(again).getByText('Change where backups go'));
    await user.click(within(again).getByRole('radio', { name: 'An S3-compatible bucket' }));
    await user.type(within(again).getByRole('textbox', { name: 'Endpoint' }), 's3.example.net');
    await user.type(within(again).getByRole('textbox', { name: 'Bucket' }), 'No_Such Bucket');
    await user.click(within(again).getByRole('button', { name: 'Set destination' }));
    expect(await within(again).findByRole('alert')).toHaveTextContent('is not a bucket name');
    await user.clear(within(again).getByRole('textbox', { name: 'Bucket' }));
    await user.type(within(again).getByRole('textbox', { name: 'Bucket' }), 'app-backups');
    await user.click(within(again).getByRole('button', { name: 'Set destination' }));
    await waitFor(() => expect(planningDb.stackModel.backup.destination).toBe('s3:https://s3.example.net/app-backups'));

    await user.click(within(stack).getByRole('button', { name: 'Keep backups on the server' }));
    await waitFor(() => expect(planningDb.stackModel.backup.destination).toBeUndefined());
    expect(planningDb.stackOps.at(-1)).toEqual([{ op: 'setBackup', destination: null }]);
  });
});
