import { expect, test, type Locator, type Page } from '@playwright/test';
import { watchForErrors } from './support/watchForErrors';

/**
 * The planning journey of issue 3 with the offline planner (no model key configured): from a new
 * project, a person answers the Requirements Gatherer, confirms, gets the Cloud Architecture Plan with
 * its drawn diagram and compose file, confirms, and sees the Implementation Plan's ordered steps.
 */

/** A reply streams token by token; whole plans take a while on a busy machine. */
const STREAM_TIMEOUT = 60_000;

/** A chat card: the section named by its title, its input, its messages and its meta line. */
function chat(page: Page, title: string) {
  const card = page.getByRole('region', { name: title, exact: true });
  return {
    card,
    input: card.getByLabel(`Message ${title}`),
    send: card.getByRole('button', { name: 'Send' }),
    // The bubbles themselves, not the list items of the markdown inside them.
    messages: card.getByRole('list', { name: `${title} messages` }).locator(':scope > li[data-role]'),
    model: card.getByTestId('chat-model'),
    threadId: card.locator('header span', { hasText: 'Thread ID:' }).locator('code'),
  };
}

type ComposerSample = { disabled: boolean; stop: boolean };

/**
 * Records every change of the chat input's `disabled` attribute, with whether Stop showed at that
 * moment. The offline model may stream a short reply faster than a polling assertion looks, so the
 * states are observed as the DOM changes rather than sampled.
 */
async function recordComposer(input: Locator): Promise<void> {
  await input.evaluate((element) => {
    const textarea = element as HTMLTextAreaElement;
    const samples: ComposerSample[] = [];
    (window as unknown as { composerSamples: ComposerSample[] }).composerSamples = samples;
    new MutationObserver(() => {
      const buttons = [...(textarea.form?.querySelectorAll('button') ?? [])];
      samples.push({ disabled: textarea.disabled, stop: buttons.some((b) => b.textContent?.trim() === 'Stop') });
    }).observe(textarea, { attributes: true, attributeFilter: ['disabled'] });
  });
}

async function composerSamples(page: Page): Promise<ComposerSample[]> {
  return page.evaluate(() => (window as unknown as { composerSamples: ComposerSample[] }).composerSamples);
}

/** The last assistant bubble of a chat once it has finished streaming. */
async function lastReply(c: ReturnType<typeof chat>): Promise<Locator> {
  await expect(c.input).toBeEnabled({ timeout: STREAM_TIMEOUT });
  const reply = c.messages.last();
  await expect(reply).toHaveAttribute('data-role', 'assistant');
  await expect(reply).not.toContainText('Thinking...');
  return reply;
}

