import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Dec, type TradeBarBatch } from '@hindsight/core';
import { type Candle, type EngineEvent, type EngineInstrument, SimulationEngine } from '@hindsight/engine';
import { BarStore, MemoryObjectStore, ReplayReader } from '@hindsight/marketdata';
import { importFiles } from '@hindsight/marketdata/import';

/**
 * The engine alone with in-process strategies (no gateway, no sockets), on the 131,040 real BTCUSDT
 * 1m sample bars (Jan-Mar 2024, a 0.5 bps half spread) unless said otherwise:
 * - idle: subscribed to 1m candles, does nothing with them (replay + engine + events throughput);
 * - sma: an SMA(10)/SMA(30) crossover on 1m closes, always in the market, 1 bps commission and
 *   slippage (the backtesting.py / backtrader comparison run);
 * - brackets: every 100 bars, flat -> a market entry with a stop-loss and a take-profit 0.5 % away,
 *   in position -> closes it (legs cancelled with it);
 * - year10: 10 instruments x 52 weeks of 1m bars (the 13-week BTC series replayed 4 times per symbol,
 *   re-timed; 5.24 M base bars) with an SMA(10)/SMA(30) crossover on 1h candles per instrument.
 * Each figure is the median of 5 runs after 2 warm-up runs (1 each for year10), so the JIT is warm
 * as it is in a long backtest.
 */
const SAMPLE = fileURLToPath(new URL('../data/sample/crypto/', import.meta.url));
const MONTHS = ['2024-01', '2024-02', '2024-03'];
const QUARTER_MS = 91 * 86_400_000;
const START = Date.parse('2024-01-01T00:00:00Z');
const SPREAD = { kind: 'half_spread_bps', value: '0.5' } as const;
const COSTS = {
  commission: { model: 'bps_of_notional', fee_rate_bps: '1' },
  slippage: { base_slippage_bps: '0.5', size_impact_bps_per_100k: '0.1', max_slippage_bps: '5' },
} as const;

type Strategy = 'idle' | 'sma' | 'brackets';

/** The strategies' order sizes, made once as an in-process strategy would. */
const UNITS = { half: new Dec('0.5'), one: new Dec('1'), two: new Dec('2') };

export async function btcBars(): Promise<TradeBarBatch> {
  const files = MONTHS.map((m) => join(SAMPLE, `binance_spot_BTCUSDT_1m_${m}.csv.zst`));
  return (await importFiles('binance', files, { symbol: 'C:BTCUSD' })).bars as TradeBarBatch;
}

const btc = (symbol: string): EngineInstrument => ({
  symbol,
  market: 'CRYPTO',
  underlying: symbol.slice(2, -3),
  denomination: 'USD',
  calendar: 'utc',
});

/**
 * A rolling SMA(10)/SMA(30) signal over closes: +1 above, -1 below, 0 while warming up. The sums are
 * taken over the window newest first, every bar (not kept running: a running float sum drifts, and a
 * drifted tie would change the trades and so the benchmark's workload); the ring is walked in two
 * straight runs rather than with a modulo per element.
 */
class Crossover {
  private readonly window = new Float64Array(30);
  private seen = 0;

  push(close: number): number {
    const newest = this.seen % 30;
    this.window[newest] = close;
    this.seen++;
    if (this.seen < 30) return 0;
    let slow = 0;
    let fast = 0;
    let k = 0;
    for (let i = newest; i >= 0; i--, k++) {
      const v = this.window[i] as number;
      slow += v;
      if (k < 10) fast += v;
    }
    for (let i = 29; i > newest; i--, k++) {
      const v = this.window[i] as number;
      slow += v;
      if (k < 10) fast += v;
    }
    return fast / 10 > slow / 30 ? 1 : -1;
  }
}

export async function runBtc(
  store: BarStore,
  strategy: Strategy,
): Promise<{ seconds: number; bars: number; fills: number }> {
  const started = process.hrtime.bigint();
  const end = START + QUARTER_MS;
  const engine = new SimulationEngine(
    {
      instruments: [btc('C:BTCUSD')],
      subscriptions: [{ instrument: 'C:BTCUSD', timeframes: ['1m'], updates: ['order_update'] }],
      startTime: START,
      endTime: end,
      positionMode: 'netting',
      initialCapital: '100000',
      ...COSTS,
    },
    ['C:BTCUSD'],
  );
  const reader = new ReplayReader(store, [{ symbol: 'C:BTCUSD', spreadModel: SPREAD }], {
    start: START,
    end,
  });
  const signal = new Crossover();
  let position = 0;
  let bars = 0;
  let fills = 0;
  const onEvents = (events: EngineEvent[]) => {
    for (const event of events) {
      if (event.type === 'order') {
        if (event.event === 'ORDER_FILLED') fills++;
        continue;
      }
      bars++;
      if (strategy === 'idle') continue;
      const close = (event.bar as Candle).priceNumber('close');
      if (strategy === 'brackets') {
        if (bars % 100 !== 0) continue;
        const [open] = engine.positions();
        if (open) engine.closePosition(open.id);
        else {
          const buy = (bars / 100) % 2 === 1;
          engine.submit({
            symbol: 'C:BTCUSD',
            side: buy ? 'BUY' : 'SELL',
            quantity: UNITS.half,
            order_type: 'MARKET',
            time_in_force: 'GTC',
            stop_loss: new Dec((close * (buy ? 0.995 : 1.005)).toFixed(2)),
            take_profit: new Dec((close * (buy ? 1.005 : 0.995)).toFixed(2)),
          });
        }
        onEvents(engine.drain());
        continue;
      }
      const target = signal.push(close);
      if (target === 0 || target === position) continue;
      engine.submit({
        symbol: 'C:BTCUSD',
        side: target > 0 ? 'BUY' : 'SELL',
        quantity: position === 0 ? UNITS.half : UNITS.one,
        order_type: 'MARKET',
        time_in_force: 'GTC',
      });
      position = target;
      onEvents(engine.drain());
    }
  };
  await drive(engine, reader, onEvents);
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, bars, fills };
}

