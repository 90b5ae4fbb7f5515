import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { BidAskBarBatch, QuoteTickBatch, TradeBarBatch } from '@hindsight/core';
import fc from 'fast-check';
import { bundledBidAskBars, bundledTradeBars } from '../src/import/index.ts';
import {
  BAR_CHUNK_HEADER_BYTES,
  ChunkFormatError,
  decodeBarChunk,
  decodeTickChunk,
  encodeBarChunk,
  encodeTickChunk,
  readBarChunkHeader,
  readSignedVarints,
  readTickChunkHeader,
  writeSignedVarint,
} from '../src/index.ts';
import { ensureZstd } from '../src/zstd.ts';

const MAX = Number.MAX_SAFE_INTEGER;

function assertBatchEqual(actual: object, expected: object): void {
  const a = actual as Record<string, unknown>;
  const e = expected as Record<string, unknown>;
  assert.deepEqual(Object.keys(a).sort(), Object.keys(e).sort());
  for (const key of Object.keys(e)) {
    const value = e[key];
    if (value instanceof Float64Array) {
      const length = e.length as number;
      assert.deepEqual(
        Array.from((a[key] as Float64Array).subarray(0, length)),
        Array.from(value.subarray(0, length)),
        key,
      );
    } else {
      assert.equal(a[key], value, key);
    }
  }
}

const safeInt = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }),
  fc.maxSafeInteger(),
  fc.constantFrom(MAX, -MAX, 0, 2 ** 31, -(2 ** 31), 2 ** 32 + 1, 2 ** 52 + 1, -(2 ** 53 - 2)),
);

/** Sorted unique bar times with random gaps (including huge ones) and negative times. */
const barTimes = fc
  .array(fc.oneof(fc.constant(60_000), fc.integer({ min: 1, max: 10 ** 9 }), fc.constant(2 ** 50)), {
    maxLength: 60,
  })
  .chain((steps) =>
    fc.integer({ min: -(2 ** 40), max: 2 ** 40 }).map((start) => {
      const times: number[] = [];
      let t = start;
      for (const step of steps) {
        if (t + step > MAX) break;
        times.push(t);
        t += step;
      }
      return times;
    }),
  );

function column(values: number[]): Float64Array {
  return Float64Array.from(values);
}

const bidAskBatch = barTimes.chain((times) => {
  const n = times.length;
  const col = fc.array(safeInt, { minLength: n, maxLength: n });
  return fc
    .record({
      prices: fc.array(col, { minLength: 8, maxLength: 8 }),
      volume: fc.array(fc.oneof(fc.constant(0), safeInt), { minLength: n, maxLength: n }),
      priceDecimals: fc.integer({ min: 0, max: 12 }),
      volumeDecimals: fc.integer({ min: 0, max: 12 }),
    })
    .map(
      ({ prices, volume, priceDecimals, volumeDecimals }): BidAskBarBatch => ({
        symbol: 'T:RANDOM',
        priceDecimals,
        volumeDecimals,
        length: n,
        time: column(times),
        bidOpen: column(prices[0] as number[]),
        bidHigh: column(prices[1] as number[]),
        bidLow: column(prices[2] as number[]),
        bidClose: column(prices[3] as number[]),
        askOpen: column(prices[4] as number[]),
        askHigh: column(prices[5] as number[]),
        askLow: column(prices[6] as number[]),
        askClose: column(prices[7] as number[]),
        volume: column(volume),
      }),
    );
});

/** Realistic random walk: small moves (negative deltas included), wicks, zero volume. */
const walkBatch = fc
  .record({
    n: fc.integer({ min: 0, max: 500 }),
    seed: fc.integer({ min: 1, max: 2 ** 30 }),
    start: fc.integer({ min: 1e12, max: 2e12 }),
  })
  .map(({ n, seed, start }): TradeBarBatch => {
    let s = seed;
    const rand = () => {
      s = (s * 48271) % 2147483647;
      return s / 2147483647;
    };
    const b: TradeBarBatch = {
      symbol: 'T:WALK',
      priceDecimals: 2,
      volumeDecimals: 5,
      length: n,
      time: new Float64Array(n),
      open: new Float64Array(n),
      high: new Float64Array(n),
      low: new Float64Array(n),
      close: new Float64Array(n),
      volume: new Float64Array(n),
    };
    let t = Math.floor(start / 60_000) * 60_000;
    let price = 4_000_000;
    for (let i = 0; i < n; i++) {
      t += rand() < 0.1 ? 60_000 * Math.floor(1 + rand() * 3000) : 60_000;
      const open = price + Math.round((rand() - 0.5) * 10);
      const close = open + Math.round((rand() - 0.5) * 2000);
      b.time[i] = t;
      b.open[i] = open;
      b.close[i] = close;
      b.high[i] = Math.max(open, close) + Math.round(rand() * 300);
      b.low[i] = Math.min(open, close) - Math.round(rand() * 300);
      b.volume[i] = rand() < 0.2 ? 0 : Math.round(rand() * 1e9);
      price = close;
    }
    return b;
  });

