import { expect, type Page } from '@playwright/test';

/**
 * Signs in as a new person (a fresh login name each run, so every journey starts with its own tenant)
 * and creates a project through the dialog; answers the project's id from the workspace URL.
 */
export async function signInWithNewProject(page: Page, loginPrefix: string, projectName: string): Promise<number> {
  await page.goto('/signin');
  await page.getByLabel('Login name').fill(`${loginPrefix}-${Date.now().toString(36)}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'My Projects' })).toBeVisible();
  await page.getByRole('button', { name: 'Create New Project' }).first().click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Project name').fill(projectName);
  await dialog.getByRole('button', { name: 'Create Project' }).click();
  await expect(page).toHaveURL(/\/app\/\d+$/);
  return Number(/\/app\/(\d+)$/.exec(page.url())![1]);
}
