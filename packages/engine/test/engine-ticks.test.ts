import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type BidAskBarBatch, Dec, type QuoteTickBatch, toDecimalString } from '@hindsight/core';
import { BarStore, MemoryObjectStore, ReplayReader, TickReplay } from '@hindsight/marketdata';
import { type EngineEvent, SimulationEngine } from '../src/index.ts';
import { InstrumentMatcher } from '../src/matching/instrument-matcher.ts';
import { order } from './support/commands.ts';

const T0 = Date.parse('2024-03-04T10:00:00Z');
const MINUTE = 60_000;
const f64 = (values: number[]) => Float64Array.from(values);

/** Ticks in cents (2 decimals): [ms after `start`, bid]; ask = bid + 2 cents. */
function ticksOf(start: number, rows: [number, number][]): QuoteTickBatch {
  return {
    symbol: 'F:EURUSD',
    priceDecimals: 2,
    volumeDecimals: 0,
    length: rows.length,
    time: f64(rows.map(([ms]) => start + ms)),
    bid: f64(rows.map(([, bid]) => bid)),
    ask: f64(rows.map(([, bid]) => bid + 2)),
    bidVolume: f64(rows.map(() => 1)),
    askVolume: f64(rows.map(() => 1)),
  };
}

const price = (p: Dec | undefined) => (p ? toDecimalString(p) : undefined);

describe('matching on ticks', () => {
  it('fills at the first tick that satisfies an order, at that tick, whatever a bar path would assume', () => {
    const m = new InstrumentMatcher('F:EURUSD');
    m.add({ id: 'take', direction: 'SELL', kind: 'LIMIT', limit: new Dec('102') });
    m.add({ id: 'stop', direction: 'SELL', kind: 'STOP', stop: new Dec('92') });
    // Bid 100 -> 102.50 -> 91 -> 95: the take-profit is reached first, at 102.50.
    const batch = ticksOf(T0, [
      [1_000, 10000],
      [20_000, 10250],
      [40_000, 9100],
      [59_000, 9500],
    ]);
    const { fills } = m.onTicks({ batch, from: 0, to: batch.length });
    assert.deepEqual(
      fills.map((f) => [f.orderId, price(f.price), f.segment, f.time]),
      [
        ['take', '102.5', 1, T0 + 20_000],
        ['stop', '91', 2, T0 + 40_000],
      ],
    );
  });

  it('triggers a stop-limit on one tick and fills its limit on a later one; trails the best tick', () => {
    const m = new InstrumentMatcher('F:EURUSD');
    m.add({ id: 'sl', direction: 'BUY', kind: 'STOP_LIMIT', stop: new Dec('101'), limit: new Dec('100.5') });
    m.add({
      id: 'trail',
      direction: 'SELL',
      kind: 'TRAILING_STOP',
      trailing: { type: 'ABSOLUTE', distance: new Dec('1'), best: new Dec('100') },
    });
    // Asks 100.02 -> 101.02 (trigger) -> 100.42 (fills the limit); bids 100 -> 101 (best) -> 100.40.
    const batch = ticksOf(T0, [
      [0, 10000],
      [10_000, 10100],
      [20_000, 10040],
    ]);
    const { fills } = m.onTicks({ batch, from: 0, to: batch.length });
    assert.deepEqual(
      fills.map((f) => [f.orderId, price(f.price), f.segment]),
      [
        ['sl', '100.42', 2],
        // Best bid 101, stop 100; 100.40 is above it: not filled.
      ],
    );
    assert.equal(price(m.get('trail')?.trailing?.best), '101');
  });
});

/** One bid/ask 1m bar per minute (cents, ask = bid + 2). */
function barsOf(rows: [number, number, number, number][]): BidAskBarBatch {
  const col = (k: number, add: number) => f64(rows.map((r) => (r[k] as number) + add));
  return {
    symbol: 'F:EURUSD',
    priceDecimals: 2,
    volumeDecimals: 0,
    length: rows.length,
    time: f64(rows.map((_, i) => T0 + i * MINUTE)),
    bidOpen: col(0, 0),
    bidHigh: col(1, 0),
    bidLow: col(2, 0),
    bidClose: col(3, 0),
    askOpen: col(0, 2),
    askHigh: col(1, 2),
    askLow: col(2, 2),
    askClose: col(3, 2),
    volume: f64(rows.map(() => 4)),
  };
}

async function bracketRun(withTicks: boolean): Promise<{ exits: [string, string][]; events: EngineEvent[] }> {
  const store = new BarStore(new MemoryObjectStore());
  await store.writeBars(
    'F:EURUSD',
    barsOf([
      [10000, 10000, 10000, 10000],
      [10000, 10250, 9100, 9500],
      [9500, 9500, 9500, 9500],
    ]),
  );
  if (withTicks) {
    await store.writeTicks(
      'F:EURUSD',
      ticksOf(T0 + MINUTE, [
        [1_000, 10000],
        [20_000, 10250],
        [40_000, 9100],
        [59_000, 9500],
      ]),
    );
  }
  const window = { start: T0, end: T0 + 3 * MINUTE };
  const bars = new ReplayReader(store, [{ symbol: 'F:EURUSD', spreadModel: { kind: 'zero' } }], window);
  const cursor = withTicks ? new TickReplay(bars, store, ['F:EURUSD']) : bars;
  const engine = new SimulationEngine(
    {
      instruments: [
        { symbol: 'F:EURUSD', market: 'FOREX', underlying: 'EUR', denomination: 'USD', calendar: 'fx' },
      ],
      subscriptions: [
        { instrument: 'F:EURUSD', timeframes: ['1m'], updates: ['order_update', 'trade_update'] },
      ],
      startTime: window.start,
      endTime: window.end,
      positionMode: 'netting',
      initialCapital: '100000',
      assertIdentity: true,
    },
    ['F:EURUSD'],
  );
  const events: EngineEvent[] = [];
  let entered = false;
  for (;;) {
    const step = engine.advance(cursor);
    if (step.kind === 'need-data') {
      if (!(await cursor.fill())) break;
      continue;
    }
    events.push(...step.events);
    if (!entered) {
      entered = true;
      const r = engine.submit(
        order({
          symbol: 'F:EURUSD',
          side: 'BUY',
          quantity: '10',
          order_type: 'MARKET',
          stop_loss: '92',
          take_profit: '102',
        }),
      );
      assert.ok(r.ok && !r.rejected);
      events.push(...engine.drain());
    }
  }
  events.push(...engine.endOfData());
  const exits = engine
    .trades()
    .filter((t) => t.side === 'SELL')
    .map((t) => [t.price, t.timestamp] as [string, string]);
  return { exits, events };
}

describe('engine on ticks (TickReplay)', () => {
  it('a bracket on a bar that touches both legs: the stop on the bar path, the true first leg on ticks', async () => {
    // The bar alone: both legs touchable, the stop assumed first, filled at its price at the bar close.
    assert.deepEqual((await bracketRun(false)).exits, [['92', '2024-03-04T10:02:00.000Z']]);
    // Its ticks: the bid reaches 102.50 at 10:01:20, before the fall: the take-profit fills there.
    const { exits, events } = await bracketRun(true);
    assert.deepEqual(exits, [['102.5', '2024-03-04T10:01:20.000Z']]);
    const cancelled = events.find((e) => e.type === 'order' && e.event === 'ORDER_CANCELLED');
    assert.ok(cancelled, 'the stop leg is cancelled');
    assert.equal((cancelled.order as { stop_price: string }).stop_price, '92');
  });
});
