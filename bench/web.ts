import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { TradeBarBatch } from '@hindsight/core';
import type { Metrics, ResultFiles, TradeLot } from '@hindsight/engine';
import { compressResultFiles } from '@hindsight/gateway';
import { zstdDecompress } from '@hindsight/marketdata';
import { type RunningPlatform, readSettings, startPlatform } from '@hindsight/platform';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../packages/platform/test/support/chromium.ts';
import { btcBars } from './engine.ts';

/**
 * The web app (`npm run bench -- web`):
 * - its weight: the production build (`vite build` into a temp folder, never packages/web/dist),
 *   gzip sizes of its JS and of its CSS;
 * - the run page's drawing time in headless Chromium: from navigation to the page's
 *   `data-run-ready="true"` (metrics, equity and drawdown chart, price chart with every trade marker,
 *   trades table drawn), served by `vite preview` of that build with the API proxied to a real platform
 *   on a temp data dir. Two runs of the SMA example (examples/sma-crossover-typescript, `hindsight
 *   backtest`, three months of C:BTCUSD 1m, 5,304 lots): as the engine stored it (13,304 timeseries
 *   points, adaptive sampling), and the same run with a per-minute timeseries (131,041 points: the
 *   start and one per 1m bar, NAV rebuilt from the bars and the run's lots), the worst case the page
 *   must handle. The platform runs no worker; the bench files the results as a worker would.
 * Figures: the median of 5 page loads after one warm-up load (HTTP cache warm, as on a second visit).
 */
