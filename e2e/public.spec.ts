import zlib from 'node:zlib';
import { expect, test } from '@playwright/test';
import { watchForErrors } from './support/watchForErrors';

/** ARCHITECTURE.md, "Performance budgets": the landing page's initial JavaScript ≤ 170 KB gzip. */
const LANDING_JS_BUDGET_BYTES = 170 * 1024;

test('the landing page loads clean: no console errors, its trailer and images load, its JavaScript fits the budget', async ({ page }) => {
  const errors = watchForErrors(page);
  const scripts = new Map<string, Buffer>();
  page.on('response', async (response) => {
    if (response.request().resourceType() === 'script' && response.ok()) {
      scripts.set(response.url(), await response.body());
    }
  });

  await page.goto('/', { waitUntil: 'networkidle' });
  await expect(page.getByText('Not so autonomous AI to assist you in creating and running your production infra')).toBeVisible();

  // The trailer: a looping, muted, autoplaying video whose media the server really serves.
  const video = page.locator('video').first();
  await expect(video).toHaveJSProperty('muted', true);
  await expect(video).toHaveJSProperty('loop', true);
  await expect.poll(() => video.evaluate((v: HTMLVideoElement) => v.readyState), { timeout: 15_000 }).toBeGreaterThanOrEqual(1);
  for (const source of await video.locator('source').evaluateAll((els) => els.map((e) => (e as HTMLSourceElement).src))) {
    const response = await page.request.get(source);
    expect({ source, status: response.status() }).toEqual({ source, status: 200 });
    expect(response.headers()['content-type']).toMatch(/^video\//);
  }

  // Every image on the page that has been loaded decoded to a real picture.
  await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
  await page.waitForLoadState('networkidle');
  const broken = await page.locator('img').evaluateAll((imgs) =>
    (imgs as HTMLImageElement[]).filter((img) => img.complete && img.currentSrc && img.naturalWidth === 0).map((img) => img.currentSrc),
  );
  expect(broken).toEqual([]);

  const gzipped = [...scripts.values()].reduce((sum, body) => sum + zlib.gzipSync(body, { level: 9 }).length, 0);
  console.log(`landing initial JavaScript: ${(gzipped / 1024).toFixed(1)} KB gzip in ${scripts.size} files`);
  expect(gzipped).toBeLessThanOrEqual(LANDING_JS_BUDGET_BYTES);
  expect(errors).toEqual([]);
});

test('the landing page is prerendered, and a click made before the app takes it over is not lost', async ({ page }) => {
  const errors = watchForErrors(page);
  // The landing page's chunk is held back: the app's bundle runs, but what shows is the page the server
  // prerendered, until the app replaces it with its own.
  let release = (): void => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/assets\/landing\.[0-9a-f]{8}\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  // Not 'load': the held chunk keeps the load event waiting.
  await page.goto('/', { waitUntil: 'domcontentloaded' });
  await expect(page.getByText('Not so autonomous AI to assist you in creating and running your production infra')).toBeVisible();
  await expect(page.locator('video[poster]')).toBeVisible();
  await page.getByRole('button', { name: 'Get Started' }).first().click();
  await expect(page).toHaveURL(/\/$/);
  release();
  // The app replaces the page with the same one, and the held click reaches its Get Started.
  await expect(page).toHaveURL(/\/signin$/);
  expect(errors).toEqual([]);
});

test('pricing and the legal pages are reachable from the landing page and back', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Pricing' }).first().click();
  await expect(page).toHaveURL(/\/pricing$/);
  await expect(page.getByText('Current Rates')).toBeVisible();
  for (const [path, title] of [
    ['/terms', 'Terms of Service'],
    ['/privacy', 'Privacy Policy'],
    ['/refund-policy', 'Refund Policy'],
  ]) {
    await page.goto(path);
    await expect(page.getByRole('heading', { name: new RegExp(title) }).first()).toBeVisible();
    await expect(page.getByText('Last updated: January 2024')).toBeVisible();
    await page.getByRole('button', { name: 'Back to Home' }).click();
    await expect(page).toHaveURL(/\/$/);
  }
});
