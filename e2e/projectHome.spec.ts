import { expect, test, type Page } from '@playwright/test';
import { watchForErrors } from './support/watchForErrors';

/**
 * The project home journey with the local (bubblewrap) sandbox: a person creates a project, its
 * sandbox is initialised through the API (as the implementation confirm does), and on the project home
 * they see it running, back it up, download the workspace, stop and start it, and read the
 * Environment Guide.
 */

/** Session storage key of the installation id (src/shared/constants/foundation.ts). */
const INSTALLATION_ID_KEY = 'installation_id';

/** Lifecycle calls run the sandbox for real: a backup or a start can take a few seconds. */
const SANDBOX_TIMEOUT = 45_000;

async function signInAndCreateProject(page: Page, name: string): Promise<number> {
  await page.goto('/signin');
  await page.getByLabel('Login name').fill('e2e-project-home');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'My Projects' })).toBeVisible();
  await page.getByRole('button', { name: 'Create New Project' }).first().click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Project name').fill(name);
  await dialog.getByLabel('Description (optional)').fill('Traefik in front of two services');
  await dialog.getByRole('button', { name: 'Create Project' }).click();
  await expect(page).toHaveURL(/\/app\/\d+$/);
  return Number(new URL(page.url()).pathname.split('/').pop());
}

/** POST /api/sandbox/initialize/{id} until it answers success, as the implementation confirm does. */
async function initialiseSandbox(page: Page, projectId: number): Promise<void> {
  const installationId = await page.evaluate((key) => sessionStorage.getItem(key), INSTALLATION_ID_KEY);
  expect(installationId).toBeTruthy();
  const headers = { 'Installation-Id': installationId ?? '', 'Project-Id': String(projectId) };
  await expect
    .poll(
      async () => {
        const response = await page.request.post(`/api/sandbox/initialize/${projectId}`, { headers, data: {} });
        expect(response.ok()).toBe(true);
        return ((await response.json()) as { status: string }).status;
      },
      { timeout: 60_000, intervals: [1_000, 2_000, 5_000] },
    )
    .toBe('success');
}

test('a person controls the project sandbox from the project home and reads the Environment Guide', async ({ page }) => {
  test.setTimeout(180_000);
  const errors = watchForErrors(page);
  const projectId = await signInAndCreateProject(page, 'Edge proxy');
  await initialiseSandbox(page, projectId);

  await page.goto(`/app/${projectId}/home`);
  await expect(page.getByRole('heading', { level: 1, name: 'Edge proxy' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Project Sandbox' })).toBeVisible();
  const status = page.getByTestId('sandbox-status');
  await expect(status).toHaveText('Running', { timeout: SANDBOX_TIMEOUT });
  // No documentation yet: the quick start view says so, under its Before You Begin note.
  await expect(page.getByRole('note')).toContainText('Before You Begin');
  await expect(page.getByText('No quick start guide available for this project.')).toBeVisible();
  const lastBackup = page.getByTestId('last-backup');
  await expect(lastBackup).toContainText('Never backed up');

  // Back up: the last backup time appears.
  const backup = page.getByRole('button', { name: 'Backup Sandbox Files' });
  await backup.hover();
  await expect(page.getByRole('tooltip')).toHaveText('Files must be backed up to be restored when the sandbox restarts.');
  await backup.click();
  await expect(lastBackup).toContainText('Just now', { timeout: SANDBOX_TIMEOUT });
  await expect(page.getByText('Sandbox files backed up.')).toBeVisible();

  // Download the workspace: the file is named after the project.
  const downloadStarted = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download Workspace Directory from Sandbox' }).click();
  const download = await downloadStarted;
  expect(download.suggestedFilename()).toBe(`${projectId}-working-directory.zip`);
  expect(await download.failure()).toBeNull();

  const folderStarted = page.waitForEvent('download');
  await page.getByRole('button', { name: 'Download Project Folder' }).click();
  const folder = await folderStarted;
  expect(folder.suggestedFilename()).toMatch(/^user_[A-Za-z0-9]+(_[A-Za-z0-9]+)*\.zip$/);
  expect(await folder.failure()).toBeNull();

  // Stop (backs up first), then start again.
  await page.getByRole('button', { name: 'Stop Sandbox' }).click();
  await expect(status).toHaveText('Stopped', { timeout: SANDBOX_TIMEOUT });
  await expect(backup).toBeDisabled();
  const start = page.getByRole('button', { name: 'Start Sandbox' });
  await expect(start).toBeEnabled();
  await start.click();
  await expect(status).toHaveText('Running', { timeout: SANDBOX_TIMEOUT });
  await expect(page.getByRole('button', { name: 'Stop Sandbox' })).toBeEnabled();
  await expect(lastBackup).toContainText('Just now');

  // The Environment Guide, from the sidebar, by keyboard.
  const guideLink = page.getByRole('navigation', { name: 'Project home' }).getByRole('link', { name: 'Environment Guide' });
  await guideLink.focus();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(new RegExp(`/app/${projectId}/home/environment$`));
  await expect(page.getByRole('heading', { level: 2, name: 'Environment Guide' })).toBeVisible();
  await expect(page.getByRole('heading', { name: 'Workspace folders' })).toBeVisible();
  await expect(page.getByText('ssh-keys/', { exact: true })).toBeVisible();

  // The cost box leads to the costs page, which returns to the project home.
  await page.getByRole('link', { name: 'View Details' }).click();
  await expect(page).toHaveURL(new RegExp(`/app/${projectId}/costs\\?returnTo=home$`));

  expect(errors).toEqual([]);
});
