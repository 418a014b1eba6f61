import fs from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';

/** Where each view's findings are written (CI keeps test-results/ as an artifact). */
export const AXE_DIR = path.resolve(import.meta.dirname, '..', '..', 'test-results', 'axe');

/** The impacts that fail a view: a person is blocked (critical) or seriously hindered (serious). */
const FAILING = new Set(['serious', 'critical']);

/**
 * Runs axe-core on the page as it is (WCAG 2.x A and AA, and axe's best practices) and expects no
 * serious or critical finding. Every finding, whatever its impact, is written to
 * test-results/axe/<view>.json and attached to the journey, so the count per view can be compared.
 */
export async function expectAccessible(page: Page, view: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']).analyze();
  const findings = results.violations.map((v) => ({ rule: v.id, impact: v.impact, nodes: v.nodes.length, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
  fs.mkdirSync(AXE_DIR, { recursive: true });
  fs.writeFileSync(path.join(AXE_DIR, `${view}.json`), `${JSON.stringify(findings, null, 2)}\n`);
  await test.info().attach(`axe-${view}`, { body: JSON.stringify(findings, null, 2), contentType: 'application/json' });
  const failing = findings.filter((f) => FAILING.has(f.impact ?? ''));
  expect.soft(failing, `serious or critical axe findings on ${view}`).toEqual([]);
}