test('a person plans an n8n stack with the offline planner: requirements, architecture with its diagram, implementation plan', async ({ page }) => {
  test.setTimeout(240_000);
  const errors = watchForErrors(page);
  const started = Date.now();

  await page.goto('/signin');
  await page.getByLabel('Login name').fill(`e2e-planner-${Date.now().toString(36)}`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('heading', { name: 'My Projects' })).toBeVisible();

  await page.getByRole('button', { name: 'Create New Project' }).first().click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Project name').fill('Team automations');
  await dialog.getByLabel('Description (optional)').fill('n8n for the team');
  await dialog.getByRole('button', { name: 'Create Project' }).click();
  await expect(page).toHaveURL(/\/app\/\d+$/);
  await expect(page.getByRole('heading', { name: 'Team automations' })).toBeVisible();

  const cost = page.getByTestId('project-cost');
  await expect(cost).toHaveText('$0.0000');
  const stages = page.getByRole('list', { name: 'Stages' });
  await expect(stages.getByRole('button', { name: /^Stage 1: Requirements/ })).toHaveAttribute('aria-current', 'step');

  // ---- Requirements ----
  const requirements = chat(page, 'Requirements Gatherer');
  const collected = page.getByRole('region', { name: 'Collected Requirements', exact: true });
  const confirmRequirements = collected.getByRole('button', { name: 'Confirm Requirements' });
  await expect(collected.getByLabel('Requirements not collected yet', { exact: true })).toContainText('Stack Type');
  await expect(confirmRequirements).toBeDisabled();

  await recordComposer(requirements.input);
  await requirements.input.fill(
    "I'd like to self-host n8n behind a reverse proxy with SSL on my domain automations.example.com, on a Hetzner VPS. It's for a small team.",
  );
  await requirements.input.press('Enter');
  await expect(requirements.messages.first()).toHaveAttribute('data-role', 'user');
  let reply = await lastReply(requirements);
  // The offline planner knows the stack, the provider, the domain and the load; only the region is open.
  await expect(reply).toContainText('Domain: automations.example.com');
  await expect(reply).toContainText('Which region');
  await expect(requirements.model).toHaveText('offline-planner');
  await expect(requirements.card.getByText('Thread ID:')).toBeVisible();
  await expect(requirements.threadId).toHaveText(/\S{8,}/);
  const requirementsThread = await requirements.threadId.textContent();

  // While the reply streamed, the input was disabled and Stop showed; afterwards it is usable again.
  const samples = await composerSamples(page);
  expect(samples).toContainEqual({ disabled: true, stop: true });
  expect(samples.at(-1)).toEqual({ disabled: false, stop: false });

  // Not ready yet: the panel shows what is known, the confirm stays off.
  await expect(collected.getByLabel('Collected requirements', { exact: true })).toContainText('n8n', { timeout: 15_000 });
  await expect(confirmRequirements).toBeDisabled();

  await requirements.input.fill('Germany please, Falkenstein is fine.');
  await requirements.send.click();
  reply = await lastReply(requirements);
  await expect(reply).toContainText('The requirements are complete');
  await expect(reply).toContainText('fsn1');
  const machine = (await reply.textContent())!.match(/Machine: (\S+) \((\d+) vCPU, (\d+) GB RAM, (\d+) GB disk\)/);
  expect(machine).not.toBeNull();
  const [, instanceType, vcpus, memoryGb, diskGb] = machine!;
  // The same conversation went on.
  await expect(requirements.threadId).toHaveText(requirementsThread!);
  await expect(requirements.messages.and(page.locator('[data-role="user"]'))).toHaveCount(2);

  const document = collected.getByLabel('Collected requirements', { exact: true });
  for (const section of ['Summary', 'Required Stack', 'Configuration Requirements', 'Cloud Specifications', 'Required User Details']) {
    await expect(document.getByRole('term').filter({ hasText: new RegExp(`^${section}$`) })).toBeVisible();
  }
  await expect(document).toContainText('Provider:');
  await expect(document).toContainText('Hetzner');
  await expect(document).toContainText('automations.example.com');
  await expect(document).not.toContainText('Not collected yet');
  await expect(collected.getByText('The requirements are complete; confirm to plan the architecture.')).toBeVisible();

  // Corrections with the controls: the stack's components are items; one is added from the catalogue,
  // kept private, then removed; the requirements text follows each change (rendered from the stack model).
  const components = collected.getByRole('region', { name: 'Stack components' });
  await expect(components.getByRole('listitem', { name: 'n8n', exact: true })).toContainText('public at automations.example.com (HTTPS)');
  await components.getByRole('searchbox', { name: 'Add from the catalogue' }).fill('admin');
  await components.getByRole('button', { name: /^Add Adminer/ }).click();
  const adminer = components.getByRole('listitem', { name: 'adminer', exact: true });
  await expect(adminer).toBeVisible();
  await expect(document).toContainText('Adminer');
  await adminer.getByText('Change adminer').click();
  await adminer.getByRole('button', { name: /^(Keep|Make) adminer private$/ }).click();
  await expect(adminer).toContainText('kept private');
  await expect(document).toContainText('Kept private as asked: adminer');
  await adminer.getByRole('button', { name: 'Remove adminer' }).click();
  await expect(adminer).toHaveCount(0);
  await expect(document).not.toContainText('Adminer 4');
  await expect(components.getByRole('alert')).toHaveCount(0);
  await expect(confirmRequirements).toBeEnabled({ timeout: 15_000 });
  await confirmRequirements.click();

  // ---- Architecture ----
  await expect(stages.getByRole('button', { name: /^Stage 2: Cloud Architecture/ })).toHaveAttribute('aria-current', 'step', { timeout: 15_000 });
  await expect(stages.getByRole('button', { name: /^Stage 1: Requirements \(completed\)/ })).toBeVisible();
  const architect = chat(page, 'Cloud Architecture Assistant');
  await expect(architect.messages.first()).toHaveText(/Generate architecture plan/);
  reply = await lastReply(architect);
  await expect(reply).toContainText('Here is the architecture');
  // The architecture keeps the machine the requirements sized.
  await expect(reply).toContainText(`(${instanceType}, ${vcpus} vCPU, ${memoryGb} GB RAM, ${diskGb} GB disk) in fsn1`);
  await expect(architect.model).toHaveText('offline-planner');
  await expect(architect.threadId).toHaveText(/\S{8,}/);

  const architecturePlan = page.getByRole('region', { name: 'Cloud Architecture Plan', exact: true });
  await expect(architecturePlan.getByRole('heading', { name: 'Cloud Architecture Plan', level: 1 })).toBeVisible({ timeout: 15_000 });
  // The mermaid block is drawn: an <svg> inside the plan's diagram, not its source.
  const diagram = architecturePlan.getByRole('figure', { name: 'Diagram' });
  await expect(diagram).toHaveAttribute('aria-busy', 'false', { timeout: 30_000 });
  await expect(diagram.locator('svg').first()).toBeVisible();
  await expect(diagram.locator('svg').first().locator('g.node, g[class*="node"]').first()).toBeAttached();
  await expect(diagram).not.toContainText('The diagram could not be drawn');
  await expect(diagram.locator('pre')).toHaveCount(0);
  await expect(diagram).toContainText('n8n');

  // The services table is drawn as a table (GitHub-flavoured markdown), not as pipes.
  const services = architecturePlan.getByRole('table');
  await expect(services.getByRole('columnheader', { name: 'Service' })).toBeVisible();
  await expect(services.getByRole('cell', { name: 'n8n', exact: true })).toBeVisible();
  await expect(architecturePlan.getByText(/\|\s*-{3}/)).toHaveCount(0);

  await expect(architecturePlan.getByRole('heading', { name: 'docker-compose.yml' })).toBeVisible();
  const compose = architecturePlan.locator('pre code.language-yaml').first();
  await expect(compose).toContainText('services:');
  await expect(compose).toContainText('n8n');
  await expect(compose).toContainText('healthcheck:');

  const confirmArchitecture = architecturePlan.getByRole('button', { name: 'Confirm Architecture' });
  await expect(confirmArchitecture).toBeEnabled();
  await confirmArchitecture.click();

  // ---- Implementation ----
  await expect(stages.getByRole('button', { name: /^Stage 3: Implementation Plan/ })).toHaveAttribute('aria-current', 'step', { timeout: 15_000 });
  const planner = chat(page, 'Implementation Planner');
  await expect(planner.messages.first()).toHaveText(/Generate implementation plan/);
  reply = await lastReply(planner);
  await expect(reply).toContainText('The implementation plan has');
  await expect(planner.model).toHaveText('offline-planner');
  await expect(planner.threadId).toHaveText(/\S{8,}/);

  const implementationPlan = page.getByRole('region', { name: 'Implementation Plan', exact: true });
  await expect(implementationPlan.getByRole('heading', { name: 'Implementation Plan', level: 1 })).toBeVisible({ timeout: 15_000 });
  const steps = implementationPlan.getByRole('heading', { level: 2, name: /^Step \d+: / });
  await expect(steps.first()).toBeVisible();
  const titles = await steps.allTextContents();
  expect(titles.length).toBeGreaterThanOrEqual(3);
  expect(titles.map((t) => Number(t.match(/^Step (\d+):/)![1]))).toEqual(titles.map((_, i) => i + 1));
  // Each step carries the exact commands it will run.
  const commands = implementationPlan.locator('pre code.language-bash');
  await expect(commands).toHaveCount(titles.length);
  for (const block of await commands.all()) await expect(block).toHaveText(/\S/);
  await expect(implementationPlan).toContainText('docker compose');
  await expect(implementationPlan.getByRole('button', { name: 'Confirm Implementation Plan' })).toBeEnabled();

  // Every agent turn was metered, at the offline planner's price: nothing (the pricing page says so). The
  // project's costs list each turn with the model that answered it; the sidebar's cost stays at zero.
  const projectId = Number(new URL(page.url()).pathname.match(/\/app\/(\d+)/)![1]);
  const installationId = await page.evaluate(() => sessionStorage.getItem('installation_id') ?? '');
  const usage = await page.request.get(`/api/projects/${projectId}/token-usage`, { headers: { 'installation-id': installationId } });
  expect(usage.status()).toBe(200);
  const turns = ((await usage.json()) as { turns?: Array<{ agent: string; model: string; cost: number; output_tokens: number }> }).turns ?? [];
  expect(turns.length).toBeGreaterThanOrEqual(3);
  for (const turn of turns) expect(turn).toMatchObject({ model: 'offline-planner', cost: 0 });
  expect(turns.every((t) => t.output_tokens > 0)).toBe(true);
  await expect(cost).toHaveText('$0.0000');

  expect(errors).toEqual([]);
  test.info().annotations.push({ type: 'journey', description: `${Math.round((Date.now() - started) / 1000)} s in the browser` });
});
