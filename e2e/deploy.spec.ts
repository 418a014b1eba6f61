import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator } from '@playwright/test';
import { confirmThePlans, recordStatusTexts } from './support/planning';
import { approveEveryStep, askForStackOnServer, confirmImplementation, saveSecrets, statusOf, stepCard } from './support/deployFromUi';
import { onServer, resetServer, testServer } from './support/testServer';
import { placeOfProject } from '../src/server/agents/offline/stackPlace';
import { watchForErrors } from './support/watchForErrors';
import { signInWithNewProject } from './support/project';
import { openStep } from './support/executionChat';

/**
 * Deploy for real: a person asks for PostgreSQL and Redis with nginx in front on their existing server
 * (the disposable test server of `npm run test-server:up`: sshd and a Docker engine in a container, with
 * an offline registry of stand-in images), saves its SSH key as a secret, confirms the plans, and approves
 * every step in the UI from the local (bubblewrap) sandbox. On the server the three containers run
 * healthy and http://host/ answers; validation checks the live system and passes; the documentation is
 * written from what a read-back check found on the server (its system, Compose and the compose file as
 * deployed). Then nginx is stopped on the server, the person re-executes a check from stage 5, and it fails;
 * the documentation now says it is out of date, and the DevOps Helper, asked in words for the containers
 * and their disk use, runs its approved command on the server.
 * The journey is recorded as a video (test-results/e2e/deploy-…/video.webm); step durations go to
 * test-results/deploy-timings.json.
 */

const server = testServer();
// E2E_VIDEO=off where Playwright's ffmpeg is not installed (it is a download; nothing else needs it).
test.use({ video: process.env.E2E_VIDEO === 'off' ? 'off' : 'on', viewport: { width: 1280, height: 800 } });

