import type { Page } from '@playwright/test';

/**
 * Console errors and uncaught exceptions make a journey fail: the product must run clean.
 * Call before the first navigation; assert `expect(errors).toEqual([])` at the end.
 */
export function watchForErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`page: ${err.message}`));
  return errors;
}
