import { expect, test, type Locator, type Page } from '@playwright/test';
import { signInWithNewProject } from './support/project';
import { watchForErrors } from './support/watchForErrors';
import { openExecutionChat } from './support/executionChat';

/**
 * Several terminals per sandbox: a second browser tab gets a shell of its own and the first stays
 * connected; a terminal whose socket dropped (its shell exited) shows Reconnect, which brings it back.
 * Also the execution chat's history after a reload.
 */

/** The terminal's screen as text: xterm's DOM renderer draws one `div` per row into `.xterm-rows`. */
const rowsOf = (page: Page): Locator => page.getByTestId('terminal').locator('.xterm-rows');

async function openTerminal(page: Page, projectId: number): Promise<Locator> {
  await page.goto(`/app/${projectId}`);
  const panel = await openExecutionChat(page);
  await panel.getByRole('tab', { name: 'Terminal' }).click();
  const rows = rowsOf(page);
  await expect(rows).toContainText('Connected to sandbox terminal', { timeout: 20_000 });
  return rows;
}

async function typeInto(page: Page, text: string): Promise<void> {
  await page.getByTestId('terminal').click();
  await page.keyboard.type(text);
  await page.keyboard.press('Enter');
}

test('a second tab opens a terminal of its own, the first stays; Reconnect brings a dropped terminal back', async ({ page, context }) => {
  const errors = watchForErrors(page);
  const projectId = await signInWithNewProject(page, 'e2e-terminals', 'Terminals journey');
  const installationId = await page.evaluate(() => window.sessionStorage.getItem('installation_id') ?? '');
  const headers = { 'Installation-Id': installationId };
  const init = await page.request.post(`/api/sandbox/initialize/${projectId}`, { headers, data: {} });
  expect((await init.json()).status).toBe('success');
  const moved = await page.request.put(`/api/project-states/${projectId}/current-stage/execution`, { headers });
  expect(moved.ok()).toBe(true);

  const first = await openTerminal(page, projectId);
  await typeInto(page, 'export MARK=first-tab; echo "ready-$((20+1))"');
  await expect(first).toContainText('ready-21');

  // A second tab of the same person (its own session storage, so its own terminal id).
  const other = await context.newPage();
  await other.goto('/');
  await other.evaluate((id) => window.sessionStorage.setItem('installation_id', id), installationId);
  const second = await openTerminal(other, projectId);
  await typeInto(other, 'echo "mark=[$MARK]"');
  await expect(second).toContainText('mark=[]');

  // The first tab's shell is still there and still its own.
  await typeInto(page, 'echo "mark=[$MARK]"');
  await expect(first).toContainText('mark=[first-tab]');
  await expect(first).not.toContainText('Connection closed');
  await other.close();

  // The shell exits: the socket drops, the terminal says why and offers Reconnect.
  await typeInto(page, 'exit');
  await expect(first).toContainText('Connection closed: Shell exited', { timeout: 15_000 });
  const reconnect = page.getByTestId('terminal').getByRole('button', { name: 'Reconnect' });
  await expect(reconnect).toBeVisible();
  await reconnect.click();
  await expect(reconnect).toBeHidden({ timeout: 15_000 });
  await typeInto(page, 'echo "back-$((40+2))"');
  await expect(first).toContainText('back-42');

  // The execution chat keeps its conversation across a reload.
  const chat = await openExecutionChat(page);
  await chat.getByRole('tab', { name: 'Chat' }).click();
  await chat.getByRole('textbox', { name: 'Message' }).fill('How is the execution going?');
  await chat.getByRole('textbox', { name: 'Message' }).press('Enter');
  const messages = chat.getByRole('list', { name: 'Messages' });
  await expect(messages.getByRole('listitem')).toHaveCount(2);
  await expect(chat.getByRole('textbox', { name: 'Message' })).toBeEnabled({ timeout: 45_000 });
  const reply = (await messages.getByRole('listitem').nth(1).textContent()) ?? '';
  expect(reply.length).toBeGreaterThan(0);
  await page.reload();
  const after = (await openExecutionChat(page)).getByRole('list', { name: 'Messages' });
  // Each message is shown under its speaker (You, Assistant), as in every chat.
  await expect(after.getByRole('listitem')).toHaveText([/How is the execution going\?$/, reply]);

  expect(errors).toEqual([]);
});
