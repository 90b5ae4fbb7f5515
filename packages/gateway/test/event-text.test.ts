import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Dec } from '@hindsight/core';
import { type EngineEvent, SimulationEngine } from '@hindsight/engine';
import { BarStore, MemoryObjectStore, ReplayReader } from '@hindsight/marketdata';
import { importFiles } from '@hindsight/marketdata/import';
import type { ProviderEvent } from '../src/provider/provider.ts';
import { eventText } from '../src/stream/event-text.ts';

const SAMPLE = fileURLToPath(new URL('../../../data/sample/crypto/', import.meta.url));
const WINDOW = { start: Date.parse('2024-01-01T00:00:00Z'), end: Date.parse('2024-01-03T00:00:00Z') };

/** Two days of the real BTCUSDT sample through the engine: 1m and 1h candles, and an order every 90 bars. */
async function engineEvents(): Promise<EngineEvent[]> {
  const store = new BarStore(new MemoryObjectStore());
  const imported = await importFiles('binance', [join(SAMPLE, 'binance_spot_BTCUSDT_1m_2024-01.csv.zst')], {
    symbol: 'C:BTCUSD',
  });
  await store.writeBars('C:BTCUSD', imported.bars);
  const engine = new SimulationEngine(
    {
      instruments: [
        { symbol: 'C:BTCUSD', market: 'CRYPTO', underlying: 'BTC', denomination: 'USD', calendar: 'utc' },
      ],
      subscriptions: [
        {
          instrument: 'C:BTCUSD',
          timeframes: ['1m', '1h'],
          updates: ['order_update', 'trade_update', 'position_update', 'account_update'],
        },
      ],
      startTime: WINDOW.start,
      endTime: WINDOW.end,
      positionMode: 'netting',
      initialCapital: '100000',
      engineVersion: 'test',
    },
    ['C:BTCUSD'],
  );
  const reader = new ReplayReader(
    store,
    [{ symbol: 'C:BTCUSD', spreadModel: { kind: 'half_spread_bps', value: '0.5' } }],
    WINDOW,
  );
  const events: EngineEvent[] = [];
  let bars = 0;
  for (;;) {
    const step = engine.advance(reader);
    if (step.kind === 'events') {
      events.push(...step.events);
      if (++bars % 90 === 0) {
        engine.submit({
          symbol: 'C:BTCUSD',
          side: bars % 180 ? 'BUY' : 'SELL',
          quantity: new Dec('0.01'),
          order_type: 'MARKET',
          time_in_force: 'GTC',
        });
        events.push(...engine.drain());
      }
      continue;
    }
    if (!(await reader.fill())) break;
  }
  return events;
}

describe('event texts', () => {
  it('writes every engine event exactly as JSON.stringify does, candles included', async () => {
    const events = await engineEvents();
    const types = new Set(events.map((e) => e.type));
    assert.deepEqual([...types].sort(), ['account', 'candle', 'order', 'position', 'trade']);
    let seq = 0;
    for (const event of events) {
      const stamped = event as unknown as ProviderEvent;
      stamped.seq = ++seq;
      assert.equal(eventText(stamped), JSON.stringify(stamped));
    }
    assert.ok(events.filter((e) => e.type === 'candle').length > 2 * 1440, 'every 1m and 1h candle');
  });

  it('falls back to JSON.stringify for a candle event of another shape', async () => {
    const candle = (await engineEvents()).find((e) => e.type === 'candle') as unknown as ProviderEvent;
    const shapes: ProviderEvent[] = [
      { ...candle, seq: 7, extra: 'kept' },
      { ...candle, timestamp: 'not "an" ISO time', seq: 8 },
      { type: 'candle', bar: { ...(candle.bar as object) }, timestamp: candle.timestamp, seq: 9 },
    ];
    for (const event of shapes) assert.equal(eventText(event), JSON.stringify(event));
  });
});