async function drive(
  engine: SimulationEngine,
  reader: ReplayReader,
  onEvents: (events: EngineEvent[]) => void,
): Promise<void> {
  for (;;) {
    const step = engine.advance(reader);
    if (step.kind === 'events') onEvents(step.events);
    else if (!(await reader.fill())) break;
  }
  onEvents(engine.endOfData());
  engine.results();
}

const YEAR_SYMBOLS = Array.from({ length: 10 }, (_, i) => `C:X${String(i).padStart(2, '0')}USD`);

/** The BTC quarter written 4 times back to back under each of the 10 symbols. */
async function yearStore(quarter: TradeBarBatch): Promise<BarStore> {
  const store = new BarStore(new MemoryObjectStore());
  for (const symbol of YEAR_SYMBOLS) {
    for (let q = 0; q < 4; q++) {
      const time = quarter.time.map((t) => t + q * QUARTER_MS);
      await store.writeBars(symbol, { ...quarter, symbol, time });
    }
  }
  return store;
}

async function runYear(
  store: BarStore,
  bars: number,
): Promise<{ seconds: number; bars: number; fills: number }> {
  const started = process.hrtime.bigint();
  const end = START + 4 * QUARTER_MS;
  const engine = new SimulationEngine(
    {
      instruments: YEAR_SYMBOLS.map(btc),
      subscriptions: YEAR_SYMBOLS.map((s) => ({
        instrument: s,
        timeframes: ['1h'],
        updates: ['order_update'],
      })),
      startTime: START,
      endTime: end,
      positionMode: 'netting',
      initialCapital: '10000000',
      ...COSTS,
    },
    YEAR_SYMBOLS,
  );
  const reader = new ReplayReader(
    store,
    YEAR_SYMBOLS.map((symbol) => ({ symbol, spreadModel: SPREAD })),
    { start: START, end },
  );
  const signals = new Map(YEAR_SYMBOLS.map((s) => [s, { signal: new Crossover(), position: 0 }]));
  let fills = 0;
  const onEvents = (events: EngineEvent[]) => {
    for (const event of events) {
      if (event.type === 'order') {
        if (event.event === 'ORDER_FILLED') fills++;
        continue;
      }
      const bar = event.bar as Candle;
      const state = signals.get(bar.symbol) as { signal: Crossover; position: number };
      const target = state.signal.push(bar.priceNumber('close'));
      if (target === 0 || target === state.position) continue;
      engine.submit({
        symbol: bar.symbol,
        side: target > 0 ? 'BUY' : 'SELL',
        quantity: state.position === 0 ? UNITS.one : UNITS.two,
        order_type: 'MARKET',
        time_in_force: 'GTC',
      });
      state.position = target;
      onEvents(engine.drain());
    }
  };
  await drive(engine, reader, onEvents);
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, bars, fills };
}

async function median<T extends { seconds: number }>(warmups: number, runs: number, once: () => Promise<T>) {
  for (let i = 0; i < warmups; i++) await once();
  const results: T[] = [];
  for (let i = 0; i < runs; i++) results.push(await once());
  results.sort((a, b) => a.seconds - b.seconds);
  return results[Math.floor(runs / 2)] as T;
}

export async function run(): Promise<void> {
  const quarter = await btcBars();
  const store = new BarStore(new MemoryObjectStore());
  await store.writeBars('C:BTCUSD', quarter);

  const idle = await median(2, 5, () => runBtc(store, 'idle'));
  console.log(`BENCH engine_idle_strategy_bars_per_second ${Math.round(idle.bars / idle.seconds)} bars/s`);
  const sma = await median(2, 5, () => runBtc(store, 'sma'));
  console.log(`BENCH engine_sma_crossover_131k_seconds ${sma.seconds.toFixed(3)} s`);
  console.log(`BENCH engine_sma_crossover_bars_per_second ${Math.round(sma.bars / sma.seconds)} bars/s`);
  console.log(`BENCH engine_sma_crossover_fills ${sma.fills} fills`);
  const brackets = await median(2, 5, () => runBtc(store, 'brackets'));
  console.log(
    `BENCH engine_brackets_every_100_bars_bars_per_second ${Math.round(brackets.bars / brackets.seconds)} bars/s`,
  );
  console.log(`BENCH engine_brackets_every_100_bars_fills ${brackets.fills} fills`);

  const year = await median(1, 3, async () =>
    runYear(await yearStoreOnce(quarter), quarter.length * 4 * YEAR_SYMBOLS.length),
  );
  console.log(`BENCH engine_year_10_instruments_seconds ${year.seconds.toFixed(2)} s`);
  console.log(`BENCH engine_year_10_instruments_bars ${year.bars} bars`);
  console.log(`BENCH engine_year_10_instruments_fills ${year.fills} fills`);
}

let yearCache: BarStore | undefined;
async function yearStoreOnce(quarter: TradeBarBatch): Promise<BarStore> {
  yearCache ??= await yearStore(quarter);
  return yearCache;
}
