import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Dec, toDecimalString } from '@hindsight/core';
import { BarStore, MemoryObjectStore, ReplayReader } from '@hindsight/marketdata';
import { importFiles } from '@hindsight/marketdata/import';
import { type EngineEvent, encodeResultFiles, SimulationEngine } from '../src/index.ts';
import { order } from './support/commands.ts';

const SAMPLE = fileURLToPath(new URL('../../../data/sample/crypto/', import.meta.url));
const WINDOW = { start: Date.parse('2024-01-01T00:00:00Z'), end: Date.parse('2024-02-01T00:00:00Z') };

async function btcStore(): Promise<BarStore> {
  const store = new BarStore(new MemoryObjectStore());
  const imported = await importFiles('binance', [join(SAMPLE, 'binance_spot_BTCUSDT_1m_2024-01.csv.zst')], {
    symbol: 'C:BTCUSD',
  });
  await store.writeBars('C:BTCUSD', imported.bars);
  return store;
}

/** An in-process SMA(10)/SMA(30) crossover on 1m closes: long on a golden cross, short on a death cross. */
async function runSma(store: BarStore) {
  const engine = new SimulationEngine(
    {
      instruments: [
        { symbol: 'C:BTCUSD', market: 'CRYPTO', underlying: 'BTC', denomination: 'USD', calendar: 'utc' },
      ],
      subscriptions: [
        { instrument: 'C:BTCUSD', timeframes: ['1m'], updates: ['order_update', 'trade_update'] },
      ],
      startTime: WINDOW.start,
      endTime: WINDOW.end,
      positionMode: 'netting',
      initialCapital: '100000',
      commission: { model: 'bps_of_notional', fee_rate_bps: '1' },
      slippage: { base_slippage_bps: '0.5', size_impact_bps_per_100k: '0.1', max_slippage_bps: '5' },
      assertIdentity: true,
    },
    ['C:BTCUSD'],
  );
  const reader = new ReplayReader(
    store,
    [{ symbol: 'C:BTCUSD', spreadModel: { kind: 'half_spread_bps', value: '0.5' } }],
    WINDOW,
  );
  const closes: number[] = [];
  let position = 0;
  let candles = 0;
  let fills = 0;
  const sma = (n: number) => closes.slice(-n).reduce((a, b) => a + b, 0) / n;
  const onEvents = (events: EngineEvent[]) => {
    for (const event of events) {
      if (event.type === 'order' && event.event === 'ORDER_FILLED') fills++;
      if (event.type !== 'candle') continue;
      candles++;
      closes.push(Number((event.bar as { close: string }).close));
      if (closes.length < 31) continue;
      const [fast, slow] = [sma(10), sma(30)];
      closes.shift();
      const target = fast > slow ? 1 : -1;
      if (target === position) continue;
      const quantity = position === 0 ? '0.5' : '1';
      const result = engine.submit(
        order({
          symbol: 'C:BTCUSD',
          side: target > 0 ? 'BUY' : 'SELL',
          quantity,
          order_type: 'MARKET',
        }),
      );
      assert.ok(result.ok && !result.rejected, JSON.stringify(result));
      position = target;
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
  return { engine, files: engine.results(), candles, fills };
}

describe('simulation engine on the real BTCUSDT sample', () => {
  it('runs an SMA crossover with exact books, every candle, and byte-identical results', async () => {
    const store = await btcStore();
    const first = await runSma(store);
    assert.equal(first.candles, 44_640, 'one 1m candle per base bar');
    assert.ok(first.fills > 100, `the crossover traded (${first.fills} fills)`);
    const { metrics, trades } = first.files;
    assert.equal(typeof metrics.totalTrades, 'number');
    assert.ok((metrics.totalTrades as number) > 50);
    // initial capital + realized P&L - commissions (+ funding, none here) = final balance, exactly.
    const account = first.engine.accountView();
    assert.equal(
      first.engine.positions().length,
      1,
      'the strategy is always in the market after the first cross',
    );
    assert.ok(trades.trades.every((t, i, all) => i === 0 || (all[i - 1] as { id: string }).id < t.id));
    // The balance is initial capital + realized P&L - commissions (no funding configured), exactly.
    const realized = trades.trades.reduce((sum, t) => sum.plus(t.realized_pnl ?? 0), new Dec(0));
    const commissions = new Dec(metrics.totalCommission as string);
    assert.equal(account.balance, toDecimalString(new Dec('100000').plus(realized).minus(commissions)));

    const second = await runSma(store);
    const a = encodeResultFiles(first.files);
    const b = encodeResultFiles(second.files);
    assert.deepEqual(Buffer.from(a.trades), Buffer.from(b.trades));
    assert.deepEqual(Buffer.from(a.timeseries), Buffer.from(b.timeseries));
    assert.deepEqual(Buffer.from(a.metadata), Buffer.from(b.metadata));
  });
});
