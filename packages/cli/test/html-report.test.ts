import assert from 'node:assert/strict';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Dec, type TradeBarBatch } from '@hindsight/core';
import {
  buildResultFiles,
  Candle,
  type EngineEvent,
  type Metrics,
  type ResultFiles,
  SimulationEngine,
  type TimeseriesFile,
} from '@hindsight/engine';
import { BarStore, MemoryObjectStore, ReplayReader } from '@hindsight/marketdata';
import { importFiles } from '@hindsight/marketdata/import';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../../platform/test/support/chromium.ts';
import { inlineScript, scriptJson } from '../src/report/html-text.ts';
import { type ReportBar, type ReportInput, renderReport, writeReport } from '../src/report/index.ts';
import { toCents } from '../src/report/metric-cards.ts';
import { REPORT_SCRIPT } from '../src/report/report-script.ts';

/**
 * The HTML report made from real engine runs on the BTCUSDT sample bars: one week with an SMA(10)/SMA(30)
 * crossover (long and short lots), and the whole quarter (131,040 1m candles, ~5,000 lots) with a
 * 131,040-point account curve, then opened in headless Chromium with every network request refused.
 */
const SAMPLE = fileURLToPath(new URL('../../../data/sample/crypto/', import.meta.url));
const START = Date.parse('2024-01-01T00:00:00Z');
const WEEK_MS = 7 * 86_400_000;
const QUARTER_MS = 91 * 86_400_000;
const SYMBOL = 'C:BTCUSD';
const HOSTILE = '</script><script>window.__pwned = 1</script><!--';

type RunFiles = ResultFiles & { metrics: Metrics };

async function quarterStore(): Promise<BarStore> {
  const files = ['2024-01', '2024-02', '2024-03'].map((m) =>
    join(SAMPLE, `binance_spot_BTCUSDT_1m_${m}.csv.zst`),
  );
  const bars = (await importFiles('binance', files, { symbol: SYMBOL })).bars as TradeBarBatch;
  const store = new BarStore(new MemoryObjectStore());
  await store.writeBars(SYMBOL, bars);
  return store;
}

/** An SMA(10)/SMA(30) crossover on 1m closes, always in the market once warmed up (bench/engine.ts). */
async function runSma(store: BarStore, end: number): Promise<{ files: RunFiles; bars: ReportBar[] }> {
  const engine = new SimulationEngine(
    {
      instruments: [
        { symbol: SYMBOL, market: 'CRYPTO', underlying: 'BTC', denomination: 'USD', calendar: 'utc' },
      ],
      subscriptions: [{ instrument: SYMBOL, timeframes: ['1m'], updates: ['order_update'] }],
      startTime: START,
      endTime: end,
      positionMode: 'netting',
      initialCapital: '100000',
      commission: { model: 'bps_of_notional', fee_rate_bps: '1' },
      slippage: { base_slippage_bps: '0.5', size_impact_bps_per_100k: '0.1', max_slippage_bps: '5' },
    },
    [SYMBOL],
  );
  const reader = new ReplayReader(
    store,
    [{ symbol: SYMBOL, spreadModel: { kind: 'half_spread_bps', value: '0.5' } }],
    {
      start: START,
      end,
    },
  );
  const closes: number[] = [];
  const bars: ReportBar[] = [];
  let position = 0;
  const sma = (n: number) => closes.slice(-n).reduce((a, b) => a + b, 0) / n;
  const onEvents = (events: EngineEvent[]) => {
    for (const event of events) {
      const bar = event.bar;
      if (!(bar instanceof Candle)) continue;
      bars.push({ time: bar.start, open: bar.open, high: bar.high, low: bar.low, close: bar.close });
      closes.push(bar.priceNumber('close'));
      if (closes.length < 30) continue;
      const target = sma(10) > sma(30) ? 1 : -1;
      if (target === position) continue;
      engine.submit({
        symbol: SYMBOL,
        side: target > 0 ? 'BUY' : 'SELL',
        quantity: new Dec(position === 0 ? '0.5' : '1'),
        order_type: 'MARKET',
        time_in_force: 'GTC',
      });
      position = target;
      onEvents(engine.drain());
    }
  };
  for (;;) {
    const step = engine.advance(reader);
    if (step.kind === 'events') onEvents(step.events);
    else if (!(await reader.fill())) break;
  }
  onEvents(engine.endOfData());
  return { files: engine.results(), bars };
}

/**
 * The quarter's run with its account curve at every bar: 131,040 points (the engine's sampler keeps
 * far fewer), the value of 0.5 BTC held plus the run's net P&L so far; metrics recomputed from it.
 */
