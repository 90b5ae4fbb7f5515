import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type EngineEvent, SimulationEngine } from '@hindsight/engine';
import { BarStore, MemoryObjectStore, ReplayReader } from '@hindsight/marketdata';
import { importFiles } from '@hindsight/marketdata/import';

/**
 * The engine with an in-process strategy over the 131,040 BTCUSDT 1m sample bars (Jan-Mar 2024):
 * a strategy that only acks (engine + replay throughput), and an SMA(10)/SMA(30) crossover on 1m
 * closes that trades on every cross with commission and slippage.
 */
const SAMPLE = fileURLToPath(new URL('../data/sample/crypto/', import.meta.url));
const MONTHS = ['2024-01', '2024-02', '2024-03'];
const WINDOW = { start: Date.parse('2024-01-01T00:00:00Z'), end: Date.parse('2024-04-01T00:00:00Z') };

async function sampleStore(): Promise<BarStore> {
  const store = new BarStore(new MemoryObjectStore());
  const files = MONTHS.map((m) => join(SAMPLE, `binance_spot_BTCUSDT_1m_${m}.csv.zst`));
  const imported = await importFiles('binance', files, { symbol: 'C:BTCUSD' });
  await store.writeBars('C:BTCUSD', imported.bars);
  return store;
}

async function run1(
  store: BarStore,
  strategy: 'idle' | 'sma',
): Promise<{ seconds: number; bars: number; fills: number }> {
  const started = process.hrtime.bigint();
  const engine = new SimulationEngine(
    {
      instruments: [
        { symbol: 'C:BTCUSD', market: 'CRYPTO', underlying: 'BTC', denomination: 'USD', calendar: 'utc' },
      ],
      subscriptions: [{ instrument: 'C:BTCUSD', timeframes: ['1m'], updates: ['order_update'] }],
      startTime: WINDOW.start,
      endTime: WINDOW.end,
      positionMode: 'netting',
      initialCapital: '100000',
      commission: { model: 'bps_of_notional', fee_rate_bps: '1' },
      slippage: { base_slippage_bps: '0.5', size_impact_bps_per_100k: '0.1', max_slippage_bps: '5' },
    },
    ['C:BTCUSD'],
  );
  const reader = new ReplayReader(
    store,
    [{ symbol: 'C:BTCUSD', spreadModel: { kind: 'half_spread_bps', value: '0.5' } }],
    WINDOW,
  );
  const window = new Float64Array(30);
  let seen = 0;
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
      window[seen % 30] = Number((event.bar as { close: string }).close);
      seen++;
      if (seen < 30) continue;
      let slow = 0;
      let fast = 0;
      for (let k = 0; k < 30; k++) {
        const v = window[(seen - 1 - k) % 30] as number;
        slow += v;
        if (k < 10) fast += v;
      }
      const target = fast / 10 > slow / 30 ? 1 : -1;
      if (target === position) continue;
      engine.submitOrder({
        symbol: 'C:BTCUSD',
        side: target > 0 ? 'BUY' : 'SELL',
        quantity: position === 0 ? '0.5' : '1',
        order_type: 'MARKET',
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
  engine.results();
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, bars, fills };
}

export async function run(): Promise<void> {
  const store = await sampleStore();
  await run1(store, 'idle'); // warm-up
  const idle = await run1(store, 'idle');
  console.log(`BENCH engine_idle_strategy_bars_per_second ${Math.round(idle.bars / idle.seconds)} bars/s`);
  await run1(store, 'sma');
  const sma = await run1(store, 'sma');
  console.log(`BENCH engine_sma_crossover_131k_seconds ${sma.seconds.toFixed(3)} s`);
  console.log(`BENCH engine_sma_crossover_bars_per_second ${Math.round(sma.bars / sma.seconds)} bars/s`);
  console.log(`BENCH engine_sma_crossover_fills ${sma.fills} fills`);
}
