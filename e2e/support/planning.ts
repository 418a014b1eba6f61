import { expect, type Locator, type Page } from '@playwright/test';

/** What the execution and validation journeys share: planning an n8n stack through the UI and watching status texts. */

/** Planner replies stream token by token; a step runs in the sandbox and the progress is polled every 5 s. */
export const STREAM_TIMEOUT = 60_000;
export const STEP_TIMEOUT = 45_000;

/** The last reply of a planning chat once it has finished streaming. */
export async function waitForReply(page: Page, title: string): Promise<void> {
  const card = page.getByRole('region', { name: title, exact: true });
  await expect(card.getByLabel(`Message ${title}`)).toBeEnabled({ timeout: STREAM_TIMEOUT });
  const reply = card.getByRole('list', { name: `${title} messages` }).locator(':scope > li[data-role]').last();
  await expect(reply).toHaveAttribute('data-role', 'assistant');
  await expect(reply).not.toContainText('Thinking...');
}

/** Requirements → architecture → implementation plan through the UI, as e2e/planning.spec.ts does. */
export async function planAnN8nStack(page: Page): Promise<void> {
  const requirements = page.getByRole('region', { name: 'Requirements Gatherer', exact: true });
  const input = requirements.getByLabel('Message Requirements Gatherer');
  await input.fill(
    "I'd like to self-host n8n behind a reverse proxy with SSL on my domain automations.example.com, on a Hetzner VPS. It's for a small team.",
  );
  await input.press('Enter');
  await waitForReply(page, 'Requirements Gatherer');
  await input.fill('Germany please, Falkenstein is fine.');
  await input.press('Enter');
  await waitForReply(page, 'Requirements Gatherer');
  // The secrets the stack's .env needs, saved as a person would: a step that writes the .env fails, naming
  // the secret, while one is missing.
  const collected = page.getByRole('region', { name: 'Collected Requirements', exact: true });
  await collected.getByRole('tab', { name: /User Secrets/ }).click();
  await collected.locator('#secret-N8N_ENCRYPTION_KEY').fill('e2e-n8n-encryption-key-0123456789');
  await collected.locator('#secret-ACME_EMAIL').fill('ops@automations.example.com');
  await collected.getByRole('button', { name: 'Save Secrets' }).click();
  await expect(collected.getByText('Successfully saved 2 secret(s)!')).toBeVisible({ timeout: 15_000 });
  await confirmThePlans(page);
}

/** Confirms the collected requirements, then the architecture; waits for the implementation plan's first step. */
export async function confirmThePlans(page: Page): Promise<void> {
  const stages = page.getByRole('list', { name: 'Stages' });
  const confirmRequirements = page.getByRole('region', { name: 'Collected Requirements', exact: true }).getByRole('button', { name: 'Confirm Requirements' });
  await expect(confirmRequirements).toBeEnabled({ timeout: 15_000 });
  await confirmRequirements.click();

  await expect(stages.getByRole('button', { name: /^Stage 2: / })).toHaveAttribute('aria-current', 'step', { timeout: 15_000 });
  await waitForReply(page, 'Cloud Architecture Assistant');
  const confirmArchitecture = page.getByRole('region', { name: 'Cloud Architecture Plan', exact: true }).getByRole('button', { name: 'Confirm Architecture' });
  await expect(confirmArchitecture).toBeEnabled({ timeout: 15_000 });
  await confirmArchitecture.click();

  await expect(stages.getByRole('button', { name: /^Stage 3: / })).toHaveAttribute('aria-current', 'step', { timeout: 15_000 });
  await waitForReply(page, 'Implementation Planner');
  await expect(
    page.getByRole('region', { name: 'Implementation Plan', exact: true }).getByRole('heading', { level: 2, name: /^Step 1: / }),
  ).toBeVisible({ timeout: 15_000 });
}

/** Records every text a `role=status` element shows under `root`, as the DOM changes (a spinner may show briefly). */
export async function recordStatusTexts(root: Locator): Promise<void> {
  await root.evaluate((element) => {
    const seen: string[] = [];
    (window as unknown as { statusTexts: string[] }).statusTexts = seen;
    const look = (): void => {
      for (const status of element.querySelectorAll('[role="status"]')) {
        const text = status.textContent?.trim();
        if (text && seen.at(-1) !== text) seen.push(text);
      }
    };
    new MutationObserver(look).observe(element, { subtree: true, childList: true, characterData: true });
  });
}