function everyBarCurve(run: RunFiles, bars: ReportBar[]): RunFiles {
  const timeseries: TimeseriesFile = { timestamps: [], units: [], nav: [], margin_used: [] };
  const first = new Dec(bars[0]?.close ?? '0');
  const base = new Dec('100000');
  let t = START;
  for (const bar of bars) {
    t = Math.max(t, bar.time + 60_000);
    if (timeseries.timestamps.length > 0 && t <= (timeseries.timestamps.at(-1) as number)) continue;
    const nav = base.plus(new Dec(bar.close).minus(first).times('0.5'));
    timeseries.timestamps.push(timeseries.timestamps.length === 0 ? START : t);
    timeseries.units.push('100000');
    timeseries.nav.push(nav.toFixed(2));
    timeseries.margin_used.push('0');
  }
  return buildResultFiles({
    engineVersion: run.metadata.engineVersion,
    startTime: START,
    endTime: START + QUARTER_MS,
    initialCapital: '100000',
    allCrypto: true,
    timeseries,
    trades: run.trades.trades,
  });
}

interface Scaled {
  scale: number;
  first: number;
  deltas: number[];
}
interface Timed {
  t0: number;
  dt: number[];
}

/** A scaled column's numbers, as the page reads them. */
function unscaled(col: Scaled): number[] {
  const unit = 10 ** col.scale;
  return running(col.first, col.deltas).map((v) => v / unit);
}

/** A first value and the differences to each next, as the values. */
function running(first: number, deltas: number[]): number[] {
  const out = [first];
  for (const d of deltas) out.push((out.at(-1) as number) + d);
  return out;
}

const times = (col: Timed): number[] => running(col.t0, col.dt);

/** The `<script type="application/json">` payload, parsed. */
function embeddedData(html: string): {
  equity: Timed & { nav: Scaled; balance: Scaled };
  candles: (Timed & { open: Scaled; high: Scaled; low: Scaled; close: Scaled })[];
  trades: string[][];
} {
  const match = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html);
  assert.ok(match, 'the data script is present and holds no "<"');
  return JSON.parse(match[1] as string);
}

interface OpenedReport {
  page: Page;
  errors: string[];
  requests: string[];
}

/** Opens a report file with every request refused but the file's own; collects errors and requests. */
async function openReport(browser: Browser, path: string): Promise<OpenedReport> {
  const url = pathToFileURL(path).href;
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => errors.push(`page: ${error.message}`));
  page.on('request', (request) => {
    if (request.url() !== url) requests.push(request.url());
  });
  await page.route('**', (route) => (route.request().url() === url ? route.continue() : route.abort()));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('html[data-report-ready="true"]', { timeout: 20_000 });
  return { page, errors, requests };
}

const columnIndex = (page: Page, label: string) =>
  page.$$eval('#trades-table th', (ths, l) => ths.findIndex((th) => th.textContent === l), label);

const columnTexts = (page: Page, index: number) =>
  page.$$eval(
    '#trades-table tbody tr',
    (rows, i) => rows.map((row) => row.children[i]?.textContent ?? ''),
    index,
  );

/** Exact order of decimal strings, for checking the page's sort (the table never shows floats). */
function compareDecimal(a: string, b: string): number {
  const d = new Dec(a).minus(new Dec(b));
  return d.isZero() ? 0 : d.isNegative() ? -1 : 1;
}

