import { readFileSync } from 'node:fs';
import { expect, type Locator, type Page } from '@playwright/test';
import { confirmThePlans, waitForReply } from './planning';
import type { TestServer } from './testServer';

/**
 * A deploy to the person's own server as they make it in the UI, in the pieces the journeys share
 * (deploy, releases, inspection): the stack asked for in words with the server named, the secrets saved
 * (the server's SSH key first), the plans confirmed, and every execution step approved one at a time.
 */

/** Pulling the images and waiting for every healthcheck can take minutes on a busy machine. */
export const DEPLOY_STEP_TIMEOUT = 300_000;

/** The requirements chat told what to run (`stack`, in words) on `target`, then that there is no domain. */
export async function askForStackOnServer(page: Page, target: TestServer, stack: string, trailing = ''): Promise<void> {
  const requirements = page.getByRole('region', { name: 'Requirements Gatherer', exact: true });
  const input = requirements.getByLabel('Message Requirements Gatherer');
  await input.fill(`${stack}, on my existing server ${target.user}@${target.host} port ${target.port}${trailing}`);
  await input.press('Enter');
  await waitForReply(page, 'Requirements Gatherer');
  await input.fill('No domain, just the IP address. Light load, a small team.');
  await input.press('Enter');
  await waitForReply(page, 'Requirements Gatherer');
}

/** Saves the server's SSH key and `values` (by secret name) on the User Secrets tab, as a person pastes them. */
export async function saveSecrets(page: Page, target: TestServer, values: Record<string, string>): Promise<void> {
  const collected = page.getByRole('region', { name: 'Collected Requirements', exact: true });
  await collected.getByRole('tab', { name: /User Secrets/ }).click();
  const all = { SSH_PRIVATE_KEY: readFileSync(target.private_key_file, 'utf8'), ...values };
  for (const [name, value] of Object.entries(all)) await collected.locator(`#secret-${name}`).fill(value);
  await collected.getByRole('button', { name: 'Save Secrets' }).click();
  await expect(collected.getByText(`Successfully saved ${Object.keys(all).length} secret(s)!`)).toBeVisible({ timeout: 15_000 });
}

/** Confirms the implementation plan on stage 3 and waits for the execution stage and its first step card. */
export async function confirmImplementation(page: Page): Promise<Locator> {
  const implementationPlan = page.getByRole('region', { name: 'Implementation Plan', exact: true });
  await implementationPlan.getByRole('button', { name: 'Confirm Implementation Plan' }).click();
  await expect(page.getByRole('list', { name: 'Stages' }).getByRole('button', { name: /^Stage 4: / })).toHaveAttribute('aria-current', 'step', { timeout: 60_000 });
  const progress = page.getByRole('region', { name: 'Execution Progress', exact: true });
  await expect(progress.getByRole('list', { name: 'Execution steps' }).locator(':scope > li').first()).toBeVisible({ timeout: 15_000 });
  return progress;
}

/** Step `n`'s card in a progress region (execution or validation). */
export const stepCard = (progress: Locator, n: number): Locator => progress.getByRole('listitem', { name: new RegExp(`^Step ${n}: `) });
/** A card's header (number, title, status, timing): its command text may hold words like 'failed' too. */
export const statusOf = (card: Locator): Locator => card.locator('button[aria-expanded]').first();

export interface StepRun {
  step: number;
  title: string;
  seconds: number;
}

/** Approves step `n` and waits until it ended; answers how (completed or failed) and the seconds it took. */
export async function approveStep(progress: Locator, n: number): Promise<StepRun & { status: 'completed' | 'failed' }> {
  const card = stepCard(progress, n);
  const toggle = statusOf(card);
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  const title = ((await card.getAttribute('aria-label')) ?? '').replace(/^Step \d+: /, '');
  const approved = Date.now();
  await card.getByRole('button', { name: 'Approve' }).click();
  await expect(toggle).toContainText(/completed|failed/, { timeout: DEPLOY_STEP_TIMEOUT });
  const status = /completed/.test((await toggle.textContent()) ?? '') ? 'completed' : 'failed';
  return { step: n, title, seconds: Math.round((Date.now() - approved) / 100) / 10, status };
}

/** The steps of the execution plan that wait for approval, in order (a revised plan keeps what did not change). */
export async function waitingSteps(progress: Locator): Promise<Array<{ step: number; title: string }>> {
  const cards = progress.getByRole('list', { name: 'Execution steps' }).locator(':scope > li');
  const waiting: Array<{ step: number; title: string }> = [];
  for (let n = 1; n <= (await cards.count()); n += 1) {
    const card = stepCard(progress, n);
    if (/completed|failed/.test((await statusOf(card).textContent()) ?? '')) continue;
    waiting.push({ step: n, title: ((await card.getAttribute('aria-label')) ?? '').replace(/^Step \d+: /, '') });
  }
  return waiting;
}

/**
 * Approves every step of the execution plan that waits for approval, one after another, each once the
 * one before has ended, and expects each to complete; `afterStep` sees each card as it ended. Answers the
 * steps run, with their seconds from the approval to the end.
 */
export async function approveEveryStep(progress: Locator, afterStep?: (card: Locator, run: StepRun) => Promise<void>): Promise<StepRun[]> {
  const runs: StepRun[] = [];
  for (const { step: n, title } of await waitingSteps(progress)) {
    const { status, ...run } = await approveStep(progress, n);
    expect(status, `step ${n} (${title}) completes`).toBe('completed');
    runs.push(run);
    if (afterStep) await afterStep(stepCard(progress, n), run);
  }
  const total = await progress.getByRole('list', { name: 'Execution steps' }).locator(':scope > li').count();
  await expect(progress.getByText(`${total} / ${total} steps completed`)).toBeVisible({ timeout: 15_000 });
  return runs;
}

export interface UiDeploy {
  /** What to run, in words ("PostgreSQL and Redis with nginx in front"). */
  stack: string;
  /** Said after the server in the first message (", plain HTTP"). */
  trailing?: string;
  /** The secrets the stack needs besides the SSH key, by name. */
  secrets: Record<string, string>;
}

/** The whole deploy from the UI, from the requirements chat to every execution step completed. */
export async function deployFromUi(page: Page, target: TestServer, request: UiDeploy): Promise<{ progress: Locator; runs: StepRun[] }> {
  await askForStackOnServer(page, target, request.stack, request.trailing);
  await saveSecrets(page, target, request.secrets);
  await confirmThePlans(page);
  const progress = await confirmImplementation(page);
  return { progress, runs: await approveEveryStep(progress) };
}
