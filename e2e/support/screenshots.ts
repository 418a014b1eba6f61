import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { expectAccessible } from './axe';

/** The three sizes people use: a laptop, a smaller laptop and a phone. */
export const SIZES = [
  { width: 1440, height: 900 },
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const;

/** Where the screens are photographed; CI keeps the folder as an artifact, so layout regressions can be seen. */
export const SCREENSHOT_DIR = path.resolve(import.meta.dirname, '..', '..', 'test-results', 'screenshots');

/**
 * Photographs the page at each size: what a person sees first, and the whole page; and checks it with
 * axe-core at each size (a phone's layout has its own findings), expecting no serious or critical one.
 */
export async function photograph(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  for (const size of SIZES) {
    await page.setViewportSize(size);
    // Layout settles in the next frames (ResizeObserver, xterm fit): wait for two of them, not a fixed time.
    await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${size.width}x${size.height}.png`) });
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${name}-${size.width}x${size.height}-full.png`), fullPage: true });
    await expectAccessible(page, `${name}-${size.width}x${size.height}`);
  }
}
