import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { approveEveryStep, approveStep, confirmImplementation, DEPLOY_STEP_TIMEOUT, deployFromUi, saveSecrets, statusOf, stepCard, waitingSteps } from './support/deployFromUi';
import { confirmThePlans } from './support/planning';
import { onServer, resetServer, testServer } from './support/testServer';
import { placeOfProject } from '../src/server/agents/offline/stackPlace';
import { watchForErrors } from './support/watchForErrors';
import { signInWithNewProject } from './support/project';

/**
 * Releases, Roll back and Drift on the project home, on the disposable test server (`npm run
 * test-server:up`; skipped without it, failing under CI=true). A person deploys PostgreSQL and Redis behind
 * nginx from the UI (release 1). They change the stack through the product: back on the requirements,
 * MariaDB is added from the catalogue and its secrets saved, the plans are made again and confirmed, and
 * the revised execution plan's waiting steps approved. Between the port check and the start, someone
 * else's container takes MariaDB's port on the server: the new service never comes up, the start step's
 * health gate restores release 1 (which still answers), and the project home lists release 2 as rolled
 * back with why in words. The port freed and the start step run again, release 3 with MariaDB appears on
 * the project home open in another tab, without a reload. They roll back to release 1 from the Releases
 * panel: the exact command is shown, runs once approved, and the old stack answers without MariaDB. Then
 * a container is stopped and a port opened in the firewall by hand: "Check drift" shows both in words,
 * with the read-only commands it ran. Seconds from the approval to the old release answering go to
 * test-results/releases-timings.json. The stack's directory and compose project are read from the
 * release record, not assumed.
 */

const server = testServer();
test.use({ video: process.env.E2E_VIDEO === 'off' ? 'off' : 'on', viewport: { width: 1280, height: 800 } });
/** A port nothing uses, opened by hand in the firewall (and closed again at the end). */
const OPENED = '-A INPUT -p tcp -m tcp --dport 18097 -j ACCEPT';
/** Someone else's container on the server, taking the port the change's new service publishes. */
const probe = `da-e2e-releases-${process.pid}`;

/** The stack's proxy answers on the server's address. */
const nginxAnswers = (target: { host: string }): Promise<boolean> =>
  fetch(`http://${target.host}/`).then((r) => r.status < 500 && /nginx/.test(r.headers.get('server') ?? ''), () => false);

/** The project's releases as the panel reads them (GET /api/projects/{id}/releases), newest first. */
async function releasesOf(page: Page, projectId: number): Promise<Array<{ number: number; directory: string; containers: Array<{ service: string }> }>> {
  return page.evaluate(async (id) => {
    const installationId = sessionStorage.getItem('installation_id') ?? '';
    const response = await fetch(`/api/projects/${id}/releases`, { headers: { 'Installation-Id': installationId } });
    return ((await response.json()) as { releases: Array<{ number: number; directory: string; containers: Array<{ service: string }> }> }).releases;
  }, projectId);
}

/** The project home's Releases panel once it lists release `n`: it refreshes by itself when the server records one. */
async function listedRelease(page: Page, n: number): Promise<Locator> {
  const releases = page.getByRole('region', { name: 'Releases' });
  await expect(releases.getByText(`Release ${n}`, { exact: true })).toBeVisible({ timeout: 120_000 });
  return releases;
}

test.afterAll(() => {
  if (server) onServer(server, `docker rm -f ${probe} >/dev/null 2>&1 || true`);
});

