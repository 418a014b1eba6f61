import { expect, test, type Locator, type Page } from '@playwright/test';
import { planAnN8nStack, recordStatusTexts, STEP_TIMEOUT, STREAM_TIMEOUT } from './support/planning';
import { watchForErrors } from './support/watchForErrors';
import { signInWithNewProject } from './support/project';
import { openExecutionChat, openStep, saveProposal } from './support/executionChat';

/**
 * The execution journey of issue 4 with the offline planner and the local (bubblewrap) sandbox: a
 * person plans an n8n stack, confirms the implementation plan, watches the sandbox get ready, and in
 * the execution stage approves, rejects and re-executes steps, reads their output, uses the terminal
 * (where the agent's commands appear typed), and finds that Auto-Approve never runs a dangerous step.
 * The sandbox has no Docker engine and no cloud credentials: steps that need them fail, which is part
 * of the journey (a failed step shows its error and can run again).
 */

/** The terminal's screen as text: xterm's DOM renderer draws one `div` per row into `.xterm-rows`. */
function terminalRows(page: Page): Locator {
  return page.getByTestId('terminal').locator('.xterm-rows');
}

test('a person confirms the implementation plan, approves, rejects and re-executes steps, and uses the sandbox terminal', async ({ page }) => {
  test.setTimeout(300_000);
  const errors = watchForErrors(page);
  const started = Date.now();

  await signInWithNewProject(page, 'e2e-runner', 'Team automations');

  await planAnN8nStack(page);
  const planned = Date.now();

  // ---- Implementation confirm: the sandbox is prepared, execution triggered, the stage moves on ----
  const stages = page.getByRole('list', { name: 'Stages' });
  const implementationPlan = page.getByRole('region', { name: 'Implementation Plan', exact: true });
  await recordStatusTexts(implementationPlan);
  const confirm = implementationPlan.getByRole('button', { name: 'Confirm Implementation Plan' });
  await expect(confirm).toBeEnabled();
  await confirm.click();
  await expect(stages.getByRole('button', { name: /^Stage 4: / })).toHaveAttribute('aria-current', 'step', { timeout: 60_000 });
  await expect(stages.getByRole('button', { name: /^Stage 3: .*\(completed\)/ })).toBeVisible();
  const statusTexts = await page.evaluate(() => (window as unknown as { statusTexts: string[] }).statusTexts);
  expect(statusTexts).toContain('Preparing the sandbox (attempt 1 of 30)...');
  expect(statusTexts).toContain('Starting execution...');

  // ---- Execution stage: every planned step waits for approval ----
  const progress = page.getByRole('region', { name: 'Execution Progress', exact: true });
  const steps = progress.getByRole('list', { name: 'Execution steps' }).locator(':scope > li');
  await expect(steps.first()).toBeVisible({ timeout: 15_000 });
  const total = await steps.count();
  expect(total).toBeGreaterThanOrEqual(4);
  await expect(progress.getByText(`0 / ${total} steps completed`)).toBeVisible();
  await expect(progress.getByText('Current Execution: None')).toBeVisible();
  await expect(progress.getByText('Last Executed: None')).toBeVisible();
  await expect(progress.getByRole('img', { name: '0% complete' })).toBeVisible();
  for (const card of await steps.all()) {
    await expect(card).toContainText('waiting approval');
    await expect(card.getByRole('button', { name: 'Approve' })).toBeEnabled();
    await expect(card.getByRole('button', { name: 'Reject' })).toBeEnabled();
  }
  // The planned commands are on the cards: step 1 makes the deploy key.
  const step = (n: number): Locator => progress.getByRole('listitem', { name: new RegExp(`^Step ${n}: `) });
  await expect(step(1)).toContainText('Command to be executed');
  await expect(step(1)).toContainText('ssh-keygen -t ed25519');
  // Creating the server and its cloud firewall (step 2) and the host's firewall and sshd changes (step 4)
  // can cost money or lock the sandbox out: both are held for an explicit approval; nothing else is.
  await expect(progress.getByRole('note')).toHaveCount(2);
  // (The reasons themselves are the danger rules' unit tests; a step shows the first that applies.)
  await expect(step(2).getByRole('note')).toContainText('Needs your explicit approval (never auto-approved)');
  await expect(step(4).getByRole('note')).toContainText('Needs your explicit approval (never auto-approved)');

  // ---- Terminal: connected, a command typed by hand ----
  const chatPanel = await openExecutionChat(page);
  await expect(chatPanel.getByRole('tab')).toHaveText(['Chat', 'Terminal']);
  await chatPanel.getByRole('tab', { name: 'Terminal' }).click();
  const rows = terminalRows(page);
  await expect(rows).toContainText('Connected to sandbox terminal', { timeout: 15_000 });
  // The terminal keeps the size the panel gives it (fitting it once grew its box a row at a time, without end).
  const screen = page.getByTestId('terminal');
  const box = await screen.boundingBox();
  expect(box!.height).toBeLessThan(700);
  // A fit that grew the box did so once per rendered frame: thirty frames later it is the same, however busy the machine.
  await page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        let left = 30;
        const tick = (): void => {
          left -= 1;
          if (left === 0) resolve();
          else requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
  );
  expect(await screen.boundingBox()).toEqual(box);
  await screen.click();
  await page.keyboard.type('echo hello-from-e2e');
  await page.keyboard.press('Enter');
  // The echoed input line plus the command's own output line.
  await expect(rows).toContainText(/echo hello-from-e2e.*hello-from-e2e/, { timeout: 15_000 });

  // ---- Approve step 1: it runs, its command appears typed in the terminal, its output on the card ----
  await step(1).getByRole('button', { name: 'Approve' }).click();
  await expect(rows).toContainText('ssh-keygen -t ed25519', { timeout: 30_000 });
  await expect(step(1)).toContainText(/completed|failed/, { timeout: STEP_TIMEOUT });
  await expect(step(1)).toContainText('completed');
  await expect(progress.getByText(`1 / ${total} steps completed`)).toBeVisible();
  await expect(progress.getByText('Last Executed: Step 1 (completed)')).toBeVisible();
  // A completed card collapses; open it to read the output (5 lines, then 'View Full Output').
  const toggle1 = step(1).locator('button[aria-expanded]');
  if ((await toggle1.getAttribute('aria-expanded')) !== 'true') await toggle1.click();
  const preview = step(1).getByTestId('step-1-output');
  await expect(preview).toContainText('Generating public/private ed25519 key pair');
  expect((await preview.textContent())!.split('\n')).toHaveLength(5);
  await step(1).getByRole('button', { name: 'View Full Output' }).click();
  const fullOutput = page.getByRole('dialog', { name: 'Full Output' });
  await expect(fullOutput).toBeVisible();
  await expect(fullOutput).toContainText('Output appears here as the command runs.');
  await expect(fullOutput).toContainText("The key's randomart image is");
  await expect(fullOutput.getByRole('button', { name: 'Copy to Clipboard' })).toBeVisible();
  expect(await page.evaluate(() => document.body.style.overflow)).toBe('hidden');
  await page.keyboard.press('Escape');
  await expect(fullOutput).toHaveCount(0);
  expect(await page.evaluate(() => document.body.style.overflow)).not.toBe('hidden');

  // ---- Reject step 2 (it would create servers with cloud credentials the sandbox does not have) ----
  await step(2).getByRole('button', { name: 'Reject' }).click();
  await expect(step(2)).toContainText('rejected');
  await expect(step(2).getByRole('button', { name: 'Approve' })).toHaveCount(0);
  await expect(progress.getByText(`1 / ${total} steps completed`)).toBeVisible();

  // ---- Auto-Approve never runs a dangerous step ----
  // The execution agent (Chat tab) changes step 2 into a recursive delete of /etc: it waits again, marked.
  await chatPanel.getByRole('tab', { name: 'Chat' }).click();
  const message = chatPanel.getByRole('textbox', { name: 'Message', exact: true });
  // A change is a proposal: the card shows the difference, and only Save change makes it the step.
  await message.fill('Change step 2: replace the whole command with `rm -rf /etc/nginx /etc`');
  await message.press('Enter');
  await expect(chatPanel.getByRole('list', { name: 'Messages', exact: true }).locator('li').last()).toContainText('I prepared a change to step 2', { timeout: STREAM_TIMEOUT });
  await expect(message).toBeEnabled();
  await saveProposal(step(2));
  await expect(step(2)).toContainText('waiting approval', { timeout: 15_000 });
  const danger = step(2).getByRole('note');
  await expect(danger).toContainText('Needs your explicit approval (never auto-approved)');
  await expect(danger).toContainText('Recursively deletes a system path (/etc)');

  const autoApprove = progress.getByRole('switch', { name: 'Auto-Approve All Steps' });
  // The switch is drawn by its label (the checkbox itself is visually hidden): people click the label.
  const autoApproveLabel = progress.locator('label', { hasText: 'Auto-Approve All Steps' });
  let approvals = 0;
  page.on('request', (request) => {
    if (request.url().endsWith('/api/execution/approve-step')) approvals += 1;
  });
  await expect(autoApprove).not.toBeChecked();
  await autoApproveLabel.click();
  await expect(autoApprove).toBeChecked();
  // Two progress polls (5 s apart) pass with Auto-Approve on: step 2 still waits, nothing was sent.
  for (let polls = 0; polls < 2; polls += 1) {
    await page.waitForResponse((r) => r.url().endsWith('/api/execution/progress'), { timeout: 15_000 });
  }
  await expect(step(2)).toContainText('waiting approval');
  expect(approvals).toBe(0);

  // The same step made harmless is approved automatically: Auto-Approve works, the danger held it back.
  await message.fill('Change step 2: replace the whole command with `echo auto-approved-step && ls ssh-keys`');
  await message.press('Enter');
  await expect(chatPanel.getByRole('list', { name: 'Messages', exact: true }).locator('li').last()).toContainText('I prepared a change to step 2', { timeout: STREAM_TIMEOUT });
  await saveProposal(step(2));
  await expect(step(2).getByRole('note')).toHaveCount(0, { timeout: 15_000 });
  // (How the terminal shows an agent's command is checked with step 1 above: here Auto-Approve goes straight
  // on to step 3, whose long script scrolls step 2 out of the terminal's view.)
  await expect(step(2)).toContainText('completed', { timeout: STEP_TIMEOUT });
  expect(approvals).toBeGreaterThanOrEqual(1);
  await openStep(step(2));
  await expect(step(2).getByTestId('step-2-output')).toContainText('auto-approved-step');
  await expect(step(2).getByTestId('step-2-output')).toContainText('deploy_key.pub');
  await expect(progress.getByText(`2 / ${total} steps completed`)).toBeVisible();

  // Auto-Approve goes on to step 3, which only reads what the server has: it logs in over SSH to a server
  // that does not exist here, so it fails with its error shown. Step 4 changes the server's firewall and
  // sshd: Auto-Approve leaves it waiting.
  await expect(step(3)).toContainText('failed', { timeout: STEP_TIMEOUT });
  await expect(step(3).getByRole('alert')).toContainText(/The command exited with code \d+\./);
  await expect(step(3).getByTestId('step-3-output')).toBeVisible();
  for (let polls = 0; polls < 2; polls += 1) {
    await page.waitForResponse((r) => r.url().endsWith('/api/execution/progress'), { timeout: 15_000 });
  }
  await expect(step(4)).toContainText('waiting approval');
  await autoApproveLabel.click();
  await expect(autoApprove).not.toBeChecked();

  // ---- A failed step runs again on Re-execute ----
  const rerun = page.waitForResponse((r) => r.url().endsWith('/api/execution/approve-step') && r.request().method() === 'POST');
  await step(3).getByRole('button', { name: 'Re-execute' }).click();
  const answer = await rerun;
  expect(answer.status()).toBe(200);
  expect(await answer.json()).toMatchObject({ step_number: 3, status: 'in_progress' });
  await expect(step(3)).toContainText('failed', { timeout: STEP_TIMEOUT });
  await expect(step(3).getByRole('button', { name: 'Re-execute' })).toBeEnabled();
  await expect(progress.getByText('Last Executed: Step 3 (failed)')).toBeVisible();

  expect(errors).toEqual([]);
  const seconds = (ms: number): number => Math.round(ms / 1000);
  test.info().annotations.push({
    type: 'journey',
    description: `${seconds(Date.now() - started)} s in the browser (planning ${seconds(planned - started)} s)`,
  });
});
