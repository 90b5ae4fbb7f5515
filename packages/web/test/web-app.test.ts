import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ensureZstd, zstdDecompress } from '@hindsight/marketdata';
import { type RunningPlatform, readSettings, startPlatform } from '@hindsight/platform';
import type { Browser, Page } from 'playwright-core';
import { run } from '../../cli/test/support/cli-process.ts';
import { launchChromium } from '../../platform/test/support/chromium.ts';
import { assertAccessible, capture, watchProblems } from './support/page-checks.ts';

/**
 * The web app end to end: a real platform on loopback (embedded PGlite in a temp dir) serving the
 * built app from packages/web/dist, driven by Debian's Chromium through playwright-core.
 */
const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');
const example = join(here, '..', '..', '..', 'examples', 'sma-crossover-python');
const email = 'web-test@example.com';
const password = 'correct horse battery staple';

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
    // Kept after the run for a person to look at (git ignores the folder); each run starts it afresh.
    screenshots = join(here, '..', 'test-output', 'screenshots');
    rmSync(screenshots, { recursive: true, force: true });
    mkdirSync(screenshots, { recursive: true });
    const settings = readSettings(
      {},
      { host: '127.0.0.1', port: '0', dataDir, workers: '2', adminEmail: email, adminPassword: password },
    );
    platform = await startPlatform(settings, { logLevel: 'silent' });
    browser = await launchChromium();
    await ensureZstd();
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
    // The wrong password below is answered 401 on purpose; Chromium logs that response.
    const problems = watchProblems(page, (url, text) => url.endsWith('/v1/auth/login') && /401/.test(text));

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
    await page.waitForURL('**/v1/app/runs');
    await menu(page, 'API keys').click();
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
  test('a strategy from push to run page, CSV, sweep heatmap and compare', async () => {
    const context = await browser.newContext({
      viewport: { width: 1280, height: 900 },
      acceptDownloads: true,
    });
    const page = await context.newPage();
    // The invalid configuration below is answered 400 on purpose; Chromium logs that response.
    const problems = watchProblems(
      page,
      (url, text) => url.endsWith('/v1/configurations') && /400/.test(text),
    );
    const visit = async (name: string) => {
      await capture(page, screenshots, name);
      await assertAccessible(page, name);
    };

    await signInAs(page, platform.url);
    const key = await createKey(page, 'e2e');
    const apiGet = async (path: string) => {
      const response = await fetch(`${platform.url}${path}`, { headers: { 'X-API-Key': key } });
      assert.equal(response.status, 200, `${path}: ${response.status}`);
      return response;
    };

    // A strategy and its first version, created in the app; the version's image pushed with the CLI
    // and the repository and token the page shows.
    await menu(page, 'Strategies').click();
    await page.getByLabel('Name').fill('SMA crossover');
    await page.getByRole('button', { name: 'Create strategy' }).click();
    await page.waitForURL(/\/v1\/app\/strategies\/[0-9a-f-]{36}$/);
    const strategyId = page.url().split('/').pop() ?? '';
    await page.getByLabel('Version label').fill('v1');
    await page.getByRole('button', { name: 'Create version' }).click();
    const token = (await page.getByTestId('new-version-token').textContent())?.trim() ?? '';
    const repository = (await page.getByTestId('new-version-repository').textContent())?.trim() ?? '';
    assert.match(repository, /\/v\/[0-9a-f-]{36}$/);
    const shownCommands = (await page.locator('pre code').allTextContents()).join('\n');
    assert.ok(shownCommands.includes(token) && shownCommands.includes(repository), shownCommands);
    await visit('strategy-new-version');
    const pushed = await run(
      ['versions', 'push', '--repository', repository, '--token', token, example, '--bundle', 'strategy.py'],
      { HINDSIGHT_URL: platform.url },
    );
    assert.equal(pushed.code, 0, pushed.stderr);
    await page.reload();
    await page.getByText('Ready', { exact: true }).first().waitFor();
    await visit('strategy');
    await menu(page, 'Strategies').click();
    await page.getByRole('link', { name: 'SMA crossover' }).waitFor();
    await visit('strategies');

    // A configuration: an invalid fee is refused by the API, on its field; then saved.
    await menu(page, 'Configurations').click();
    await page.getByRole('link', { name: 'New configuration' }).click();
    await page.getByLabel('Name', { exact: true }).fill('BTC, three days');
    const subscription = page.getByRole('group', { name: 'Subscription 1' });
    await subscription.getByLabel('Instrument').selectOption('C:BTCUSD');
    await subscription.getByLabel('candle_1m').check();
    await subscription.getByLabel('order_update').check();
    await page.getByLabel('Start (UTC)').fill('2024-01-02T00:00');
    await page.getByLabel('End (UTC)').fill('2024-01-05T00:00');
    await page.getByLabel('Commission').selectOption('bps_of_notional');
    const fee = page.getByLabel('Fee (bps of notional)');
    await fee.fill('20000');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await until(async () => (await fee.getAttribute('aria-invalid')) === 'true', 30_000);
    const describedBy = ((await fee.getAttribute('aria-describedby')) ?? '').split(' ');
    const feeError = (
      await Promise.all(describedBy.map((id) => page.locator(`[id="${id}"]`).textContent()))
    ).join(' ');
    assert.match(feeError ?? '', /< 10000/, `the API's error shows on the fee field: ${feeError}`);
    await visit('configuration-invalid');
    await fee.fill('2.5');
    await page.getByRole('button', { name: 'Save configuration' }).click();
    await page.waitForURL(/\/v1\/app\/configurations\/[0-9a-f-]{36}$/);
    await visit('configuration');
    await menu(page, 'Configurations').click();
    await page.getByRole('link', { name: 'Edit BTC, three days' }).waitFor();
    await visit('configurations');

    // A run of it, launched from the runs page and watched to its end.
    await menu(page, 'Runs').click();
    const launch = page.getByRole('form', { name: 'Launch a run' });
    await launch.getByLabel('Strategy').selectOption({ label: 'SMA crossover' });
    await launch.getByLabel('Version').selectOption({ index: 0 });
    await launch.getByLabel('A saved configuration').check();
    await launch.getByLabel('Configuration', { exact: true }).selectOption({ label: 'BTC, three days' });
    await launch.getByRole('button', { name: 'Launch run' }).click();
    const runRow = page.getByRole('row').filter({ hasText: 'SMA crossover' }).first();
    await runRow.getByText('COMPLETE').waitFor({ timeout: 180_000 });
    await visit('runs');
    await runRow.getByRole('link').first().click();
    await page.waitForURL('**/v1/app/runs/*');
    const scenarioId = page.url().split('/').pop() ?? '';
    await page.locator('[data-run-ready="true"]').waitFor({ timeout: 60_000 });
    assert.equal(await page.getByTestId('equity-chart').count(), 1);
    const markers = Number(await page.getByTestId('price-chart').first().getAttribute('data-markers'));
    const base = `/v1/strategies/${strategyId}/scenarios/${scenarioId}`;
    const tradesFile = JSON.parse(
      Buffer.from(
        zstdDecompress(new Uint8Array(await (await apiGet(`${base}/trades`)).arrayBuffer())),
      ).toString(),
    ) as { trades: Record<string, string | number>[] };
    assert.ok(tradesFile.trades.length > 0, 'the run traded');
    const closed = tradesFile.trades.filter((t) => t.closed_at !== undefined).length;
    assert.equal(markers, tradesFile.trades.length + closed, 'one marker per entry and per exit');
    await visit('run');

    // The trades as CSV, cell for cell the API's trades file.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download trades CSV' }).click(),
    ]);
    const csv = readFileSync((await download.path()) ?? '', 'utf8')
      .trimEnd()
      .split(/\r?\n/);
    const header = (csv[0] ?? '').split(',');
    assert.equal(csv.length - 1, tradesFile.trades.length);
    tradesFile.trades.forEach((trade, i) => {
      const cells = (csv[i + 1] ?? '').split(',');
      assert.deepEqual(
        Object.fromEntries(header.map((field, j) => [field, cells[j]]).filter(([, value]) => value !== '')),
        Object.fromEntries(Object.entries(trade).map(([field, value]) => [field, String(value)])),
      );
    });

    // A 2x2 sweep over the strategy's FAST and SLOW, its heatmap, then a comparison of two of its runs.
    await menu(page, 'Runs').click();
    await launch.getByLabel('Strategy').selectOption({ label: 'SMA crossover' });
    await launch.getByLabel('Version').selectOption({ index: 0 });
    await launch.getByLabel('A saved configuration').check();
    await launch.getByLabel('Configuration', { exact: true }).selectOption({ label: 'BTC, three days' });
    await launch.getByRole('button', { name: 'Add grid row' }).click();
    await launch.getByLabel('Env key, row 1').fill('FAST');
    await launch.getByLabel('Env values, row 1').fill('5, 10');
    await launch.getByRole('button', { name: 'Add grid row' }).click();
    await launch.getByLabel('Env key, row 2').fill('SLOW');
    await launch.getByLabel('Env values, row 2').fill('20, 40');
    await launch.getByRole('button', { name: 'Launch sweep' }).click();
    await page.getByRole('link', { name: 'Open the sweep' }).click();
    await page.waitForURL('**/v1/app/sweeps/*');
    const cells = page.getByTestId('heatmap-cell');
    const cellAttributes = async () =>
      Promise.all(
        (await cells.all()).map(async (cell) => ({
          at: `${await cell.getAttribute('data-x')}x${await cell.getAttribute('data-y')}`,
          value: (await cell.getAttribute('data-value')) ?? '',
        })),
      );
    // The page refreshes itself while the sweep runs; each cell gets its value once its run is COMPLETE.
    await until(
      async () => (await cellAttributes()).filter((c) => /^-?\d/.test(c.value)).length === 4,
      240_000,
    );
    assert.deepEqual((await cellAttributes()).map((c) => c.at).sort(), ['10x20', '10x40', '5x20', '5x40']);
    await visit('sweep');

    // Two of the sweep's runs side by side.
    const picks = page.getByRole('checkbox', { name: /^Select run .* to compare$/ });
    await picks.nth(0).check();
    await picks.nth(1).check();
    await page.getByRole('link', { name: 'Compare selected (2)' }).click();
    await page.waitForURL('**/v1/app/compare?ids=*');
    await page.locator('[data-testid="compare-chart"][data-series="2"]').waitFor();
    assert.equal(await page.getByTestId('compare-metrics').locator('thead th[data-scenario-id]').count(), 2);
    await visit('compare');

    await menu(page, 'Sweeps').click();
    await page.getByRole('link', { name: /^Sweep [0-9a-f]{8}$/ }).waitFor();
    await visit('sweeps');

    // The catalog's timeline shows a hole inside an instrument's history: ETH bars for two days in
    // January and one in March.
    const times = ['2024-01-01', '2024-01-02', '2024-03-01'].map((d) => Date.parse(`${d}T00:00:00Z`));
    const column = (value: number) => Float64Array.from(times, () => value);
    await platform.ctx.market.writeBars('C:ETHUSD', {
      symbol: 'C:ETHUSD',
      priceDecimals: 2,
      volumeDecimals: 3,
      length: times.length,
      time: Float64Array.from(times),
      open: column(200000),
      high: column(200100),
      low: column(199900),
      close: column(200050),
      volume: column(1500),
    });
    await menu(page, 'Catalog').click();
    const timeline = page.getByTestId('coverage-timeline');
    await timeline.locator('[data-symbol="C:BTCUSD"]').waitFor();
    assert.equal(await timeline.locator('[data-symbol="C:BTCUSD"] [data-testid="coverage-gap"]').count(), 0);
    assert.equal(await timeline.locator('[data-symbol="C:ETHUSD"] [data-testid="coverage-gap"]').count(), 1);
    await page.getByRole('heading', { name: 'Gaps (1)' }).waitFor();
    await page.getByText('C:ETHUSD: gap 2024-01-03 to 2024-02-29 (58 days)').waitFor();
    await visit('catalog');

    await context.close();
    assert.deepEqual(problems, []);
  });
});

async function signInAs(page: Page, base: string): Promise<void> {
  await page.goto(`${base}/v1/app/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !url.pathname.endsWith('/sign-in'));
}

/** Creates an API key on the keys page and returns its value. */
async function createKey(page: Page, name: string): Promise<string> {
  await menu(page, 'API keys').click();
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create key' }).click();
  return (await page.getByTestId('new-key-value').textContent())?.trim() ?? '';
}

/** Polls `check` every 250 ms until it holds, failing after `timeoutMs`. */
async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    assert.ok(Date.now() < deadline, `not reached within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A link of the app's main navigation (pages have back links with the same words). */
const menu = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });
