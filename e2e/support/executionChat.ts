import { expect, type Locator, type Page } from '@playwright/test';
import { EXECUTION_TEXT } from '../../src/shared/constants/execution';

/**
 * The execution stage's agent panel (Chat and Terminal tabs), opened as a person opens it: it is closed
 * when the stage opens, so the steps have the screen.
 */
export async function openExecutionChat(page: Page): Promise<Locator> {
  const panel = page.getByRole('region', { name: 'Execution Agent', exact: true });
  const open = page.getByRole('button', { name: 'Open the agent chat and terminal' });
  await open.or(panel).first().waitFor();
  if (await open.isVisible()) await open.click();
  return panel;
}

/** Opens a step card's body (only the current step's is open by itself). */
export async function openStep(step: Locator): Promise<void> {
  const toggle = step.locator('button[aria-expanded]');
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
}

/**
 * Saves the change the execution agent proposed for a step: a change is a proposal until the person saves
 * it, with the difference shown on the card.
 */
export async function saveProposal(card: Locator): Promise<void> {
  await openStep(card);
  const proposal = card.getByRole('region', { name: EXECUTION_TEXT.proposalLabel });
  await expect(proposal).toBeVisible({ timeout: 15_000 });
  await proposal.getByRole('button', { name: EXECUTION_TEXT.saveChange }).click();
  await expect(proposal).toHaveCount(0, { timeout: 15_000 });
}