test('a person changes the stack through the plans, a new service that never comes up is rolled back in words, and they roll back to release 1 from the project home and the old stack answers; drift made by hand is shown in words with its read-only commands', async ({ page }) => {
  test.skip(!server && !process.env.CI, 'no test server: run `npm run test-server:up` first');
  expect(server, 'CI starts the test server (npm run test-server:up) before the journeys').toBeDefined();
  const target = server!;
  test.setTimeout(1_200_000);
  resetServer(target);
  const errors = watchForErrors(page);
  const projectId = await signInWithNewProject(page, 'e2e-releases', 'Releases');
  // The project's own folder and compose project on the server, as its plan derives them: a run that failed
  // half-way left its stack there (holding ports), not in the legacy folder.
  const place = placeOfProject({ id: projectId, name: 'Releases' });
  resetServer(target, place);
  await deployFromUi(page, target, {
    stack: 'PostgreSQL and Redis with nginx in front',
    trailing: ', plain HTTP',
    secrets: { POSTGRES_PASSWORD: 'e2e-postgres-password', REDIS_PASSWORD: 'e2e-redis-password' },
  });

  // ---- Release 1 is what the server runs: the project home lists it once the server recorded it, no reload ----
  await page.goto(`/app/${projectId}/home`);
  const releases = await listedRelease(page, 1);
  await expect(releases).toContainText('running now');
  // Where the stack lives and its compose project, as the release recorded them.
  const directory = (await releasesOf(page, projectId))[0]!.directory;
  const composeProject = path.posix.basename(directory);

  // ---- The change through the product: MariaDB added on the requirements, the plans made again, the revision approved ----
  await page.goto(`/app/${projectId}`);
  const stages = page.getByRole('list', { name: 'Stages' });
  await stages.getByRole('button', { name: /^Stage 1: / }).click();
  await expect(stages.getByRole('button', { name: /^Stage 1: / })).toHaveAttribute('aria-current', 'step', { timeout: 15_000 });
  const collected = page.getByRole('region', { name: 'Collected Requirements', exact: true });
  const components = collected.getByRole('region', { name: 'Stack components' });
  await components.getByRole('searchbox', { name: 'Add from the catalogue' }).fill('maria');
  await components.getByRole('button', { name: /^Add MariaDB/ }).click();
  await expect(components.getByRole('listitem', { name: 'mariadb', exact: true })).toBeVisible({ timeout: 15_000 });
  await saveSecrets(page, target, { POSTGRES_PASSWORD: 'e2e-postgres-password', REDIS_PASSWORD: 'e2e-redis-password', MARIADB_ROOT_PASSWORD: 'e2e-mariadb-root-password', MARIADB_PASSWORD: 'e2e-mariadb-password' });
  await confirmThePlans(page);
  await expect(page.getByRole('region', { name: 'Implementation Plan', exact: true })).toContainText('mariadb');
  const progress = await confirmImplementation(page);
  // The revision waits for approval where the plan changed; what did not change keeps its result.
  const waiting = await waitingSteps(progress);
  const start = waiting.find((w) => /^Start the stack/.test(w.title));
  expect(start, 'the revised plan starts the changed stack again').toBeDefined();

  // ---- The new service never comes up: after the port check passed, something else took MariaDB's port on the server ----
  for (const w of waiting.filter((x) => x.step < start!.step)) expect((await approveStep(progress, w.step)).status).toBe('completed');
  onServer(target, `docker rm -f ${probe} >/dev/null 2>&1 || true; docker run -d --name ${probe} -p 127.0.0.1:3306:6379 redis:7.4.1-alpine >/dev/null`);
  expect((await approveStep(progress, start!.step)).status).toBe('failed');
  const failedStart = stepCard(progress, start!.step);
  await expect(failedStart).toContainText('health gate failed: restoring the last healthy release');
  await expect(failedStart).toContainText('the last healthy release is restored and healthy');
  // Release 1 runs on and answers; the person reads on the project home what happened, in words, without a reload.
  expect(await nginxAnswers(target)).toBe(true);
  await page.goto(`/app/${projectId}/home`);
  await listedRelease(page, 2);
  await expect(releases).toContainText('rolled back');
  await expect(releases).toContainText('The change did not pass its health gate: a container could not be started: compose up exited with');
  await expect(releases).toContainText('The last healthy release is restored and healthy.');

  // ---- The port freed, the change's steps run again (the restore put release 1's files back over the stack): release 3, with MariaDB healthy ----
  onServer(target, `docker rm -f ${probe} >/dev/null 2>&1 || true`);
  await page.goto(`/app/${projectId}`);
  for (const w of waiting.filter((x) => x.step <= start!.step)) {
    const card = stepCard(progress, w.step);
    const toggle = statusOf(card);
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    await card.getByRole('button', { name: 'Re-execute' }).click();
    await expect(toggle).toContainText(/in progress|running/i, { timeout: 15_000 }).catch(() => undefined);
    await expect(toggle).toContainText(/completed|failed/, { timeout: DEPLOY_STEP_TIMEOUT });
    await expect(toggle, `step ${w.step} (${w.title}) completes when run again`).toContainText('completed');
  }
  // The project home open in another tab while the last steps run: release 3 appears there by itself.
  const home = await page.context().newPage();
  // The installation chosen is kept per tab (sessionStorage): the new tab starts with this one's.
  const installationId = await page.evaluate(() => sessionStorage.getItem('installation_id') ?? '');
  await home.addInitScript((id) => sessionStorage.setItem('installation_id', id), installationId);
  await home.goto(`/app/${projectId}/home`);
  await listedRelease(home, 2);
  await approveEveryStep(progress);
  await expect(await listedRelease(home, 3)).toContainText('mariadb: mariadb:11.4.4');
  await home.close();
  await page.goto(`/app/${projectId}/home`);
  await listedRelease(page, 3);
  expect(onServer(target, `docker ps --filter label=com.docker.compose.project=${composeProject} --filter label=com.docker.compose.service=mariadb --format '{{.Status}}'`)).toMatch(/healthy/);

  // ---- Roll back to release 1: the command shown, approved, the old stack answers ----
  await releases.getByRole('button', { name: 'Roll back to release 1' }).click();
  const confirm = releases.getByRole('group', { name: 'Roll back to release 1?' });
  await expect(confirm).toBeVisible();
  await confirm.locator('summary').click();
  await expect(confirm.locator('pre, code').first()).toContainText("ssh -F ssh-keys/config da-server 'bash -s'");
  const approved = Date.now();
  await confirm.getByRole('button', { name: 'Approve and run' }).click();
  let answered = false;
  while (!answered && Date.now() - approved < 300_000) {
    answered = /^\s*$/.test(onServer(target, `docker ps --filter label=com.docker.compose.project=${composeProject} --filter label=com.docker.compose.service=mariadb -q`)) && (await nginxAnswers(target));
    if (!answered) await page.waitForTimeout(500);
  }
  const seconds = Math.round((Date.now() - approved) / 100) / 10;
  expect(answered, 'the old stack answers without MariaDB').toBe(true);
  await expect(releases.getByRole('status')).toContainText('Release 1 is restored and healthy', { timeout: 120_000 });
  await expect(releases.getByText('Release 4', { exact: true })).toBeVisible({ timeout: 60_000 });
  mkdirSync('test-results', { recursive: true });
  writeFileSync(path.join('test-results', 'releases-timings.json'), `${JSON.stringify({ seconds_from_roll_back_approval_to_old_release_answering: seconds }, null, 2)}\n`);
  test.info().annotations.push({ type: 'roll back', description: `${seconds} s from the approval to release 1 answering` });

  // ---- Drift: nothing, then a container stopped and a port opened by hand, shown in words ----
  const drift = page.getByRole('region', { name: 'Drift' });
  await drift.getByRole('button', { name: 'Check drift' }).click();
  await expect(drift.getByRole('status')).toHaveText('Nothing differs from the release.', { timeout: 120_000 });
  const firewall = /ACCEPT|DROP|-P /.test(onServer(target, 'sudo -n iptables -S 2>/dev/null || true'));
  onServer(target, `docker stop ${composeProject}_redis_1 >/dev/null`);
  if (firewall) onServer(target, `sudo -n iptables ${OPENED}`);
  try {
    await drift.getByRole('button', { name: 'Check drift' }).click();
    await expect(drift.getByRole('region', { name: 'Containers' })).toContainText('redis: exited, the release had it running', { timeout: 120_000 });
    if (firewall) await expect(drift.getByRole('region', { name: 'Firewall rules' })).toContainText(`firewall rule added on the server: ${OPENED}`);
    await drift.getByText('Commands run on the server').click();
    await expect(drift.getByLabel('Containers, image digests and published ports of the stack: command')).toContainText('docker inspect');
    await expect(drift.getByLabel('Firewall rules: command')).toContainText('iptables -S');
  } finally {
    if (firewall) onServer(target, `sudo -n iptables ${OPENED.replace('-A', '-D')} || true`);
  }
  expect(errors).toEqual([]);
  resetServer(target, place);
});
