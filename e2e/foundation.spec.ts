import { expect, test } from '@playwright/test';
import { watchForErrors } from './support/watchForErrors';

test('a newcomer signs in, creates a project, finds it, opens its workspace and signs out', async ({ page }, testInfo) => {
  const errors = watchForErrors(page);
  // A retry is a newcomer of its own: the first try's projects would otherwise be found twice.
  const login = testInfo.retry ? `e2e-alice-retry${testInfo.retry}` : 'e2e-alice';

  await page.goto('/');
  await expect(page.getByText('Not so autonomous AI to assist you in creating and running your production infra')).toBeVisible();
  await page.getByRole('button', { name: 'Get Started' }).first().click();

  await expect(page).toHaveURL(/\/signin$/);
  await page.getByLabel('Login name').fill(login);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await expect(page).toHaveURL(/\/app\/?$/);
  await expect(page.getByRole('heading', { name: 'My Projects' })).toBeVisible();
  await expect(page.getByText(`@${login}`)).toBeVisible();

  for (const [name, description] of [
    ['Monitoring stack', 'Prometheus and Grafana on a VPS'],
    ['Automation', 'n8n behind a reverse proxy with SSL'],
  ]) {
    await page.getByRole('button', { name: 'Create New Project' }).first().click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Project name').fill(name);
    await dialog.getByLabel('Description (optional)').fill(description);
    await dialog.getByRole('button', { name: 'Create Project' }).click();
    // After creation the person is in the new project's workspace.
    await expect(page).toHaveURL(/\/app\/\d+$/);
    await expect(page.getByRole('heading', { name })).toBeVisible();
    await page.getByRole('link', { name: 'Return to Projects' }).click();
    await expect(page.getByRole('heading', { name: 'My Projects' })).toBeVisible();
  }

  const search = page.getByPlaceholder('Search projects...');
  await search.fill('GRAFANA');
  const cards = page.getByRole('list', { name: 'Projects' }).or(page.getByLabel('Projects'));
  await expect(cards.getByText('Monitoring stack')).toBeVisible();
  await expect(cards.getByText('Automation')).toHaveCount(0);
  await page.getByRole('button', { name: 'Clear search' }).click();
  await expect(cards.getByText('Automation')).toBeVisible();
  await search.fill('grafana');

  await cards.getByText('Monitoring stack').click();
  await expect(page).toHaveURL(/\/app\/\d+$/);
  const sidebar = page.getByRole('navigation', { name: /stages/i }).or(page.locator('nav')).first();
  await expect(sidebar.getByText('Requirements').first()).toBeVisible();
  await expect(page.getByText('Prometheus and Grafana on a VPS').first()).toBeVisible();
  await expect(page.getByText('$0.0000')).toBeVisible();

  // The workspace survives a reload (the project is fetched, not only carried in navigation state).
  await page.reload();
  await expect(page.getByRole('heading', { name: 'Monitoring stack' })).toBeVisible();

  await page.getByRole('button', { name: new RegExp(login) }).click();
  await page.getByRole('menuitem', { name: 'Sign Out' }).click();
  await expect(page).toHaveURL(/\/$/);
  expect(await page.evaluate(() => sessionStorage.getItem('installation_id'))).toBeNull();

  await page.goto('/app');
  await expect(page).toHaveURL(/\/$/);
  expect(errors).toEqual([]);
});

test('an unknown address shows Page Not Found with a way back', async ({ page }) => {
  await page.goto('/signin');
  await page.getByLabel('Login name').fill('e2e-bob');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/app\/?$/);
  await page.goto('/app/1/this/does/not/exist');
  await expect(page.getByText('Page Not Found')).toBeVisible();
  await page.getByRole('button', { name: 'Return to Projects' }).click();
  await expect(page).toHaveURL(/\/app\/?$/);
});