before(async () => {
  await ensureZstd();
});

describe('signed varints', () => {
  test('round-trip every edge value exactly, beyond 32 bits up to ±(2^53 - 1)', () => {
    const values = [
      0,
      -1,
      1,
      63,
      -64,
      64,
      -65,
      2 ** 31 - 1,
      -(2 ** 31),
      2 ** 31,
      2 ** 32,
      2 ** 52,
      MAX,
      -MAX,
      MAX - 1,
    ];
    for (let p = 0; p < 53; p++) values.push(2 ** p, -(2 ** p), 2 ** p - 1, 1 - 2 ** p);
    const buffer = new Uint8Array(values.length * 8);
    let pos = 0;
    for (const v of values) pos = writeSignedVarint(buffer, pos, v);
    const out = new Float64Array(values.length);
    assert.equal(readSignedVarints(buffer.subarray(0, pos), 0, out, values.length), pos);
    assert.deepEqual(Array.from(out), values);
  });

  test('small values take one byte, and the bytes match zigzag varints', () => {
    const buffer = new Uint8Array(16);
    assert.equal(writeSignedVarint(buffer, 0, 0), 1);
    assert.equal(buffer[0], 0);
    writeSignedVarint(buffer, 0, -1);
    assert.equal(buffer[0], 1);
    writeSignedVarint(buffer, 0, 1);
    assert.equal(buffer[0], 2);
    assert.equal(writeSignedVarint(buffer, 0, 64), 2);
    assert.deepEqual(Array.from(buffer.subarray(0, 2)), [0x80, 0x01]);
    assert.equal(writeSignedVarint(buffer, 0, MAX), 8);
  });

  test('random safe integers round-trip', () => {
    fc.assert(
      fc.property(fc.array(fc.maxSafeInteger()), (values) => {
        const buffer = new Uint8Array(values.length * 8);
        let pos = 0;
        for (const v of values) pos = writeSignedVarint(buffer, pos, v);
        const out = new Float64Array(values.length);
        readSignedVarints(buffer.subarray(0, pos), 0, out, values.length);
        assert.deepEqual(Array.from(out), values);
      }),
    );
  });
});

