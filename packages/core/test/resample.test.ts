import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type BidAskBarBatch, bucketSpan, resampleBars } from '../src/market/index.ts';

const MINUTE = 60_000;
const at = (iso: string) => Date.parse(iso);

/** Bars at the given minutes after `start`, with bid = 100 + i and ask = bid + 2 (ticks). */
function bars(start: number, minutes: number[]): BidAskBarBatch {
  const n = minutes.length;
  const col = (f: (i: number) => number) => Float64Array.from({ length: n }, (_, i) => f(i));
  return {
    symbol: 'F:TEST',
    priceDecimals: 0,
    volumeDecimals: 0,
    length: n,
    time: col((i) => start + (minutes[i] as number) * MINUTE),
    bidOpen: col((i) => 100 + i),
    bidHigh: col((i) => 110 + i),
    bidLow: col((i) => 90 + i),
    bidClose: col((i) => 101 + i),
    askOpen: col((i) => 102 + i),
    askHigh: col((i) => 112 + i),
    askLow: col((i) => 92 + i),
    askClose: col((i) => 103 + i),
    volume: col(() => 5),
  };
}

describe('resampling base bars', () => {
  it('aggregates each side separately and never invents bars for empty buckets', () => {
    const start = at('2024-01-02T00:00:00Z');
    const out = resampleBars(bars(start, [0, 1, 4, 11, 12]), '5m', 'utc');
    assert.equal(out.length, 2, 'the 00:05 bucket has no base bar and produces none');
    assert.deepEqual([...out.time.slice(0, 2)], [start, start + 10 * MINUTE]);
    assert.deepEqual([out.bidOpen[0], out.bidHigh[0], out.bidLow[0], out.bidClose[0]], [100, 112, 90, 103]);
    assert.deepEqual([out.askOpen[0], out.askHigh[0], out.askLow[0], out.askClose[0]], [102, 114, 92, 105]);
    assert.equal(out.volume[0], 15);
    assert.deepEqual([out.bidOpen[1], out.bidClose[1], out.volume[1]], [103, 105, 10]);
  });

  it('cuts FX days at 17:00 New York, including the 23-hour day of a DST change (a weekend day here)', () => {
    assert.deepEqual(bucketSpan('1d', 'fx', at('2024-03-10T12:00:00Z')), [
      at('2024-03-09T22:00:00Z'),
      at('2024-03-10T21:00:00Z'),
    ]);
    const start = at('2024-03-10T20:58:00Z');
    const out = resampleBars(bars(start, [0, 1, 2, 3]), '1d', 'fx');
    assert.equal(out.length, 2);
    assert.deepEqual([...out.time.slice(0, 2)], [at('2024-03-09T22:00:00Z'), at('2024-03-10T21:00:00Z')]);
  });

  it('uses UTC days for crypto and Monday weeks', () => {
    const out = resampleBars(bars(at('2024-01-07T23:59:00Z'), [0, 1]), '1w', 'utc');
    assert.deepEqual(
      [...out.time.slice(0, out.length)],
      [at('2024-01-01T00:00:00Z'), at('2024-01-08T00:00:00Z')],
    );
  });
});
