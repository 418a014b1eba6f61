import { expect, test } from '@playwright/test';
import { waitForReply } from './support/planning';
import { askForStackOnServer, saveSecrets } from './support/deployFromUi';
import { signInWithNewProject } from './support/project';
import { onServer, testServer } from './support/testServer';
import { watchForErrors } from './support/watchForErrors';

/**
 * The server is inspected before the plan is final: a person plans Redis on their existing server (the test
 * server of `npm run test-server:up`), where something of someone else's already holds Redis's port. The
 * architecture plan takes that port; on "Your server" they read the exact command, approve it, and see what
 * the server runs and the SSH host key pinned with its fingerprint; the plan they already have now shows the
 * taken port as an error that blocks its confirm; made again from what was found, it publishes Redis on
 * another port, names what holds the first, and can be confirmed.
 */

const server = testServer();
/** Redis's port, which a plan of Redis alone publishes on loopback for an SSH tunnel. */
const HELD = 6379;

test('a person inspects their server from the architecture step, and the plan moves off the port it already uses', async ({ page }) => {
  test.skip(!server && !process.env.CI, 'no test server: run `npm run test-server:up` first');
  expect(server, 'CI starts the test server (npm run test-server:up) before the journeys').toBeDefined();
  const target = server!;
  test.setTimeout(300_000);
  const probe = `da-e2e-inspect-${process.pid}`;
  // Someone else's container on the port the plan would take, unless something holds it already (an earlier
  // journey's stack publishes Redis's port too): either way the inspection must find it and say what holds it.
  onServer(target, `docker rm -f ${probe} >/dev/null 2>&1 || true; docker run -d --name ${probe} -p 127.0.0.1:${HELD}:6379 redis:7.4.1-alpine >/dev/null 2>&1 || docker rm -f ${probe} >/dev/null 2>&1 || true`);
  try {
    const errors = watchForErrors(page);
    await signInWithNewProject(page, 'e2e-inspect', 'Inspected server');
    const stages = page.getByRole('list', { name: 'Stages' });

    // ---- Requirements: Redis on the person's own server, its SSH key saved ----
    await askForStackOnServer(page, target, 'Redis alone, nothing else');
    await saveSecrets(page, target, { REDIS_PASSWORD: 'e2e-redis-password' });
    const collected = page.getByRole('region', { name: 'Collected Requirements', exact: true });
    const confirmRequirements = collected.getByRole('button', { name: 'Confirm Requirements' });
    await expect(confirmRequirements).toBeEnabled({ timeout: 15_000 });
    await confirmRequirements.click();

    // ---- Architecture: the plan made without facts takes the port the server already uses ----
    await expect(stages.getByRole('button', { name: /^Stage 2: / })).toHaveAttribute('aria-current', 'step', { timeout: 15_000 });
    await waitForReply(page, 'Cloud Architecture Assistant');
    const plan = page.getByRole('region', { name: 'Cloud Architecture Plan', exact: true });
    const confirm = plan.getByRole('button', { name: 'Confirm Architecture' });
    await expect(plan).toContainText(`127.0.0.1:${HELD}:6379`, { timeout: 15_000 });
    await expect(confirm).toBeEnabled();

    // ---- Your server: the exact command, approved, then what the server runs ----
    const yours = page.getByRole('region', { name: 'Your server', exact: true });
    await expect(yours.getByRole('heading', { name: `Your server: ${target.user}@${target.host}:${target.port}` })).toBeVisible();
    const command = yours.getByLabel('Inspection command');
    await expect(command).toContainText(`# da-inspect v1 target=${target.user}@${target.host}:${target.port}: reads listening ports`);
    await expect(command).toContainText('it changes nothing on the server');
    await yours.getByRole('button', { name: 'Approve and inspect the server' }).click();
    const found = yours.getByRole('region', { name: 'What the server runs' });
    await expect(found).toContainText(`${HELD}/tcp (container `, { timeout: 120_000 });
    // What holds it: the probe, or the container that held the port before it ("container stack_redis_1 (compose project stack)").
    const holder = new RegExp(`${HELD}/tcp \\((container [^()]+(?: \\(compose project [^()]+\\))?)\\)`).exec((await found.textContent()) ?? '')![1]!;
    const holderName = holder.split(' ')[1]!;
    await expect(found).toContainText(/Debian/);
    await expect(found).toContainText(/Compose \d+\.\d+/);
    await expect(found).toContainText(/SSH host key ED25519 SHA256:[A-Za-z0-9+/]{43}, pinned at this first contact/);
    const fingerprint = onServer(target, 'ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub').split(' ')[1]!;
    await expect(found).toContainText(fingerprint);

    // ---- The plan already saved now shows the taken port, and cannot be confirmed ----
    await expect(plan).toContainText(`which ${holder} on the server already holds`, { timeout: 15_000 });
    await expect(confirm).toBeDisabled();

    // ---- Made again from what was found: another port, what holds the first named, confirmable ----
    await found.getByRole('button', { name: 'Make the plan again from what was found' }).click();
    await waitForReply(page, 'Cloud Architecture Assistant');
    await expect(plan).not.toContainText(`127.0.0.1:${HELD}:6379`, { timeout: 15_000 });
    await expect(plan).toContainText(/127\.0\.0\.1:\d+:6379/);
    await expect(plan).toContainText(holderName);
    await expect(plan).not.toContainText('already holds');
    await expect(confirm).toBeEnabled();
    expect(errors).toEqual([]);
  } finally {
    onServer(target, `docker rm -f ${probe} >/dev/null 2>&1 || true`);
  }
});
