import { expect, test, type Locator, type Page } from '@playwright/test';
import { planAnN8nStack } from './support/planning';
import { photograph, SIZES } from './support/screenshots';
import { openExecutionChat } from './support/executionChat';

/**
 * The screens a person lives in, at the three sizes people use (issue 13): every main screen is
 * photographed into test-results/screenshots/ (kept by CI as an artifact, so layout regressions can be
 * seen), and the execution stage is measured — steps readable at 1280 and 390, the chat/terminal in
 * view while the steps scroll, a terminal of at least 100 columns at 1440, and a phone that opens on
 * the work with the stages a tap away and nothing overflowing sideways. The validation stage, which
 * needs every execution step run, is photographed by e2e/validation.spec.ts.
 */

/** Nothing on the page is wider than the window (no sideways scrolling). */
async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/** The width the step title of a card gets. */
async function titleWidth(card: Locator): Promise<number> {
  return card.locator('button[aria-expanded] > span').nth(1).evaluate((title) => title.getBoundingClientRect().width);
}

test('every main screen at 1440, 1280 and 390 wide, and an execution stage designed for its work', async ({ page }) => {
  test.setTimeout(300_000);
  await page.setViewportSize(SIZES[0]);
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await photograph(page, 'landing');
  await page.goto('/pricing');
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await photograph(page, 'pricing');

  await page.setViewportSize(SIZES[0]);
  await page.goto('/signin');
  await page.getByLabel('Login name').fill(`e2e-screens-${Date.now().toString(36)}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'My Projects' })).toBeVisible();
  await photograph(page, 'projects-empty');
  await page.setViewportSize(SIZES[0]);
  await page.getByRole('button', { name: 'Create New Project' }).first().click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Project name').fill('Screens');
  await dialog.getByRole('button', { name: 'Create Project' }).click();
  await expect(page).toHaveURL(/\/app\/\d+$/);
  const projectUrl = new URL(page.url()).pathname;
  await expect(page.getByRole('region', { name: 'Requirements Gatherer', exact: true })).toBeVisible();
  await photograph(page, 'stage1-requirements-empty');

  await page.setViewportSize(SIZES[0]);
  await planAnN8nStack(page);
  await photograph(page, 'stage3-implementation');
  const stages = page.getByRole('list', { name: 'Stages' });
  await page.setViewportSize(SIZES[0]);
  await stages.getByRole('button', { name: /^Stage 1: / }).click();
  await expect(page.getByRole('region', { name: 'Collected Requirements', exact: true })).toBeVisible();
  await photograph(page, 'stage1-requirements');
  await page.setViewportSize(SIZES[0]);
  await stages.getByRole('button', { name: /^Stage 2: / }).click();
  await expect(page.getByRole('region', { name: 'Cloud Architecture Plan', exact: true })).toBeVisible();
  await photograph(page, 'stage2-architecture');
  await page.setViewportSize(SIZES[0]);
  await stages.getByRole('button', { name: /^Stage 3: / }).click();

  const confirm = page.getByRole('region', { name: 'Implementation Plan', exact: true }).getByRole('button', { name: 'Confirm Implementation Plan' });
  await expect(confirm).toBeEnabled({ timeout: 15_000 });
  await confirm.click();
  await expect(stages.getByRole('button', { name: /^Stage 4: / })).toHaveAttribute('aria-current', 'step', { timeout: 60_000 });
  const progress = page.getByRole('region', { name: 'Execution Progress', exact: true });
  const steps = progress.getByRole('list', { name: 'Execution steps' }).locator(':scope > li');
  await expect(steps.first()).toBeVisible({ timeout: 15_000 });
  await photograph(page, 'stage4-execution');

  // ---- The stage opens on the step that waits: its card, with Approve and Reject, in view (issue 28) ----
  for (const size of [SIZES[1], SIZES[2]]) {
    await page.setViewportSize(size);
    await page.reload();
    const waiting = progress.getByRole('listitem').filter({ has: page.getByRole('button', { name: 'Approve', exact: true }) }).first();
    await expect(waiting).toBeVisible({ timeout: 15_000 });
    await expect.soft(waiting.getByRole('button', { name: 'Approve', exact: true }), `Approve in view at ${size.width}`).toBeInViewport();
    await expect.soft(waiting.getByRole('button', { name: 'Reject', exact: true }), `Reject in view at ${size.width}`).toBeInViewport();
  }
  // Only the current step is open: the page's height with every step, measured at 1440.
  await page.setViewportSize(SIZES[0]);
  const stepCount = await steps.count();
  const pageHeight = await page.evaluate(() => document.documentElement.scrollHeight);
  test.info().annotations.push({ type: 'execution page height', description: `${pageHeight} px with ${stepCount} steps at 1440x900` });
  process.stdout.write(`execution page height: ${pageHeight} px with ${stepCount} steps at 1440x900\n`);
  // The same at 12 steps (issue 28): the server's own progress answer, its steps repeated to twelve, each
  // waiting for approval; the page is measured with the first one current.
  await page.route('**/api/execution/progress', async (route) => {
    const answer = await route.fetch({ headers: { ...route.request().headers(), 'if-none-match': '' } });
    const body = (await answer.json()) as { steps: Array<Record<string, unknown>> } & Record<string, unknown>;
    const twelve = Array.from({ length: 12 }, (_, i) => ({ ...body.steps[i % body.steps.length], step_number: i + 1, status: 'waiting_approval', output: null, started_at: null, finished_at: null }));
    await route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify({ ...body, steps: twelve, totalSteps: 12, currentStep: 0 }) });
  });
  await page.reload();
  await expect(steps).toHaveCount(12, { timeout: 15_000 });
  const twelveHeight = await page.evaluate(() => document.documentElement.scrollHeight);
  test.info().annotations.push({ type: 'execution page height, 12 steps', description: `${twelveHeight} px with 12 steps at 1440x900` });
  process.stdout.write(`execution page height: ${twelveHeight} px with 12 steps at 1440x900\n`);
  await page.unroute('**/api/execution/progress');
  await page.reload();

  // ---- 1440: the terminal is at least 100 columns wide (the sandbox shell says how wide it is) ----
  await page.setViewportSize(SIZES[0]);
  const chatPanel = await openExecutionChat(page);
  await chatPanel.getByRole('tab', { name: 'Terminal' }).click();
  const rows = page.getByTestId('terminal').locator('.xterm-rows');
  await expect(rows).toContainText('Connected to sandbox terminal', { timeout: 15_000 });
  await page.getByTestId('terminal').click();
  await page.keyboard.type('echo "size:$(stty size)"');
  await page.keyboard.press('Enter');
  await expect(rows).toContainText(/size:\d+ \d+/, { timeout: 15_000 });
  const size = /size:(\d+) (\d+)/.exec((await rows.textContent()) ?? '');
  expect.soft(Number(size?.[2]), 'terminal columns at 1440').toBeGreaterThanOrEqual(100);
  await photograph(page, 'stage4-execution-terminal');
  await chatPanel.getByRole('tab', { name: 'Chat' }).click();

  // ---- 1280 and 390: every step title readable; the chat stays in view while the steps scroll ----
  for (const [size, minimum] of [[SIZES[1], 200], [SIZES[2], 150]] as const) {
    await page.setViewportSize(size);
    for (const card of await steps.all()) {
      expect.soft(await titleWidth(card), `step title width at ${size.width}`).toBeGreaterThanOrEqual(minimum);
    }
    expect.soft(await sidewaysOverflow(page), `sideways overflow at ${size.width}`).toBeLessThanOrEqual(0);
  }
  await page.setViewportSize(SIZES[1]);
  await steps.last().scrollIntoViewIfNeeded();
  await expect.soft(steps.last()).toBeInViewport();
  await expect.soft(chatPanel.getByRole('textbox', { name: 'Message', exact: true })).toBeInViewport();
  await steps.first().scrollIntoViewIfNeeded();
  await expect.soft(chatPanel.getByRole('textbox', { name: 'Message', exact: true })).toBeInViewport();

  // ---- The phone opens on the work; the stages are a tap away ----
  await page.setViewportSize(SIZES[2]);
  await page.reload();
  await expect(steps.first()).toBeVisible({ timeout: 15_000 });
  await expect.soft(steps.first()).toBeInViewport();
  const stagesToggle = page.getByRole('button', { name: 'Stages', exact: true });
  await expect.soft(stagesToggle).toHaveAttribute('aria-expanded', 'false');
  if (await stagesToggle.isVisible()) {
    await stagesToggle.click();
    await expect.soft(stages.getByRole('button', { name: /^Stage 4: / })).toBeInViewport();
    await photograph(page, 'stage4-execution-stages-open');
  }

  // ---- The other screens of a project ----
  await page.setViewportSize(SIZES[0]);
  await page.goto(`${projectUrl}/home`);
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await photograph(page, 'project-home');
  await page.setViewportSize(SIZES[2]);
  expect.soft(await sidewaysOverflow(page), 'project home sideways overflow at 390').toBeLessThanOrEqual(0);
  await page.setViewportSize(SIZES[0]);
  await page.goto(`${projectUrl}/costs`);
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible();
  await photograph(page, 'costs');
  await page.setViewportSize(SIZES[2]);
  expect.soft(await sidewaysOverflow(page), 'costs sideways overflow at 390').toBeLessThanOrEqual(0);
  await page.setViewportSize(SIZES[0]);
  await page.goto(`${projectUrl}/home/devops-helper`);
  await expect(page.getByRole('button', { name: 'Back to Project Home' })).toBeVisible();
  await photograph(page, 'devops-helper');
  await page.setViewportSize(SIZES[0]);
  await page.goto('/app');
  await expect(page.getByRole('heading', { name: 'My Projects' })).toBeVisible();
  await photograph(page, 'projects');
});
