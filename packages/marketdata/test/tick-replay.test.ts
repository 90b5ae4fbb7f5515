import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BidAskBarBatch, QuoteTickBatch } from '@hindsight/core';
import { BarStore, MemoryObjectStore, ReplayReader, TickReplay } from '../src/index.ts';

const MINUTE = 60_000;
const DAY1 = Date.parse('2024-03-04T23:58:00Z');
const f64 = (values: number[]) => Float64Array.from(values);

function bars(times: number[]): BidAskBarBatch {
  const col = () => f64(times.map(() => 100));
  return {
    symbol: 'F:EURUSD',
    priceDecimals: 0,
    volumeDecimals: 0,
    length: times.length,
    time: f64(times),
    bidOpen: col(),
    bidHigh: col(),
    bidLow: col(),
    bidClose: col(),
    askOpen: col(),
    askHigh: col(),
    askLow: col(),
    askClose: col(),
    volume: col(),
  };
}

function ticks(times: number[]): QuoteTickBatch {
  const col = () => f64(times.map(() => 100));
  return {
    symbol: 'F:EURUSD',
    priceDecimals: 0,
    volumeDecimals: 0,
    length: times.length,
    time: f64(times),
    bid: col(),
    ask: col(),
    bidVolume: col(),
    askVolume: col(),
  };
}

describe('tick replay', () => {
  it('hands out the ticks inside each bar, a day of ticks at a time, and none where there are none', async () => {
    const store = new BarStore(new MemoryObjectStore());
    // Bars at 23:58, 23:59 (day 1) and 00:00, 00:01 (day 2); ticks in 23:59 and 00:01 only.
    const barTimes = [0, 1, 2, 3].map((i) => DAY1 + i * MINUTE);
    await store.writeBars('F:EURUSD', bars(barTimes));
    await store.writeTicks(
      'F:EURUSD',
      ticks([DAY1 + MINUTE + 5_000, DAY1 + MINUTE + 59_999, DAY1 + 3 * MINUTE, DAY1 + 3 * MINUTE + 30_000]),
    );
    const replay = new TickReplay(
      new ReplayReader(store, [{ symbol: 'F:EURUSD', spreadModel: { kind: 'zero' } }], {
        start: DAY1,
        end: DAY1 + 4 * MINUTE,
      }),
      store,
      ['F:EURUSD'],
    );
    const seen: [string, number[]][] = [];
    while (await replay.fill()) {
      while (replay.next()) {
        const w = replay.ticks;
        const times = w
          ? Array.from(w.batch.time.subarray(w.from, w.to), (t) => (t - replay.time) / 1000)
          : [];
        seen.push([new Date(replay.time).toISOString().slice(11, 16), times]);
      }
    }
    assert.deepEqual(seen, [
      ['23:58', []],
      ['23:59', [5, 59.999]],
      ['00:00', []],
      ['00:01', [0, 30]],
    ]);
  });
});
