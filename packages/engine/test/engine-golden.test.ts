/**
 * Golden runs of the engine on the real bundled bars: two fixed strategies whose key outputs are pinned
 * in `fixtures/engine-golden.json` (trade counts, final balance and NAV, a few metrics, and the sha256 of
 * each encoded result file). A change to any fill, cost or result rule shows up here.
 *
 * The strategy (both runs): SMA(10) / SMA(30) of the 1m candle closes (mids). When the fast average
 * crosses the slow one and no position is open, enter at market in the direction of the cross with a
 * bracket: stop-loss and take-profit at fixed percentages of the candle's close (rounded to the price
 * decimals, away from the entry). Exits happen only through the bracket legs; a position still open at
 * the end stays open (an `Open` lot).
 *
 * - `btc`: C:BTCUSD, Binance BTCUSDT 1m, all of January 2024 (44,640 bars), netting, 100,000 USD,
 *   0.5 BTC per entry, stop 0.5 %, target 1 %; spread model half_spread_bps 0.5; commission 1 bps;
 *   slippage 0.5 bps + 0.1 bps per 100k USD, capped at 5 bps.
 * - `usdjpy`: F:USDJPY, FXCM 1m bid/ask, 2013-02-04 00:00 to 2013-02-08 21:00 UTC (Monday to Friday
 *   before the close; every 17:00 New York rollover in it has the bar that closes at it), hedging,
 *   20,000 USD, 100,000 USD per entry, stop 0.2 %, target 0.3 %; commission 0.35 bps; slippage 0.2 bps;
 *   daily funding long -2.5 % / short +0.5 % a year, basis 365, Wednesday triple. JPY amounts are
 *   converted at the USDJPY mid.
 *
 * The first fills of each run are checked by hand against the raw CSV rows below, so the pinned
 * numbers are not just whatever the engine printed.
 *
 * Regenerate the fixture after an intended change of the rules (and review its diff):
 *
 *   UPDATE_GOLDEN=1 node --import tsx --test packages/engine/test/engine-golden.test.ts
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Dec, type SpreadModel, toDecimalString } from '@hindsight/core';
import { BarStore, ensureZstd, MemoryObjectStore, ReplayReader, zstdDecompress } from '@hindsight/marketdata';
import { type ImportFormat, importFiles } from '@hindsight/marketdata/import';
import {
  type EngineConfig,
  type EngineEvent,
  type EngineInstrument,
  encodeResultFiles,
  SimulationEngine,
  type TradeLot,
} from '../src/index.ts';
import { order } from './support/commands.ts';

const SAMPLE = fileURLToPath(new URL('../../../data/sample/', import.meta.url));
const FIXTURE = fileURLToPath(new URL('./fixtures/engine-golden.json', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';

interface GoldenRun {
  file: string;
  format: ImportFormat;
  instrument: EngineInstrument;
  spreadModel: SpreadModel;
  window: [string, string];
  config: Pick<EngineConfig, 'positionMode' | 'initialCapital' | 'commission' | 'slippage' | 'funding'>;
  quantity: string;
  stopPct: string;
  targetPct: string;
  priceDecimals: number;
}

const RUNS: Record<'btc' | 'usdjpy', GoldenRun> = {
  btc: {
    file: 'crypto/binance_spot_BTCUSDT_1m_2024-01.csv.zst',
    format: 'binance',
    instrument: {
      symbol: 'C:BTCUSD',
      market: 'CRYPTO',
      underlying: 'BTC',
      denomination: 'USD',
      calendar: 'utc',
    },
    spreadModel: { kind: 'half_spread_bps', value: '0.5' },
    window: ['2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z'],
    config: {
      positionMode: 'netting',
      initialCapital: '100000',
      commission: { model: 'bps_of_notional', fee_rate_bps: '1' },
      slippage: { base_slippage_bps: '0.5', size_impact_bps_per_100k: '0.1', max_slippage_bps: '5' },
    },
    quantity: '0.5',
    stopPct: '0.5',
    targetPct: '1',
    priceDecimals: 2,
  },
  usdjpy: {
    file: 'forex/fxcm_USDJPY_1m_bidask_2013-02.csv.zst',
    format: 'forex-sample',
    instrument: {
      symbol: 'F:USDJPY',
      market: 'FOREX',
      underlying: 'USD',
      denomination: 'JPY',
      calendar: 'fx',
    },
    spreadModel: { kind: 'zero' },
    window: ['2013-02-04T00:00:00Z', '2013-02-08T21:00:00Z'],
    config: {
      positionMode: 'hedging',
      initialCapital: '20000',
      commission: { model: 'bps_of_notional', fee_rate_bps: '0.35' },
      slippage: { base_slippage_bps: '0.2', size_impact_bps_per_100k: '0', max_slippage_bps: '0' },
      funding: { model: 'daily', long_rate: '-0.025', short_rate: '0.005', day_count_basis: 365 },
    },
    quantity: '100000',
    stopPct: '0.2',
    targetPct: '0.3',
    priceDecimals: 3,
  },
};

/** Runs the SMA crossover with brackets; returns the engine and its results. */
async function runGolden(run: GoldenRun) {
  const store = new BarStore(new MemoryObjectStore());
  const symbol = run.instrument.symbol;
  const imported = await importFiles(run.format, [join(SAMPLE, run.file)], { symbol });
  await store.writeBars(symbol, imported.bars);
  const window = { start: Date.parse(run.window[0]), end: Date.parse(run.window[1]) };
  const engine = new SimulationEngine(
    {
      instruments: [run.instrument],
      subscriptions: [{ instrument: symbol, timeframes: ['1m'], updates: ['order_update', 'trade_update'] }],
      startTime: window.start,
      endTime: window.end,
      ...run.config,
      assertIdentity: true,
    },
    [symbol],
  );
  const reader = new ReplayReader(store, [{ symbol, spreadModel: run.spreadModel }], window);
  // Closes as integers at 8 decimals (these mids have at most 4), so the sums are exact.
  const closes: number[] = [];
  let previous = 0;
  const onEvents = (events: EngineEvent[]) => {
    for (const event of events) {
      if (event.type !== 'candle') continue;
      const close = new Dec((event.bar as { close: string }).close);
      closes.push(close.times(1e8).toNumber());
      if (closes.length > 30) closes.shift();
      if (closes.length < 30) continue;
      // fast > slow <=> sum10 / 10 > sum30 / 30 <=> 3 x sum10 > sum30.
      const sum = (n: number) => closes.slice(-n).reduce((a, b) => a + b, 0);
      const signal = Math.sign(3 * sum(10) - sum(30));
      const crossed = signal !== 0 && previous !== 0 && signal !== previous;
      if (signal !== 0) previous = signal;
      if (!crossed || engine.positions().length > 0) continue;
      const buy = signal > 0;
      const away = (pct: string, up: boolean) =>
        toDecimalString(
          close
            .times(new Dec(1).plus(new Dec(pct).div(100).times(up ? 1 : -1)))
            .toDecimalPlaces(run.priceDecimals, up ? Dec.ROUND_UP : Dec.ROUND_DOWN),
        );
      const result = engine.submit(
        order({
          symbol,
          side: buy ? 'BUY' : 'SELL',
          quantity: run.quantity,
          order_type: 'MARKET',
          stop_loss: away(run.stopPct, !buy),
          take_profit: away(run.targetPct, buy),
        }),
      );
      assert.ok(result.ok && !result.rejected, JSON.stringify(result));
      onEvents(engine.drain());
    }
  };
  for (;;) {
    const step = engine.advance(reader);
    if (step.kind === 'events') {
      onEvents(step.events);
      continue;
    }
    if (!(await reader.fill())) break;
  }
  onEvents(engine.endOfData());
  return { engine, files: engine.results() };
}

