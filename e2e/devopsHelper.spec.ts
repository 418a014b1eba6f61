import { expect, test } from '@playwright/test';
import { watchForErrors } from './support/watchForErrors';

/**
 * The DevOps Helper journey with the offline helper and the local (bubblewrap) sandbox: a person signs
 * in, creates a project, initialises its sandbox, opens the helper full page, accepts the Important
 * Notice, asks the helper to run a command, approves it and reads its output in the chat; a second
 * command is denied and never runs; a reload shows the conversation again.
 */

const REPLY_TIMEOUT = 45_000;

test('the DevOps Helper runs a command only after approval, and not after a denial', async ({ page }) => {
  const errors = watchForErrors(page);

  await page.goto('/');
  await page.getByRole('button', { name: 'Get Started' }).first().click();
  await page.getByLabel('Login name').fill('e2e-helper');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(/\/app\/?$/);

  await page.getByRole('button', { name: 'Create New Project' }).first().click();
  const create = page.getByRole('dialog');
  await create.getByLabel('Project name').fill('Helper journey');
  await create.getByRole('button', { name: 'Create Project' }).click();
  await expect(page).toHaveURL(/\/app\/\d+$/);
  const projectId = /\/app\/(\d+)$/.exec(page.url())![1]!;

  // The sandbox, initialised through the API with the browser's session.
  const installationId = await page.evaluate(() => window.sessionStorage.getItem('installation_id') ?? '');
  const init = await page.request.post(`/api/sandbox/initialize/${projectId}`, { headers: { 'Installation-Id': installationId }, data: {} });
  expect((await init.json()).status).toBe('success');

  await page.goto(`/app/${projectId}/home/devops-helper`);
  const notice = page.getByRole('dialog', { name: 'Important Notice' });
  await expect(notice).toContainText('full command access');
  const proceed = notice.getByRole('button', { name: 'I Understand - Proceed' });
  await expect(proceed).toBeDisabled();
  await notice.getByRole('checkbox').check();
  await proceed.click();

  const chat = page.getByRole('region', { name: 'DevOps Helper', exact: true });
  const input = chat.getByLabel('Message DevOps Helper');
  await input.fill('please run `echo hello-helper`');
  await input.press('Enter');
  const card = chat.getByRole('listitem', { name: 'Approval required' }).last();
  await expect(card).toContainText('echo hello-helper', { timeout: REPLY_TIMEOUT });
  await card.getByRole('button', { name: 'Approve' }).click();
  await expect(card).toContainText('Approved');
  await expect(chat.locator('li[data-role="assistant"]').last()).toContainText('exited with code 0', { timeout: REPLY_TIMEOUT });
  await expect(chat.locator('li[data-role="assistant"] pre').last()).toContainText('hello-helper');
  await expect(input).toBeEnabled({ timeout: REPLY_TIMEOUT });

  await input.fill('run `touch denied-by-me.txt && echo should-not-run`');
  await input.press('Enter');
  const second = chat.getByRole('listitem', { name: 'Approval required' }).nth(1);
  await expect(second).toContainText('denied-by-me.txt', { timeout: REPLY_TIMEOUT });
  await second.getByRole('button', { name: 'Deny' }).click();
  await expect(second).toContainText('Denied');
  await expect(chat.locator('li[data-role="assistant"]').last()).toContainText('The command was denied; it did not run.', { timeout: REPLY_TIMEOUT });
  await expect(chat.locator('li[data-role="assistant"] pre').filter({ hasText: 'should-not-run' })).toHaveCount(0);

  // A reload keeps the conversation: both messages, the command's output and the denial (the notice first).
  await page.reload();
  await notice.getByRole('checkbox').check();
  await proceed.click();
  await expect(chat.locator('li[data-role="user"]')).toHaveCount(2);
  await expect(chat.locator('li[data-role="user"]').first()).toContainText('echo hello-helper');
  await expect(chat.locator('li[data-role="assistant"] pre').first()).toContainText('hello-helper');
  await expect(chat.locator('li[data-role="assistant"]').last()).toContainText('The command was denied; it did not run.');

  expect(errors).toEqual([]);
});
