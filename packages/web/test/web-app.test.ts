import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type RunningPlatform, readSettings, startPlatform } from '@hindsight/platform';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../platform/test/support/chromium.ts';

/**
 * The web app end to end: a real platform on loopback (embedded PGlite in a temp dir) serving the
 * built app from packages/web/dist, driven by Debian's Chromium through playwright-core.
 */
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
const email = 'web-test@example.com';
const password = 'correct horse battery staple';
const widths = [1280, 390] as const;
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

describe('web app', () => {
  let dataDir: string;
  let screenshots: string;
  let platform: RunningPlatform;
  let browser: Browser;

  before(async () => {
    assert.ok(
      existsSync(join(dist, 'index.html')),
      'packages/web/dist is missing: run `npm run build` first',
    );
    dataDir = mkdtempSync(join(tmpdir(), 'hindsight-web-data-'));
    screenshots = mkdtempSync(join(tmpdir(), 'hindsight-web-screenshots-'));
    const settings = readSettings(
      {},
      { host: '127.0.0.1', port: '0', dataDir, workers: '0', adminEmail: email, adminPassword: password },
    );
    platform = await startPlatform(settings, { logLevel: 'silent' });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await platform?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (screenshots) console.log(`web app screenshots: ${screenshots}`);
  });

  test('the platform serves the app for /v1 pages and its assets with long cache headers', async () => {
    const page = await fetch(`${platform.url}/v1/some/page?x=1`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    const asset = /src="(\/v1\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    assert.ok(asset, `the page names its script: ${html}`);
    const script = await fetch(`${platform.url}${asset}`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.match(script.headers.get('cache-control') ?? '', /max-age=31536000.*immutable/);

    // A missing asset is a /v1 path like any other: the app (decision 32).
    const missing = await fetch(`${platform.url}/v1/assets/nothing-here.js`);
    assert.equal(missing.status, 200);
    assert.equal(await missing.text(), html);
    const post = await fetch(`${platform.url}/v1/no/such/endpoint`, { method: 'POST' });
    assert.equal(post.status, 404);
    assert.equal(((await post.json()) as { error: { code: string } }).error.code, 'NOT_FOUND');
  });

  test('sign in, create a key that works, revoke it, sign out', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: platform.url });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      // The wrong password below is answered 401 on purpose; Chromium logs that response.
      const expected = message.location().url.endsWith('/v1/auth/login') && /401/.test(message.text());
      if (!expected) problems.push(`console error: ${message.text()} (${message.location().url})`);
    });

    // Signed out, the app sends every page to sign in.
    await page.goto(`${platform.url}/v1/`);
    await page.waitForURL('**/v1/app/sign-in');
    await page.getByRole('heading', { name: 'Sign in to Hindsight' }).waitFor();
    await capture(page, screenshots, 'sign-in');
    await assertAccessible(page, 'sign-in');

    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.equal(await page.getByRole('alert').textContent(), 'Email or password is wrong.');

    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL('**/v1/app/keys');
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();

    // A new key is shown once, with a copy button.
    await page.getByLabel('Name').fill('browser test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('new-key-value');
    const key = (await shown.textContent())?.trim() ?? '';
    assert.ok(key.length > 8, `a key is shown: "${key}"`);
    await page.getByRole('button', { name: 'Copy' }).click();
    await page.getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), key);
    await capture(page, screenshots, 'api-keys-created');
    await assertAccessible(page, 'api-keys');

    // The catalog is public, so the key is proven on an endpoint that needs one.
    const strategies = await fetch(`${platform.url}/v1/strategies`, { headers: { 'X-API-Key': key } });
    assert.equal(strategies.status, 200);

    // After a reload the list has the key by its prefix and the value is gone.
    const prefix = key.slice(0, 8);
    await page.reload();
    const row = page.getByRole('row').filter({ hasText: 'browser test' });
    await row.getByText(prefix, { exact: true }).waitFor();
    assert.equal(await page.getByTestId('new-key-value').count(), 0);
    assert.equal(await page.getByText(key).count(), 0);
    await capture(page, screenshots, 'api-keys');

    await row.getByRole('button', { name: `Revoke key ${prefix} (browser test)` }).click();
    await row.getByRole('button', { name: 'Yes, revoke' }).click();
    await row.waitFor({ state: 'detached' });
    const revoked = await fetch(`${platform.url}/v1/strategies`, { headers: { 'X-API-Key': key } });
    assert.equal(revoked.status, 401);

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((url) => url.pathname === '/v1/app/sign-in');
    assert.equal(await page.evaluate('sessionStorage.length'), 0);
    await page.goto(`${platform.url}/v1/app/keys`);
    await page.waitForURL((url) => url.pathname === '/v1/app/sign-in' && url.search === '?next=%2Fkeys');

    await context.close();
    assert.deepEqual(problems, []);
  });
});

/** Full-page screenshots at each width, named for the page. */
async function capture(page: Page, dir: string, name: string): Promise<void> {
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
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

/** axe-core in the page: no serious or critical violations. */
async function assertAccessible(page: Page, name: string): Promise<void> {
  await page.addScriptTag({ content: axeSource });
  const violations = (await page.evaluate(
    `axe.run().then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length })))`,
  )) as AxeViolation[];
  const severe = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  assert.deepEqual(severe, [], `${name}: ${JSON.stringify(severe, null, 2)}`);
}