describe('HSB1 bar chunks', () => {
  test('random bid/ask batches round-trip exactly (max safe ints, negative deltas, gaps, zero volume)', () => {
    fc.assert(
      fc.property(bidAskBatch, (batch) => {
        const bytes = encodeBarChunk(batch, 1);
        assertBatchEqual(decodeBarChunk(bytes, batch.symbol), batch);
        assert.deepEqual(encodeBarChunk(batch, 1), bytes, 'deterministic');
      }),
      { numRuns: 200 },
    );
  });

  test('random-walk trade batches round-trip exactly', () => {
    fc.assert(
      fc.property(walkBatch, (batch) => {
        assertBatchEqual(decodeBarChunk(encodeBarChunk(batch, 3), batch.symbol), batch);
      }),
      { numRuns: 100 },
    );
  });

  test('extreme columns fall back to raw values and still round-trip', () => {
    const n = 4;
    const batch: TradeBarBatch = {
      symbol: 'T:EXTREME',
      priceDecimals: 30,
      volumeDecimals: 0,
      length: n,
      time: column([-MAX, 0, 1, MAX]),
      open: column([MAX, -MAX, MAX, -MAX]),
      high: column([MAX, MAX, MAX, MAX]),
      low: column([-MAX, -MAX, -MAX, -MAX]),
      close: column([-MAX, MAX, -MAX, MAX]),
      volume: column([0, MAX, 0, MAX]),
    };
    const bytes = encodeBarChunk(batch);
    assert.deepEqual(readBarChunkHeader(bytes), {
      kind: 'trade',
      priceDecimals: 30,
      volumeDecimals: 0,
      count: 4,
      payloadBytes: readBarChunkHeader(bytes).payloadBytes,
    });
    assertBatchEqual(decodeBarChunk(bytes, batch.symbol), batch);
  });

  test('an empty batch round-trips', () => {
    const empty: TradeBarBatch = {
      symbol: 'T:EMPTY',
      priceDecimals: 2,
      volumeDecimals: 3,
      length: 0,
      time: new Float64Array(0),
      open: new Float64Array(0),
      high: new Float64Array(0),
      low: new Float64Array(0),
      close: new Float64Array(0),
      volume: new Float64Array(0),
    };
    assertBatchEqual(decodeBarChunk(encodeBarChunk(empty), 'T:EMPTY'), empty);
  });

  test('rejects values that are not safe integers', () => {
    const batch: TradeBarBatch = {
      symbol: 'T:BAD',
      priceDecimals: 2,
      volumeDecimals: 0,
      length: 1,
      time: column([0]),
      open: column([1.5]),
      high: column([2]),
      low: column([1]),
      close: column([1]),
      volume: column([0]),
    };
    assert.throws(() => encodeBarChunk(batch), RangeError);
    batch.open[0] = MAX + 1;
    assert.throws(() => encodeBarChunk(batch), RangeError);
  });

  test('decoding into a dirty scratch buffer gives the same bars (all-zero columns included)', async () => {
    const eur = await bundledBidAskBars('F:EURUSD'); // volume all 0: stored as an empty column
    const bytes = encodeBarChunk(eur);
    const scratch = new Float64Array(10 * eur.length + 7).fill(-123.5);
    const decoded = decodeBarChunk(bytes, eur.symbol, scratch);
    assert.equal(decoded.time.buffer, scratch.buffer);
    assertBatchEqual(decoded, eur);
    const small = new Float64Array(5);
    assert.notEqual(decodeBarChunk(bytes, eur.symbol, small).time.buffer, small.buffer);
  });

  test('rejects foreign, truncated and corrupted chunks', async () => {
    const bars = await bundledBidAskBars('F:EURUSD');
    const bytes = encodeBarChunk(bars);
    assert.throws(() => decodeBarChunk(bytes.subarray(0, 10), 'x'), ChunkFormatError);
    const foreign = bytes.slice();
    foreign[0] = 0x50;
    assert.throws(() => decodeBarChunk(foreign, 'x'), ChunkFormatError);
    const wrongCount = bytes.slice();
    new DataView(wrongCount.buffer).setUint32(8, bars.length + 1, true);
    assert.throws(() => decodeBarChunk(wrongCount, 'x'));
    assert.throws(() => decodeBarChunk(bytes.subarray(0, BAR_CHUNK_HEADER_BYTES + 100), 'x'));
  });

  test('the real sample data round-trips (BTCUSDT trade bars, EURUSD bid/ask bars)', async () => {
    const btc = await bundledTradeBars('C:BTCUSD');
    assertBatchEqual(decodeBarChunk(encodeBarChunk(btc), btc.symbol), btc);
    const eur = await bundledBidAskBars('F:EURUSD');
    const bytes = encodeBarChunk(eur);
    assertBatchEqual(decodeBarChunk(bytes, eur.symbol), eur);
    assert.ok(bytes.length / eur.length < 16, `${bytes.length / eur.length} bytes per bid/ask bar`);
  });
});

describe('HST1 tick chunks', () => {
  test('random quote ticks round-trip, equal timestamps kept in order', () => {
    const tickBatch = fc
      .array(fc.tuple(fc.integer({ min: 0, max: 3 }), safeInt, safeInt, safeInt, fc.nat()), { maxLength: 80 })
      .map((rows): QuoteTickBatch => {
        let t = 1_700_000_000_000;
        const times = rows.map(([step]) => {
          t += step;
          return t;
        });
        return {
          symbol: 'T:TICKS',
          priceDecimals: 5,
          volumeDecimals: 2,
          length: rows.length,
          time: column(times),
          bid: column(rows.map((r) => r[1])),
          ask: column(rows.map((r) => r[2])),
          bidVolume: column(rows.map((r) => r[3])),
          askVolume: column(rows.map((r) => r[4])),
        };
      });
    fc.assert(
      fc.property(tickBatch, (batch) => {
        const bytes = encodeTickChunk(batch, 1);
        assert.equal(readTickChunkHeader(bytes).count, batch.length);
        assertBatchEqual(decodeTickChunk(bytes, batch.symbol), batch);
      }),
      { numRuns: 200 },
    );
  });

  test('a bar chunk is not a tick chunk', async () => {
    const eur = await bundledBidAskBars('F:EURUSD');
    assert.throws(() => decodeTickChunk(encodeBarChunk(eur), 'x'), ChunkFormatError);
  });
});