test('a person deploys PostgreSQL and Redis behind nginx to their own server, validates it, sees validation fail once nginx is stopped, the documents say so, and the Helper works on the server', async ({ page }) => {
  test.skip(!server && !process.env.CI, 'no test server: run `npm run test-server:up` first');
  expect(server, 'CI starts the test server (npm run test-server:up) before the journeys').toBeDefined();
  const target = server!;
  test.setTimeout(900_000);
  resetServer(target);
  const journeyStart = Date.now();
  const errors = watchForErrors(page);

  const projectId = await signInWithNewProject(page, 'e2e-deploy', 'Own server');
  // The project's own folder and compose project on the server, as its plan derives them.
  const place = placeOfProject({ id: projectId, name: 'Own server' });
  resetServer(target, place);
  const stages = page.getByRole('list', { name: 'Stages' });

  // ---- Requirements: the server named in words, the SSH key saved as a secret ----
  const requirements = page.getByRole('region', { name: 'Requirements Gatherer', exact: true });
  await askForStackOnServer(page, target, 'PostgreSQL and Redis with nginx in front', ', plain HTTP');
  await expect(requirements).toContainText(`${target.user}@${target.host}, SSH port ${target.port}`);
  const collected = page.getByRole('region', { name: 'Collected Requirements', exact: true });
  await saveSecrets(page, target, { POSTGRES_PASSWORD: 'e2e-postgres-password', REDIS_PASSWORD: 'e2e-redis-password' });
  const key = collected.locator('#secret-SSH_PRIVATE_KEY');
  // A private key is pasted whole and never shown: the field draws discs, and is empty once saved.
  expect(await key.evaluate((el) => getComputedStyle(el).getPropertyValue('-webkit-text-security'))).toBe('disc');
  await expect(collected.getByText('Not provided')).toHaveCount(0);
  await expect(key).toHaveValue('');

  await confirmThePlans(page);
  const implementationPlan = page.getByRole('region', { name: 'Implementation Plan', exact: true });
  await expect(implementationPlan.getByRole('heading', { level: 2, name: 'Step 1: Connect to the server and pin its host key' })).toBeVisible({ timeout: 15_000 });
  const progress = await confirmImplementation(page);

  // ---- Execution: every step approved in the UI, each one's duration measured ----
  const firstApproval = Date.now();
  let running: number | undefined;
  const timings = await approveEveryStep(progress, async (card, run) => {
    if (/^Start the stack/.test(run.title)) running = Date.now();
    // The host key is pinned on first contact and shown to the person.
    if (run.step === 1) {
      await openStep(card);
      await expect(card.getByTestId('step-1-output')).toContainText(`[${target.host}]:${target.port} (ED25519)`);
    }
  });
  const report = { minutes_from_first_approval_to_running_stack: running ? Math.round((running - firstApproval) / 600) / 100 : null, steps: timings };
  mkdirSync('test-results', { recursive: true });
  writeFileSync(path.join('test-results', 'deploy-timings.json'), `${JSON.stringify(report, null, 2)}\n`);
  test.info().annotations.push({ type: 'deploy', description: JSON.stringify(report) });

  // ---- On the server: three containers run healthy, and http://host/ answers ----
  const containers = onServer(target, "docker ps --format '{{.Names}} {{.Status}}'").trim().split('\n');
  expect(containers.filter((c) => new RegExp(`^${place.project}_(postgres|redis|proxy)_1 Up .*\\(healthy\\)$`).test(c))).toHaveLength(3);
  const answer = await fetch(`http://${target.host}/`);
  expect(answer.status).toBeLessThan(500);
  expect(answer.headers.get('server') ?? '').toMatch(/nginx/);

  // ---- Validation: checks of the live system, all approved, all pass ----
  await progress.getByRole('button', { name: 'Proceed to Validation Stage' }).click();
  await expect(stages.getByRole('button', { name: /^Stage 5: / })).toHaveAttribute('aria-current', 'step', { timeout: 60_000 });
  const validation = page.getByRole('region', { name: 'Validation Progress', exact: true });
  const checks = validation.getByRole('list', { name: 'Validation steps' }).locator(':scope > li');
  await expect(checks.first()).toBeVisible({ timeout: 15_000 });
  const checkCount = await checks.count();
  const check = (n: number): Locator => stepCard(validation, n);
  await expect(check(2)).toContainText('Every service of the compose file runs and is healthy');
  await expect(check(3)).toContainText("The proxy answers on the server's address");
  for (let n = 1; n < checkCount; n += 1) {
    await check(n).getByRole('button', { name: 'Approve' }).click();
    await expect(statusOf(check(n))).toContainText(/completed|failed/, { timeout: 120_000 });
    await expect(statusOf(check(n))).toContainText('completed');
  }
  // The last check is the server's own: it reads the server's facts and the files as deployed, read-only.
  await expect(check(checkCount)).toContainText("Read back the server's facts and the files as deployed (read-only): da-server");
  await recordStatusTexts(validation);
  await check(checkCount).getByRole('button', { name: 'Approve' }).click();
  await expect(page).toHaveURL(new RegExp(`/app/${projectId}/home$`), { timeout: 180_000 });
  const statusTexts = await page.evaluate(() => (window as unknown as { statusTexts: string[] }).statusTexts);
  expect(statusTexts.some((text) => text.includes('Infrastructure Successfully Validated!'))).toBe(true);

  // ---- Documentation: what was verified, and when ----
  const documentation = await page.evaluate(async (id) => {
    const installationId = sessionStorage.getItem('installation_id') ?? '';
    const response = await fetch('/api/documentation/current', { headers: { 'Installation-Id': installationId, 'Project-Id': String(id) } });
    return response.json();
  }, projectId);
  expect(documentation.status).toBe('ready');
  expect(documentation.documentation).toMatch(/All \d+ checks passed \(last checked \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)/);
  expect(documentation.documentation).toMatch(/\| 3\. The proxy answers on the server's address[^|]* \| passed \| \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \|/);
  expect(documentation.out_of_date).toBeNull();
  expect(documentation.documentation).not.toContain('BEGIN OPENSSH PRIVATE KEY');

  // ---- The documents state what the server said, and show the compose file read back from it ----
  const os = onServer(target, '. /etc/os-release && echo "$PRETTY_NAME"').trim();
  const compose = onServer(target, 'docker-compose version --short').trim();
  const deployedCompose = onServer(target, `cat ${place.dir}/docker-compose.yml`).trimEnd();
  expect(documentation.documentation).toContain(`| Operating system | ${os} |`);
  expect(documentation.documentation).toContain(`| Compose | ${compose} (docker-compose) |`);
  expect(documentation.quickstart).toContain(os);
  expect(documentation.key_value_data.server_os).toBe(os);
  expect(documentation.documentation).toContain(`\`${place.dir}/docker-compose.yml\` (compose project ${place.project}):\n\n\`\`\`\n${deployedCompose}\n\`\`\``);
  // What the plan assumed and the server refutes is not written: the test server is Debian with Compose v1,
  // password authentication on and no firewall.
  expect(documentation.documentation).not.toMatch(/Ubuntu 24\.04|Compose v2|Password authentication over SSH is disabled/);

  // ---- nginx stops on the server: the person comes back to stage 5, re-executes the check, and it fails ----
  onServer(target, `cd ${place.dir} && docker-compose stop proxy`);
  await page.goto(`/app/${projectId}`);
  await expect(stages.getByRole('button', { name: /^Stage 5: / })).toHaveAttribute('aria-current', 'step', { timeout: 15_000 });
  await expect(statusOf(check(3))).toContainText('completed', { timeout: 15_000 });
  const toggle3 = check(3).locator('button[aria-expanded]').first();
  if ((await toggle3.getAttribute('aria-expanded')) !== 'true') await toggle3.click();
  await check(3).getByRole('button', { name: 'Re-execute' }).click();
  await expect(statusOf(check(3))).toContainText('failed', { timeout: 120_000 });
  await expect(check(3)).toContainText(`nothing answers on http://${target.host}/`);
  // Validation no longer stands: the project stays on stage 5, not its home.
  await expect(page).toHaveURL(new RegExp(`/app/${projectId}$`));

  // ---- The documents written before the failure now say they are out of date, with the failure in them ----
  const afterFailure = Date.now();
  const stale = await page.evaluate(async (id) => {
    const installationId = sessionStorage.getItem('installation_id') ?? '';
    const response = await fetch('/api/documentation/current', { headers: { 'Installation-Id': installationId, 'Project-Id': String(id) } });
    return response.json();
  }, projectId);
  expect(stale.out_of_date).toMatch(/^\*\*Out of date\.\*\* This document was written at .* UTC; since then check 3 \(The proxy answers on the server's address\) failed at /);
  expect(stale.documentation.startsWith(`> ${stale.out_of_date}`)).toBe(true);
  expect(stale.quickstart.startsWith(`> ${stale.out_of_date}`)).toBe(true);
  expect(stale.documentation).toMatch(/\| 3\. The proxy answers on the server's address[^|]* \| \*\*failed\*\*/);
  expect(stale.key_value_data.validation_failed_checks).toEqual([3]);
  await page.goto(`/app/${projectId}/home/documentation`);
  await expect(page.getByRole('status', { name: 'These documents were written before the latest validation results.' })).toBeVisible({ timeout: 15_000 });
  const staleSeconds = Math.round((Date.now() - afterFailure) / 100) / 10;

  // ---- The DevOps Helper, asked in words, runs its approved command on the server ----
  const helperStart = Date.now();
  await page.goto(`/app/${projectId}/home/devops-helper`);
  const notice = page.getByRole('dialog', { name: 'Important Notice' });
  await notice.getByRole('checkbox').check();
  await notice.getByRole('button', { name: 'I Understand - Proceed' }).click();
  const helper = page.getByRole('region', { name: 'DevOps Helper', exact: true });
  const ask = helper.getByLabel('Message DevOps Helper');
  await ask.fill('show me the running containers on my server and their disk usage');
  await ask.press('Enter');
  const approval = helper.getByRole('listitem', { name: 'Approval required' }).last();
  await expect(approval).toContainText('docker ps -a --size', { timeout: 45_000 });
  await expect(approval.getByTestId('approval-runs-on')).toHaveText(`Runs on da-server (${target.user}@${target.host}:${target.port}), over SSH from the project sandbox`);
  await approval.getByRole('button', { name: 'Approve' }).click();
  await expect(helper.locator('li[data-role="assistant"]').last()).toContainText('exited with code 0', { timeout: 120_000 });
  // The containers exist only on the server: their names and sizes, and Docker's disk summary, came from there.
  const ran = helper.locator('li[data-role="assistant"] pre').last();
  // (Not its postgres container: the chat blanks a secret's value wherever it appears, and a secret here is "postgres".)
  await expect(ran).toContainText(new RegExp(`${place.project}_redis_1\\s+Up .*\\(healthy\\)`));
  // The proxy stopped on the server above: only the server's own containers can say so.
  await expect(ran).toContainText(new RegExp(`${place.project}_proxy_1\\s+Exited`));
  await expect(ran).toContainText(/SIZE/);
  await expect(ran).toContainText(/TYPE\s+TOTAL\s+ACTIVE\s+SIZE/);
  const helperSeconds = Math.round((Date.now() - helperStart) / 100) / 10;
  const afterDeploy = { journey_seconds: Math.round((Date.now() - journeyStart) / 1000), seconds_to_out_of_date_documents: staleSeconds, seconds_helper_question_to_server_output: helperSeconds };
  writeFileSync(path.join('test-results', 'deploy-timings.json'), `${JSON.stringify({ ...report, after_deploy: afterDeploy }, null, 2)}\n`);
  test.info().annotations.push({ type: 'after-deploy', description: JSON.stringify(afterDeploy) });

  expect(errors).toEqual([]);
  resetServer(target, place);
});
