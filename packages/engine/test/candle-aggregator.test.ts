import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BID_ASK_PRICE_COLUMNS, type BidAskBarBatch } from '@hindsight/core';
import fc from 'fast-check';
import { type Candle, CandleAggregator } from '../src/candles/candle-aggregator.ts';

const MINUTE = 60_000;
const T0 = Date.parse('2024-01-02T00:00:00Z');

/** Bars at the given minutes after T0; bid = 100 + i (cents), ask = bid + 1 cent, volume 2. */
function batch(minutes: number[]): BidAskBarBatch {
  const n = minutes.length;
  const col = (f: (i: number) => number) => Float64Array.from({ length: n }, (_, i) => f(i));
  return {
    symbol: 'C:BTCUSD',
    priceDecimals: 2,
    volumeDecimals: 0,
    length: n,
    time: col((i) => T0 + (minutes[i] as number) * MINUTE),
    bidOpen: col((i) => 10000 + i),
    bidHigh: col((i) => 10010 + i),
    bidLow: col((i) => 9990 + i),
    bidClose: col((i) => 10005 + i),
    askOpen: col((i) => 10001 + i),
    askHigh: col((i) => 10011 + i),
    askLow: col((i) => 9991 + i),
    askClose: col((i) => 10006 + i),
    volume: col(() => 2),
  };
}

describe('candle aggregation during replay', () => {
  it('closes a candle when simulated time reaches its end, with mid prices kept exact', () => {
    const bars = batch([0, 1, 2, 3, 4, 5]);
    const agg = new CandleAggregator('C:BTCUSD', '5m', 'utc');
    const emitted: Candle[] = [];
    for (let i = 0; i < bars.length; i++) {
      const early = agg.add(bars, i);
      if (early) emitted.push(early);
      const closed = agg.closeBy((bars.time[i] as number) + MINUTE);
      if (closed) emitted.push(closed);
    }
    assert.equal(emitted.length, 1, 'the 00:05 bucket is still open');
    assert.equal(emitted[0]?.start, T0);
    assert.equal(emitted[0]?.end, T0 + 5 * MINUTE);
    assert.deepEqual(JSON.parse(JSON.stringify(emitted[0])), {
      symbol: 'C:BTCUSD',
      provider: 'simulation',
      timeframe: '5m',
      timestamp: '2024-01-02T00:00:00.000Z',
      open: '100.005',
      high: '100.145',
      low: '99.905',
      close: '100.095',
      volume: '10',
    });
  });

  it('closes a bucket whose last minutes have no bars once time passes its end, and invents none', () => {
    const bars = batch([0, 1, 12]);
    const agg = new CandleAggregator('C:BTCUSD', '5m', 'utc');
    assert.equal(agg.add(bars, 0), undefined);
    assert.equal(agg.add(bars, 1), undefined);
    assert.equal(agg.closeBy(T0 + 2 * MINUTE), undefined);
    const closed = agg.closeBy(T0 + 5 * MINUTE);
    assert.equal(closed?.volume, '4');
    assert.equal(agg.add(bars, 2), undefined, 'nothing for the empty 00:05 bucket');
    assert.equal(agg.pendingEnd, T0 + 15 * MINUTE);
  });

  it('gives each price as a number equal to parsing its decimal string', () => {
    const bars = batch([0]);
    const agg = new CandleAggregator('C:BTCUSD', '1m', 'utc');
    agg.add(bars, 0);
    const candle = agg.closeBy(T0 + MINUTE) as Candle;
    const fields = ['open', 'high', 'low', 'close'] as const;
    assert.deepEqual(
      fields.map((field) => candle.priceNumber(field)),
      [100.005, 100.105, 99.905, 100.055],
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.integer({ min: -(2 ** 49), max: 2 ** 49 }), fc.maxSafeInteger()),
        fc.integer({ min: 0, max: 24 }),
        (bid, decimals) => {
          const one = { ...bars, priceDecimals: decimals };
          for (const column of ['bidOpen', 'bidHigh', 'bidLow', 'bidClose'] as const)
            one[column] = Float64Array.of(bid);
          for (const column of ['askOpen', 'askHigh', 'askLow', 'askClose'] as const)
            one[column] = Float64Array.of(bid + 1);
          const each = new CandleAggregator('C:BTCUSD', '1m', 'utc');
          each.add(one, 0);
          const c = each.closeBy(T0 + MINUTE) as Candle;
          assert.ok(Object.is(c.priceNumber('close'), Number(c.close)), `${c.close} at ${decimals}`);
          assert.ok(Object.is(c.priceNumber('open'), Number(c.open)));
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
    );
  });

  it('writes its JSON text exactly as JSON.stringify does, for any symbol, scale and price', () => {
    const bars = batch([0, 1]);
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 }),
        fc.constantFrom('1m', '5m', '1h', '1d'),
        fc.array(fc.oneof(fc.integer(), fc.integer({ min: -(2 ** 49), max: 2 ** 49 })), {
          minLength: 8,
          maxLength: 8,
        }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer({ min: 0, max: 2 ** 40 }),
        (symbol, timeframe, prices, priceDecimals, volumeDecimals, volume) => {
          const one = { ...bars, priceDecimals, volumeDecimals, volume: Float64Array.of(volume, 1) };
          BID_ASK_PRICE_COLUMNS.forEach((column, i) => {
            one[column] = Float64Array.of(prices[i] as number, 7);
          });
          const aggregator = new CandleAggregator(symbol, timeframe, 'utc');
          aggregator.add(one, 0);
          aggregator.add(one, 1);
          const candle = aggregator.closeBy(T0 + 2 * MINUTE) ?? aggregator.closeBy(T0 + 86_400_000);
          assert.ok(candle);
          assert.equal(candle.jsonText(), JSON.stringify(candle));
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
    );
  });
});