const root = fileURLToPath(new URL('..', import.meta.url));
const webDir = join(root, 'packages', 'web');
const LOADS = 5;
const START = '2024-01-01T00:00:00Z';
const END = '2024-04-01T00:00:00Z';
const SETTINGS = {
  subscriptions: [{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }],
  startTime: START,
  endTime: END,
  positionMode: 'netting' as const,
  initialCapital: 100000,
  costs: { commission: { model: 'bps_of_notional', fee_rate_bps: '2.5' } },
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** The part of Vite's API the bench uses (Vite is packages/web's dependency, not the root's). */
interface Vite {
  build(config: Record<string, unknown>): Promise<unknown>;
  preview(config: Record<string, unknown>): Promise<PreviewServer>;
}
interface PreviewServer {
  close(): Promise<void>;
  resolvedUrls: { local: string[] } | null;
}

async function vite(): Promise<Vite> {
  const resolved = createRequire(join(webDir, 'package.json')).resolve('vite');
  return (await import(pathToFileURL(resolved).href)) as Vite;
}

async function bundleSizes(outDir: string): Promise<void> {
  const { build } = await vite();
  await build({ root: webDir, logLevel: 'silent', build: { outDir, emptyOutDir: true } });
  const assets = join(outDir, 'assets');
  let js = 0;
  let css = 0;
  for (const name of readdirSync(assets)) {
    const gzipped = gzipSync(readFileSync(join(assets, name))).length;
    if (name.endsWith('.js')) js += gzipped;
    else if (name.endsWith('.css')) css += gzipped;
  }
  console.log(`BENCH web_js_gzip ${(js / 1024).toFixed(1)} KiB`);
  console.log(`BENCH web_css_gzip ${(css / 1024).toFixed(1)} KiB`);
}

/** `hindsight backtest` of the SDK SMA example: the engine's own result files and metrics. */
async function backtest(scratch: string): Promise<{ files: ResultFiles; metrics: Metrics }> {
  const scenario = join(scratch, 'scenario.json');
  const out = join(scratch, 'results');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(scenario, JSON.stringify(SETTINGS));
  const child = spawn(
    process.execPath,
    [
      '--conditions=source',
      '--import',
      'tsx',
      join(root, 'packages', 'cli', 'src', 'main.ts'),
      'backtest',
      join(root, 'examples', 'sma-crossover-typescript', 'strategy.ts'),
      '--scenario',
      scenario,
      '--out',
      out,
      '--no-report',
    ],
    { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk;
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`hindsight backtest exited ${code}: ${stderr.slice(-2000)}`);
  const decode = (name: string) =>
    JSON.parse(Buffer.from(zstdDecompress(readFileSync(join(out, name)))).toString('utf8'));
  return {
    files: {
      metadata: decode('metadata.json.zst'),
      timeseries: decode('timeseries.json.zst'),
      trades: decode('trades.json.zst'),
    },
    metrics: JSON.parse(readFileSync(join(out, 'metrics.json'), 'utf8')) as Metrics,
  };
}

/**
 * The run's account curve at every 1m bar close: balance = capital + realized P&L of the lots closed so
 * far - their commissions; NAV = balance + the open lots' P&L at the bar's close. Floats, as the chart
 * draws them; margin used is carried from the engine's own samples.
 */
function perMinute(files: ResultFiles, bars: TradeBarBatch): ResultFiles['timeseries'] {
  const start = Date.parse(START);
  const end = Date.parse(END);
  const lots = files.trades.trades as TradeLot[];
  const byOpen = [...lots].sort((a, b) => a.opened_at - b.opened_at);
  const byClose = lots
    .filter((l) => l.closed_at !== undefined)
    .sort((a, b) => (a.closed_at ?? 0) - (b.closed_at ?? 0));
  const sampled = files.timeseries;
  const timestamps = [start];
  const units = ['100000'];
  const nav = ['100000'];
  const margin = ['0'];
  const open = new Set<TradeLot>();
  let balance = 100000;
  let opened = 0;
  let closed = 0;
  let sample = 0;
  for (let i = 0; i < bars.length; i++) {
    const time = (bars.time[i] as number) + 60_000;
    if (time <= start || time > end) continue;
    for (; opened < byOpen.length && (byOpen[opened] as TradeLot).opened_at <= time; opened++) {
      const lot = byOpen[opened] as TradeLot;
      balance -= Number(lot.entry_commission ?? 0);
      open.add(lot);
    }
    for (; closed < byClose.length && ((byClose[closed] as TradeLot).closed_at ?? 0) <= time; closed++) {
      const lot = byClose[closed] as TradeLot;
      balance += Number(lot.realized_pnl ?? 0) - Number(lot.exit_commission ?? 0);
      open.delete(lot);
    }
    const close = bars.close[i] as number;
    let unrealized = 0;
    for (const lot of open) {
      const move = close - Number(lot.open_price);
      unrealized += Number(lot.units) * (lot.direction === 'Long' ? move : -move);
    }
    while (sample + 1 < sampled.timestamps.length && (sampled.timestamps[sample + 1] as number) <= time)
      sample++;
    timestamps.push(time);
    units.push(balance.toFixed(8));
    nav.push((balance + unrealized).toFixed(8));
    margin.push(sampled.margin_used[sample] as string);
  }
  return { timestamps, units, nav, margin_used: margin };
}

/** Files a COMPLETE scenario with these results, as a worker would. */
async function fileRun(
  platform: RunningPlatform,
  ids: { userId: string; strategyId: string; versionId: string },
  files: ResultFiles,
  metrics: Metrics,
): Promise<string> {
  const { scenarios } = platform.ctx;
  const created = await scenarios.create(
    ids.userId,
    ids.strategyId,
    { versionId: ids.versionId, settings: SETTINGS },
    100,
  );
  const worker = 'web-bench';
  const claimed = await scenarios.claim(worker, 600_000);
  if (claimed?.scenarioId !== created.scenarioId) throw new Error('the bench could not claim its scenario');
  await scenarios.recordManifest(created.scenarioId, worker, {
    imageDigest: 'sha256:0000000000000000000000000000000000000000000000000000000000000000',
    dataFingerprint: 'sha256:bench',
    engineVersion: files.metadata.engineVersion,
    configuration: SETTINGS,
  });
  await scenarios.markRunning(created.scenarioId, worker);
  if (!(await scenarios.complete(created.scenarioId, worker, await compressResultFiles(files), metrics))) {
    throw new Error('the bench could not complete its scenario');
  }
  return created.scenarioId;
}

/** Milliseconds from navigation start to `data-run-ready="true"`, read inside the page. */
async function drawTimes(
  browser: Browser,
  baseUrl: string,
  token: string,
  scenarioId: string,
): Promise<{ times: number[]; marks: string }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const session = {
    token,
    email: 'bench@example.com',
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  };
  // Page scripts are strings: this file is compiled without the DOM's types.
  await context.addInitScript(
    `sessionStorage.setItem('hindsight.session', ${JSON.stringify(JSON.stringify(session))})`,
  );
  const times: number[] = [];
  let marks = '';
  try {
    for (let i = 0; i <= LOADS; i++) {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      await page.goto(`${baseUrl}/v1/app/runs/${scenarioId}`, { waitUntil: 'commit' });
      const ready = await page.waitForFunction(
        `document.querySelector('[data-run-ready="true"]') ? performance.now() : false`,
        undefined,
        { polling: 'raf', timeout: 120_000 },
      );
      const elapsed = (await ready.jsonValue()) as number;
      const markers = Number(await page.getAttribute('[data-testid="price-chart"]', 'data-markers'));
      if (errors.length > 0) throw new Error(`the run page logged errors: ${errors.join('; ')}`);
      if (!(markers > 10_000)) throw new Error(`the price chart has ${markers} markers`);
      if (i > 0) times.push(elapsed);
      // Where the time went, from the page's user-timing marks and its API requests (the last load).
      marks = (await page.evaluate(
        `[...performance.getEntriesByType('mark').filter((m) => m.name.startsWith('run-')).map((m) => m.name + ' ' + Math.round(m.startTime)),
          ...performance.getEntriesByType('resource').filter((r) => r.name.includes('/app-api/') || r.name.includes('/metrics'))
            .map((r) => r.name.replace(/^.*\\/(app-api|scenarios)\\//, '').replace(/[0-9a-f-]{36}/, 'ID').replace(/\\?.*$/, '') + ' ' + Math.round(r.startTime) + '-' + Math.round(r.responseEnd))].join(', ')`,
      )) as string;
      await page.close();
    }
  } finally {
    await context.close();
  }
  return { times, marks };
}

export async function run(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'hindsight-bench-web-'));
  let platform: RunningPlatform | undefined;
  let browser: Browser | undefined;
  let server: PreviewServer | undefined;
  try {
    const outDir = join(scratch, 'dist');
    await bundleSizes(outDir);

    const [{ files, metrics }, bars] = await Promise.all([backtest(scratch), btcBars()]);
    const dense = { ...files, timeseries: perMinute(files, bars) };
    dense.metadata = { ...files.metadata, timeseriesPoints: dense.timeseries.timestamps.length };

    const email = 'bench@example.com';
    const password = 'bench-password';
    platform = await startPlatform(
      readSettings({}, { host: '127.0.0.1', port: '0', dataDir: join(scratch, 'data'), workers: '0' }),
      { logLevel: 'silent' },
    );
    const user = await platform.ctx.users.create(email, password);
    if (!user) throw new Error('could not create the bench user');
    const strategy = await platform.ctx.strategies.create(user.id, user.id, { name: 'SMA crossover' });
    const version = await platform.ctx.versions.create(user.id, strategy.strategyId, { label: 'bench' });
    const ids = { userId: user.id, strategyId: strategy.strategyId, versionId: version.versionId };
    const sampledRun = await fileRun(platform, ids, files, metrics);
    const denseRun = await fileRun(platform, ids, dense, metrics);

    const login = await fetch(`${platform.url}/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    const { data } = (await login.json()) as { data: { token: string } };

    // vite.config.ts proxies the API paths to HINDSIGHT_API, in preview as in dev.
    process.env.HINDSIGHT_API = platform.url;
    const { preview } = await vite();
    server = await preview({
      root: webDir,
      logLevel: 'silent',
      build: { outDir },
      preview: { host: '127.0.0.1', port: 0, strictPort: false },
    });
    const baseUrl = (server?.resolvedUrls?.local[0] ?? '').replace(/\/v1\/?$/, '').replace(/\/$/, '');
    browser = await launchChromium();

    const lots = files.trades.trades.length;
    const { times: sampledTimes, marks: sampledMarks } = await drawTimes(
      browser,
      baseUrl,
      data.token,
      sampledRun,
    );
    console.log(
      `BENCH web_run_page_ready_${files.timeseries.timestamps.length}_points_${lots}_trades ${Math.round(median(sampledTimes))} ms`,
    );
    const { times: denseTimes, marks: denseMarks } = await drawTimes(browser, baseUrl, data.token, denseRun);
    console.log(
      `BENCH web_run_page_ready_${dense.timeseries.timestamps.length}_points_${lots}_trades ${Math.round(median(denseTimes))} ms`,
    );
    console.log(
      `# draw times (ms): sampled ${sampledTimes.map(Math.round).join(' ')}; per-minute ${denseTimes.map(Math.round).join(' ')}`,
    );
    console.log(`# sampled, last load (ms from navigation): ${sampledMarks}`);
    console.log(`# per-minute, last load (ms from navigation): ${denseMarks}`);
  } finally {
    await browser?.close();
    await server?.close();
    await platform?.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