describe('HTML backtest report', () => {
  let week: { files: RunFiles; bars: ReportBar[] };
  let quarter: { files: RunFiles; bars: ReportBar[] };
  let weekInput: ReportInput;
  let weekHtml: string;
  let dir: string;
  let browser: Browser | undefined;

  before(async () => {
    const store = await quarterStore();
    week = await runSma(store, START + WEEK_MS);
    quarter = await runSma(store, START + QUARTER_MS);
    weekInput = {
      title: `SMA crossover ${HOSTILE}`,
      files: week.files,
      candles: [{ symbol: SYMBOL, timeframe: '1m', bars: week.bars }],
      params: { fast: 10, slow: 30, note: HOSTILE, long_only: false },
    };
    weekHtml = renderReport(weekInput);
    dir = await mkdtemp(join(tmpdir(), 'hindsight-report-'));
  });

  after(async () => {
    await browser?.close();
  });

  it('runs the engine for real: long and short lots, closed and open', () => {
    const lots = week.files.trades.trades;
    assert.ok(week.files.metrics.totalTrades > 10, `closed trades: ${week.files.metrics.totalTrades}`);
    assert.ok(lots.some((l) => l.direction === 'Long') && lots.some((l) => l.direction === 'Short'));
    assert.ok(lots.some((l) => l.state === 'Open') && lots.some((l) => l.state === 'Closed'));
    assert.equal(week.bars.length, 7 * 1440);
  });

  it('references nothing outside the file', () => {
    assert.doesNotMatch(weekHtml, /src\s*=\s*["']?\s*(https?:)?\/\//i);
    assert.doesNotMatch(weekHtml, /href\s*=\s*["']?\s*(https?:)?\/\//i);
    assert.doesNotMatch(weekHtml, /@import/i);
    assert.doesNotMatch(weekHtml, /<link\b/i);
    assert.doesNotMatch(weekHtml, /<script[^>]*\ssrc=/i);
    assert.match(weekHtml, /TradingView Lightweight Charts/);
  });

  it('escapes a title or parameter that tries to close the script element', () => {
    assert.ok(!weekHtml.includes(HOSTILE), 'the hostile text appears nowhere verbatim');
    assert.ok(!weekHtml.includes('<script>window.__pwned'));
    // Our three script elements, and no other: the data, the library, the page script.
    assert.equal(weekHtml.match(/<script\b/gi)?.length, 3);
    assert.equal(weekHtml.match(/<\/script/gi)?.length, 3);
    assert.ok(weekHtml.includes('<title>SMA crossover &lt;/script&gt;&lt;script&gt;window.__pwned = 1'));
    assert.ok(weekHtml.includes('note = &lt;/script&gt;'));
  });

  it('embeds the data: every timeseries point, every candle and every lot with its exact decimals', () => {
    const data = embeddedData(weekHtml);
    const { timeseries, trades } = week.files;
    assert.deepEqual(times(data.equity), timeseries.timestamps);
    // The charts draw NAV and balance to the cent, prices as the doubles nearest their decimals.
    assert.deepEqual(
      unscaled(data.equity.nav),
      timeseries.nav.map((v) => Math.round(Number(v) * 100) / 100),
    );
    assert.deepEqual(
      unscaled(data.equity.balance),
      timeseries.units.map((v) => Math.round(Number(v) * 100) / 100),
    );
    const candles = data.candles[0];
    assert.ok(candles);
    assert.deepEqual(
      times(candles),
      week.bars.map((b) => b.time),
    );
    for (const field of ['open', 'high', 'low', 'close'] as const) {
      assert.deepEqual(
        unscaled(candles[field]),
        week.bars.map((b) => Number(b[field])),
        field,
      );
    }
    assert.equal(data.trades.length, trades.trades.length);
    let commissions = new Dec(0);
    for (const [i, lot] of trades.trades.entries()) {
      const row = data.trades[i] as string[];
      assert.equal(row[0], lot.id);
      assert.equal(row[4], lot.units);
      assert.equal(row[6], lot.open_price);
      commissions = commissions.plus(row[10] as string);
      if (lot.state === 'Closed') {
        assert.equal(row[8], lot.close_price);
        assert.equal(row[9], lot.realized_pnl);
        // Net P&L is P&L minus the lot's commissions, in decimal.
        assert.ok(new Dec(row[11] as string).eq(new Dec(lot.realized_pnl).minus(row[10] as string)));
      }
    }
    // The rows' commissions add up to the metrics' total exactly.
    assert.ok(commissions.eq(week.files.metrics.totalCommission));
  });

  it('has the trade count in the trades table', () => {
    const lots = week.files.trades.trades.length;
    assert.ok(weekHtml.includes(`data-trade-count="${lots}"`));
    assert.ok(weekHtml.includes(`<span id="trade-count">${lots} trades</span>`));
    assert.ok(weekHtml.includes(`${week.files.metrics.totalTrades} closed`));
  });

  it('shows each metric: money exactly as the metrics give it, percentages and ratios to 2 decimals', () => {
    const m = week.files.metrics as unknown as Record<string, unknown>;
    const card = (key: string) => {
      const found = new RegExp(`data-metric="${key}"[^>]*>(.*?)</div></div>`).exec(weekHtml);
      assert.ok(found, `card ${key}`);
      return found[1] as string;
    };
    for (const key of [
      'netPnl',
      'grossPnl',
      'totalCommission',
      'avgWin',
      'avgLoss',
      'largestWin',
      'largestLoss',
    ]) {
      const exact = m[key];
      if (typeof exact !== 'string') continue;
      // To the cent, rounded in decimal; the exact string is shown under it when that rounds it.
      const decimals = exact.split('.')[1]?.length ?? 0;
      const cents = new Dec(exact).toFixed(2);
      const shown = card(key);
      assert.ok(shown.includes(`<span class="value">${cents}</span> <span class="unit">USD</span>`), key);
      if (decimals > 2) assert.ok(shown.endsWith(`<div class="card-note">${exact}`), `${key} exact`);
    }
    const twoDecimals = (n: number) =>
      Math.abs(n) < 1000 ? n.toFixed(2).replace(/^-(0\.00)$/, '$1') : undefined;
    for (const [key, unit] of [
      ['totalReturn', '%'],
      ['maxDrawdownPct', '%'],
      ['annualizedReturnPct', '%'],
      ['winRatePct', '%'],
      ['sharpeRatio', ''],
      ['sortinoRatio', ''],
      ['profitFactor', ''],
    ] as const) {
      const value = m[key];
      if (typeof value !== 'number') {
        assert.match(card(key), /n\/a/, `${key} omitted`);
        continue;
      }
      const text = twoDecimals(value);
      if (text === undefined) continue;
      assert.ok(
        card(key).includes(
          `<span class="value">${text}</span>${unit ? ` <span class="unit">${unit}</span>` : ''}`,
        ),
        key,
      );
      assert.ok(weekHtml.includes(`title="${value}"`), `${key}'s exact value in the tooltip`);
    }
    assert.ok(card('totalTrades').includes(`<span class="value">${week.files.metrics.totalTrades}</span>`));
  });

  it('opens offline in Chromium: charts drawn, table sorts by price and filters by side', async () => {
    browser = await launchChromium();
    const path = join(dir, 'week.html');
    await writeReport(path, weekInput);
    const { page, errors, requests } = await openReport(browser, path);
    try {
      assert.equal(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned), undefined);
      assert.equal(await page.title(), weekInput.title);
      // Equity, drawdown and one price chart, each drawing on canvases.
      assert.ok((await page.locator('canvas').count()) > 0);
      for (const id of ['#equity-chart', '#drawdown-chart', '.chart.price']) {
        assert.ok((await page.locator(`${id} canvas`).count()) > 0, `${id} has canvases`);
      }
      assert.equal(await page.locator('.fills-note').textContent(), '', 'a week of fills is marked');
      const lots = week.files.trades.trades.length;
      const shown = Math.min(lots, 100);
      assert.equal(await page.locator('#trades-table tbody tr').count(), shown);
      assert.equal(await page.locator('#trade-count').textContent(), `${lots} trades`);

      const price = await columnIndex(page, 'Open price');
      assert.ok(price >= 0);
      const before = await columnTexts(page, price);
      await page.click(`#trades-table th:nth-child(${price + 1})`);
      const ascending = await columnTexts(page, price);
      assert.notDeepEqual(ascending, before, 'sorting reorders the rows');
      assert.deepEqual(ascending, [...ascending].sort(compareDecimal));
      const all = week.files.trades.trades.map((l) => l.open_price).sort(compareDecimal);
      assert.deepEqual(ascending, all.slice(0, shown), 'the first page holds the lowest prices of all lots');
      await page.click(`#trades-table th:nth-child(${price + 1})`);
      const descending = await columnTexts(page, price);
      assert.deepEqual(descending, [...all].reverse().slice(0, shown));

      const side = await columnIndex(page, 'Side');
      await page.fill('#trade-filter', 'short');
      const shorts = week.files.trades.trades.filter((l) => l.direction === 'Short').length;
      const sides = await columnTexts(page, side);
      assert.ok(sides.length > 0 && sides.length === Math.min(shorts, 100));
      assert.ok(sides.every((s) => s === 'Short'));
      assert.equal(await page.locator('#trade-count').textContent(), `${shorts} of ${lots} trades`);
      await page.fill('#trade-filter', 'btc long');
      assert.ok((await columnTexts(page, side)).every((s) => s === 'Long'));
      await page.fill('#trade-filter', 'ETH');
      assert.equal(await page.locator('#trades-table tbody td.empty').count(), 1);
      await page.fill('#trade-filter', '');

      const screenshot = join(dir, 'week.png');
      await page.screenshot({ path: screenshot, fullPage: true });
      console.log(`report: ${path}\nscreenshot: ${screenshot}`);
      assert.deepEqual(errors, []);
      assert.deepEqual(requests, [], 'no network request was attempted');
    } finally {
      await page.close();
    }
  });

  it('without candles draws each traded instrument as a line through its fills', async () => {
    assert.ok(browser, 'the browser test ran first');
    const path = join(dir, 'no-candles.html');
    await writeReport(path, { title: 'No candles', files: week.files });
    const { page, errors, requests } = await openReport(browser, path);
    try {
      assert.equal(await page.locator('#price-charts h3').textContent(), `${SYMBOL} · fill prices`);
      assert.ok((await page.locator('.chart.price canvas').count()) > 0);
      assert.deepEqual(errors, []);
      assert.deepEqual(requests, []);
    } finally {
      await page.close();
    }
  });

  it('stays usable at 131,040 account points, 131,040 candles and ~5,000 trades', async () => {
    const files = everyBarCurve(quarter.files, quarter.bars);
    assert.equal(files.timeseries.timestamps.length, 131_040);
    const lots = files.trades.trades.length;
    assert.ok(lots > 4_000, `lots: ${lots}`);
    const path = join(dir, 'quarter.html');
    const { bytes } = await writeReport(path, {
      title: 'SMA crossover, Q1 2024',
      files,
      candles: [{ symbol: SYMBOL, timeframe: '1m', bars: quarter.bars }],
      params: { fast: 10, slow: 30 },
    });
    assert.equal(bytes, (await readFile(path)).length);
    const data = embeddedData(await readFile(path, 'utf8'));
    assert.equal(times(data.equity).length, 131_040);
    assert.equal(unscaled(data.equity.nav).length, 131_040);
    assert.equal(times(data.candles[0] as Timed).length, 131_040);
    console.log(`131,040-point report: ${bytes} bytes, ${lots} trades`);

    assert.ok(browser, 'the browser test ran first');
    const { page, errors, requests } = await openReport(browser, path);
    try {
      assert.ok((await page.locator('#equity-chart canvas').count()) > 0);
      assert.ok((await page.locator('.chart.price canvas').count()) > 0);
      // Zoomed out over 10,000 fills, the arrows wait for a closer zoom, and the legend says so.
      assert.match((await page.locator('.fills-note').textContent()) ?? '', /^[\d,]+ fills in view: zoom in/);
      // Zoomed in with the mouse wheel, they are drawn.
      const chart = page.locator('.chart.price');
      await chart.hover();
      for (let i = 0; i < 40 && (await page.locator('.fills-note').textContent()) !== ''; i++) {
        await page.mouse.wheel(0, -500);
      }
      await page.waitForSelector('.fills-note:empty', { state: 'attached', timeout: 10_000 });
      assert.equal(await page.locator('#trades-table tbody tr').count(), 100);
      const pages = Math.ceil(lots / 100);
      assert.equal(await page.locator('#trade-page').textContent(), `Page 1 of ${pages}`);
      await page.click('#page-last');
      assert.equal(await page.locator('#trades-table tbody tr').count(), lots - (pages - 1) * 100);
      const screenshot = join(dir, 'quarter.png');
      await page.screenshot({ path: screenshot });
      console.log(`screenshot: ${screenshot}`);
      assert.deepEqual(errors, []);
      assert.deepEqual(requests, []);
    } finally {
      await page.close();
    }
  });
});

describe('report text', () => {
  it('embeds JSON that no value can end: "<" is written \\u003c and reads back unchanged', () => {
    const value = { title: '</script><!-- \u2028 & >' };
    const text = scriptJson(value);
    assert.ok(!text.includes('<'));
    assert.deepEqual(JSON.parse(text), value);
  });

  it("the page's script is plain JavaScript the browser can parse", () => {
    assert.doesNotThrow(() => new Function(REPORT_SCRIPT));
    assert.doesNotThrow(() => inlineScript(REPORT_SCRIPT));
  });

  it('inlines script source with "</script" rewritten and refuses "<!--"', () => {
    assert.equal(inlineScript("var s = '</script>';"), "var s = '<\\/script>';");
    assert.throws(() => inlineScript("var s = '<!--';"));
  });

  it('shows money to the cent by decimal rounding, half to even, never through a float', () => {
    assert.equal(toCents('0.125'), '0.12');
    assert.equal(toCents('0.135'), '0.14');
    assert.equal(toCents('14490.7'), '14490.70');
    assert.equal(toCents('100000'), '100000.00');
    assert.equal(toCents('-0.001'), '0.00');
    // 2^53 + 1 dollars and a fraction: a double would lose the last digit.
    assert.equal(toCents('9007199254740993.005'), '9007199254740993.00');
  });
});
