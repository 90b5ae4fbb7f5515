import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

/** What the browser suites check on every page: screenshots at both widths, axe-core, console errors. */
const widths = [1280, 390] as const;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Full-page screenshots at each width, named for the page, after checking the page fits the width; the viewport returns to the wide one. */
export async function capture(page: Page, dir: string, name: string): Promise<void> {
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    // Nothing may push the page wider than the screen (wide tables scroll in their own box).
    const pageWidth = (await page.evaluate('document.documentElement.scrollWidth')) as number;
    assert.ok(pageWidth <= width, `${name} is ${pageWidth} px wide at ${width} px`);
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: widths[0], height: 900 });
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: number;
}

/** axe-core in the page, at both widths: no serious or critical violations. */
export async function assertAccessible(page: Page, name: string): Promise<void> {
  await page.addScriptTag({ content: axeSource });
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    const violations = (await page.evaluate(
      `axe.run().then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length })))`,
    )) as AxeViolation[];
    const severe = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    assert.deepEqual(severe, [], `${name} at ${width} px: ${JSON.stringify(severe, null, 2)}`);
  }
  await page.setViewportSize({ width: widths[0], height: 900 });
}

/**
 * Collects page errors and console errors; `expected` lets through the ones a test provokes on purpose
 * (Chromium logs every 4xx answer as a console error with the request's URL).
 */
export function watchProblems(page: Page, expected: (url: string, text: string) => boolean = () => false) {
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const url = message.location().url;
    if (!expected(url, message.text())) problems.push(`console error: ${message.text()} (${url})`);
  });
  return problems;
}