/** The key outputs pinned in the fixture. */
function summaryOf(files: ReturnType<SimulationEngine['results']>) {
  const encoded = encodeResultFiles(files);
  const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
  const { metadata, metrics, trades } = files;
  return {
    lots: trades.trades.length,
    closedTrades: metrics.totalTrades,
    openTrades: metadata.openTrades,
    winningTrades: metrics.winningTrades,
    losingTrades: metrics.losingTrades,
    finalBalance: metadata.finalBalance,
    finalNav: metadata.finalNav,
    netPnl: metrics.netPnl,
    totalCommission: metrics.totalCommission,
    totalReturn: metrics.totalReturn,
    maxDrawdownPct: metrics.maxDrawdownPct,
    sharpeRatio: metrics.sharpeRatio ?? null,
    profitFactor: metrics.profitFactor ?? null,
    timeseriesPoints: metadata.timeseriesPoints,
    sha256: {
      metadata: sha256(encoded.metadata),
      timeseries: sha256(encoded.timeseries),
      trades: sha256(encoded.trades),
    },
  };
}

type Summary = ReturnType<typeof summaryOf>;

/** Compares with the pinned summary, or (UPDATE_GOLDEN=1) writes it into the fixture. */
function checkGolden(name: keyof typeof RUNS, summary: Summary): void {
  let fixture: Record<string, Summary> = {};
  try {
    fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, Summary>;
  } catch (error) {
    if (!UPDATE) throw new Error(`${FIXTURE} is missing: run with UPDATE_GOLDEN=1 to create it (${error})`);
  }
  if (UPDATE) {
    fixture[name] = summary;
    writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 2)}\n`);
    return;
  }
  assert.deepEqual(
    summary,
    fixture[name],
    `${name} differs from the golden fixture (UPDATE_GOLDEN=1 to accept)`,
  );
}

/** The raw CSV row of a bar (as the file has it), by its open time. */
async function rawRow(file: string, time: number): Promise<string[]> {
  await ensureZstd();
  const text = new TextDecoder().decode(zstdDecompress(readFileSync(join(SAMPLE, file))));
  const iso = new Date(time).toISOString().replace('.000Z', 'Z');
  const line = text.split('\n').find((l) => l.startsWith(`${time},`) || l.startsWith(`${iso},`));
  assert.ok(line, `no row at ${iso} in ${file}`);
  return line.replace(/\r$/, '').split(',');
}

const lotsOf = (files: ReturnType<SimulationEngine['results']>) => files.trades.trades as TradeLot[];

/** The fields of a lot the hand checks look at. */
const fillsOf = (lot: TradeLot) => ({
  direction: lot.direction,
  units: lot.units,
  opened_at: new Date(lot.opened_at).toISOString(),
  base_open_price: lot.base_open_price,
  open_slippage_bps: lot.open_slippage_bps,
  open_price: lot.open_price,
  entry_commission: lot.entry_commission,
  closed_at: lot.closed_at === undefined ? undefined : new Date(lot.closed_at).toISOString(),
  base_close_price: lot.base_close_price,
  close_slippage_bps: lot.close_slippage_bps,
  close_price: lot.close_price,
  exit_commission: lot.exit_commission,
  realized_pnl: lot.realized_pnl,
});

describe('golden runs on the real sample bars', () => {
  it('BTCUSDT January 2024: SMA crossover with brackets, netting, commission and slippage', async () => {
    const { engine, files } = await runGolden(RUNS.btc);
    const first = lotsOf(files)[0] as TradeLot;
    // Entry: the candle of the bar opened 2024-01-01T00:31Z closes a death cross; the strategy sells
    // 0.5 at market at 00:32. The raw row (open_time, open, high, low, close):
    assert.deepEqual((await rawRow(RUNS.btc.file, first.opened_at - 60_000)).slice(0, 5), [
      '1704069060000',
      '42391.51000000',
      '42391.51000000',
      '42377.64000000',
      '42381.99000000',
    ]);
    // Exit: the bar opened 2024-01-01T01:35Z trades up through the stop-loss.
    assert.deepEqual((await rawRow(RUNS.btc.file, (first.closed_at as number) - 60_000)).slice(0, 5), [
      '1704072900000',
      '42565.22000000',
      '42628.81000000',
      '42565.21000000',
      '42620.00000000',
    ]);
    assert.deepEqual(fillsOf(first), {
      direction: 'Short',
      units: '0.5',
      opened_at: '2024-01-01T00:32:00.000Z',
      // bid = close x (1 - 0.5 bps of half spread) = 42381.99 x 0.99995 = 42379.8709005
      base_open_price: '42379.8709005',
      // 0.5 + (0.5 x 42379.8709005 = 21189.93545025 USD) / 100000 x 0.1 = 0.52118993545025 bps
      open_slippage_bps: '0.52118993545025',
      // 42379.8709005 x (1 - 0.000052118993545025): a sell gets less
      open_price: '42377.6621042820978476659549875',
      // 0.5 x 42377.66210428... x 1 / 10000
      entry_commission: '2.118883105214104892383297749375',
      closed_at: '2024-01-01T01:36:00.000Z',
      // stop-loss = 42381.99 (the candle's mid close) x 1.005 = 42593.89995, rounded up to 42593.90. The ask
      // path is open 42565.22 x 1.00005 = 42567.348261 (below the stop: no gap), high 42628.81 x 1.00005 =
      // 42630.9414405 (through it): the buy stop fills at its price.
      base_close_price: '42593.9',
      // 0.5 + 0.5 x 42593.9 / 100000 x 0.1 = 0.52129695 bps; a buy pays 42593.9 x 1.000052129695
      close_slippage_bps: '0.52129695',
      close_price: '42596.1204070158605',
      exit_commission: '2.129806020350793025',
      // short: 0.5 x (42377.6621042820978476659549875 - 42596.1204070158605)
      realized_pnl: '-109.22915136688132616702250625',
    });
    assert.equal(engine.accountView().balance, files.metadata.finalBalance);
    checkGolden('btc', summaryOf(files));
  });

  it('USDJPY 2013-02-04..08: SMA crossover with brackets, hedging, JPY conversion, commission and funding', async () => {
    const { engine, files } = await runGolden(RUNS.usdjpy);
    const lots = lotsOf(files);
    const first = lots[0] as TradeLot;
    // time, bid open, high, low, close, ask open, high, low, close
    assert.deepEqual(await rawRow(RUNS.usdjpy.file, first.opened_at - 60_000), [
      '2013-02-04T00:41:00Z',
      '92.678',
      '92.684',
      '92.678',
      '92.681',
      '92.681',
      '92.685',
      '92.681',
      '92.683',
    ]);
    // The bar before the exit bar: its close is the USDJPY rate the books hold when the exit fills.
    assert.deepEqual(await rawRow(RUNS.usdjpy.file, (first.closed_at as number) - 120_000), [
      '2013-02-04T08:39:00Z',
      '92.839',
      '92.865',
      '92.837',
      '92.865',
      '92.840',
      '92.863',
      '92.838',
      '92.863',
    ]);
    assert.deepEqual(await rawRow(RUNS.usdjpy.file, (first.closed_at as number) - 60_000), [
      '2013-02-04T08:40:00Z',
      '92.865',
      '92.907',
      '92.862',
      '92.906',
      '92.863',
      '92.909',
      '92.863',
      '92.907',
    ]);
    assert.deepEqual(fillsOf(first), {
      direction: 'Short',
      units: '100000',
      opened_at: '2013-02-04T00:42:00.000Z',
      // a market sell at the bid close 92.681, less 0.2 bps: 92.681 x 0.99998 = 92.67914638
      base_open_price: '92.681',
      open_slippage_bps: '0.2',
      open_price: '92.67914638',
      // 100000 x 92.67914638 = 9267914.638 JPY / mid (92.681 + 92.683) / 2 = 92.682 -> 99996.9210634... USD,
      // x 0.35 / 10000
      entry_commission: '3.49989223721974061845881616710903951144774605640793250037764',
      closed_at: '2013-02-04T08:41:00.000Z',
      // stop-loss = mid 92.682 x 1.002 = 92.867364, rounded up to 92.868; ask open 92.863 (no gap), high
      // 92.909: the buy stop fills at 92.868, plus 0.2 bps = 92.86985736
      base_close_price: '92.868',
      close_slippage_bps: '0.2',
      close_price: '92.86985736',
      // 100000 x 92.86985736 / 92.864 (the 08:39 mid: bid 92.865 and ask 92.863, crossed in the data) x 0.35 bps
      exit_commission: '3.50022076111302549965541006202618883528600964851826326671262',
      // short: 100000 x (92.67914638 - 92.86985736) = -19071.098 JPY / 92.864
      realized_pnl: '-205.365889903514817367332873880082701585113714679531357684356',
    });
    await checkFunding(files, engine);
    checkGolden('usdjpy', summaryOf(files));
  });
});

/**
 * Funding recomputed from the trades file and the raw bars (decision 5): at each 17:00 New York
 * rollover (22:00 UTC in February), every lot open across it (opened before, closed after) is charged
 * units x the bid (long) or ask (short) close of the bar closing at the rollover (opened 21:59), in USD
 * at that bar's mid, x rate x days / 365, Wednesday counting 3. The balance must be initial capital +
 * realized - commissions + that funding.
 */
async function checkFunding(files: ReturnType<SimulationEngine['results']>, engine: SimulationEngine) {
  const run = RUNS.usdjpy;
  const funding = run.config.funding as { long_rate: string; short_rate: string };
  let total = new Dec(0);
  const charged: string[] = [];
  for (const [day, days] of [
    ['2013-02-04', 1],
    ['2013-02-05', 1],
    ['2013-02-06', 3],
    ['2013-02-07', 1],
  ] as const) {
    const rollover = Date.parse(`${day}T22:00:00Z`);
    const bar = await rawRow(run.file, rollover - 60_000);
    const [bid, ask] = [new Dec(bar[4] as string), new Dec(bar[8] as string)];
    const mid = bid.plus(ask).div(2);
    for (const lot of lotsOf(files)) {
      if (lot.opened_at >= rollover || (lot.closed_at !== undefined && lot.closed_at <= rollover)) continue;
      const long = lot.direction === 'Long';
      const value = new Dec(lot.units).times(long ? bid : ask).div(mid);
      total = total.plus(
        value
          .times(long ? funding.long_rate : funding.short_rate)
          .times(days)
          .div(365),
      );
      charged.push(`${day} ${lot.id} ${lot.direction} ${lot.units} at ${long ? bid : ask}, mid ${mid}`);
    }
  }
  // One lot open across each rollover. Wednesday's: 100000 x 93.637 / 93.639 = 99997.864... USD long,
  // x -0.025 x 3 / 365 = -20.5475063296861...; the four charges add up to -24.6565934682965...
  assert.deepEqual(charged, [
    '2013-02-04 000000004 Long 100000 at 92.372, mid 92.3765',
    '2013-02-05 000000011 Short 100000 at 93.634, mid 93.627',
    '2013-02-06 000000015 Long 100000 at 93.637, mid 93.639',
    '2013-02-07 000000021 Short 100000 at 93.646, mid 93.6415',
  ]);
  assert.ok(total.minus('-24.6565934682965111069331061745852601206').abs().lt('1e-30'), `funding ${total}`);
  const realized = lotsOf(files).reduce((sum, l) => sum.plus(l.realized_pnl ?? 0), new Dec(0));
  const balance = new Dec(run.config.initialCapital)
    .plus(realized)
    .minus(files.metrics.totalCommission)
    .plus(total);
  assert.ok(
    balance.minus(engine.accountView().balance).abs().lt('1e-30'),
    `balance ${engine.accountView().balance}, expected ${balance} (funding ${total})`,
  );
}
