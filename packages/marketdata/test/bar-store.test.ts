import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BidAskBarBatch, QuoteTickBatch, TradeBarBatch } from '@hindsight/core';
import { bundledBidAskBars, bundledTradeBars } from '../src/import/index.ts';
import {
  type BarBatch,
  BarStore,
  isBidAskBatch,
  MemoryObjectStore,
  type ObjectStore,
  openFileBarStore,
} from '../src/index.ts';

/** Counts object reads, to show what an operation touches. */
class CountingStore implements ObjectStore {
  gets: string[] = [];
  puts: string[] = [];
  constructor(private readonly inner: ObjectStore) {}
  get(key: string) {
    this.gets.push(key);
    return this.inner.get(key);
  }
  put(key: string, bytes: Uint8Array) {
    this.puts.push(key);
    return this.inner.put(key, bytes);
  }
  list(prefix: string) {
    return this.inner.list(prefix);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }
}

function slice<T extends BarBatch>(batch: T, from: number, end: number): T {
  const to = Math.min(end, batch.length);
  const out: Record<string, unknown> = { ...batch, length: to - from };
  for (const [key, value] of Object.entries(batch)) {
    if (value instanceof Float64Array) out[key] = value.slice(from, to);
  }
  return out as T;
}

function rows(batch: BarBatch): number[][] {
  const columns = Object.entries(batch)
    .filter(([, v]) => v instanceof Float64Array)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, v]) => v as Float64Array);
  return Array.from({ length: batch.length }, (_, i) => columns.map((c) => c[i] as number));
}

async function snapshot(objects: ObjectStore): Promise<Map<string, string>> {
  const map = new Map<string, string>();
  for (const key of await objects.list(''))
    map.set(key, Buffer.from((await objects.get(key)) ?? []).toString('hex'));
  return map;
}

let btc: TradeBarBatch;
let eur: BidAskBarBatch;
let jpy: BidAskBarBatch;
const dirs: string[] = [];

before(async () => {
  btc = await bundledTradeBars('C:BTCUSD');
  eur = await bundledBidAskBars('F:EURUSD');
  jpy = await bundledBidAskBars('F:USDJPY');
});
after(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe('BarStore', () => {
  test('splits by UTC month, reads back exactly, and re-writing the same data changes no byte', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hindsight-bars-'));
    dirs.push(dir);
    const store = openFileBarStore(dir);
    const first = await store.writeBars('C:BTCUSD', btc);
    assert.deepEqual(first, { written: ['2024-01', '2024-02', '2024-03'], unchanged: [] });
    assert.deepEqual(await store.months('C:BTCUSD'), ['2024-01', '2024-02', '2024-03']);
    const keys = await store.objects.list('');
    assert.deepEqual(keys, [
      'bars/C_BTCUSD/2024-01.hsb',
      'bars/C_BTCUSD/2024-02.hsb',
      'bars/C_BTCUSD/2024-03.hsb',
      'bars/C_BTCUSD/index.json',
    ]);
    const feb = await store.readMonth('C:BTCUSD', '2024-02');
    assert.ok(feb && !isBidAskBatch(feb));
    assert.deepEqual(rows(feb), rows(slice(btc, 44640, 44640 + 41760)));
    assert.equal(await store.readMonth('C:BTCUSD', '2024-04'), undefined);

    const before = await snapshot(store.objects);
    const again = await store.writeBars('C:BTCUSD', btc);
    assert.deepEqual(again, { written: [], unchanged: ['2024-01', '2024-02', '2024-03'] });
    // a new BarStore on the same files (another process) sees the same and writes nothing either
    const other = openFileBarStore(dir);
    await other.writeBars('C:BTCUSD', slice(btc, 1000, 50000));
    assert.deepEqual(await snapshot(store.objects), before);
  });

  test('overlapping writes: the new row replaces the stored one; writing the original back restores every byte', async () => {
    const objects = new MemoryObjectStore();
    const store = new BarStore(objects);
    await store.writeBars('C:BTCUSD', btc);
    const original = await snapshot(objects);
    // 31 Jan 12:00 to 1 Feb 12:00 with different closes and volumes
    const from = 44640 - 720;
    const to = 44640 + 720;
    const changed = slice(btc, from, to);
    for (let i = 0; i < changed.length; i++) {
      changed.close[i] = (changed.close[i] as number) + 1;
      changed.volume[i] = 0;
    }
    const summary = await store.writeBars('C:BTCUSD', changed);
    assert.deepEqual(summary.written, ['2024-01', '2024-02']);
    const jan = (await store.readMonth('C:BTCUSD', '2024-01')) as TradeBarBatch;
    assert.equal(jan.length, 44640);
    assert.equal(jan.close[from], (btc.close[from] as number) + 1);
    assert.equal(jan.close[from - 1], btc.close[from - 1]);
    assert.equal(jan.volume[44639], 0);
    await store.writeBars('C:BTCUSD', btc);
    assert.deepEqual(await snapshot(objects), original);
  });

  test('writing in overlapping pieces, out of order, equals writing everything at once', async () => {
    const whole = new BarStore(new MemoryObjectStore());
    await whole.writeBars('F:EURUSD', eur);
    const pieces = new BarStore(new MemoryObjectStore());
    await pieces.writeBars('F:EURUSD', slice(eur, 9000, eur.length));
    await pieces.writeBars('F:EURUSD', slice(eur, 0, 6000));
    await pieces.writeBars('F:EURUSD', slice(eur, 5000, 10000));
    assert.deepEqual(await snapshot(pieces.objects), await snapshot(whole.objects));
  });

  test('unsorted input with duplicate times: sorted, the last duplicate wins', async () => {
    const store = new BarStore(new MemoryObjectStore());
    const part = slice(eur, 0, 5);
    const order = [3, 1, 4, 0, 2, 1];
    const shuffled = slice(eur, 0, 6);
    for (const [key, value] of Object.entries(part)) {
      if (!(value instanceof Float64Array)) continue;
      const target = (shuffled as unknown as Record<string, Float64Array>)[key] as Float64Array;
      order.forEach((row, i) => {
        target[i] = value[row] as number;
      });
    }
    shuffled.bidClose[5] = 123; // second copy of row 1: wins
    await store.writeBars('F:EURUSD', shuffled);
    const stored = (await store.readMonth('F:EURUSD', '2014-05')) as BidAskBarBatch;
    const expected = slice(eur, 0, 5);
    expected.bidClose[1] = 123;
    assert.deepEqual(rows(stored), rows(expected));
  });

  test('a chunk takes the larger decimals of stored and new bars, rescaled exactly', async () => {
    const store = new BarStore(new MemoryObjectStore());
    await store.writeBars('F:USDJPY', slice(jpy, 0, 100));
    const finer = slice(jpy, 50, 150);
    finer.priceDecimals = jpy.priceDecimals + 2;
    for (const c of [
      'bidOpen',
      'bidHigh',
      'bidLow',
      'bidClose',
      'askOpen',
      'askHigh',
      'askLow',
      'askClose',
    ] as const) {
      for (let i = 0; i < finer.length; i++) finer[c][i] = (finer[c][i] as number) * 100;
    }
    finer.bidClose[99] = (finer.bidClose[99] as number) + 7; // uses the extra precision
    await store.writeBars('F:USDJPY', finer);
    const stored = (await store.readMonth('F:USDJPY', '2013-02')) as BidAskBarBatch;
    assert.equal(stored.priceDecimals, 5);
    assert.equal(stored.length, 150);
    assert.equal(stored.bidOpen[0], (jpy.bidOpen[0] as number) * 100);
    assert.equal(stored.bidClose[149], (jpy.bidClose[149] as number) * 100 + 7);
    // coarser data written later is rescaled up; the chunk keeps 5 decimals
    await store.writeBars('F:USDJPY', slice(jpy, 0, 10));
    assert.equal((await store.readMonth('F:USDJPY', '2013-02'))?.priceDecimals, 5);
    assert.equal((await store.index('F:USDJPY'))?.months['2013-02']?.priceDecimals, 5);
  });

  test('index, coverage and symbols come from the small index objects, not from chunks', async () => {
    const objects = new CountingStore(new MemoryObjectStore());
    const store = new BarStore(objects);
    await store.writeBars('F:USDJPY', jpy);
    await store.writeBars('C:BTCUSD', btc);
    objects.gets = [];
    const coverage = await store.coverage('F:USDJPY');
    assert.deepEqual(objects.gets, ['bars/F_USDJPY/index.json']);
    assert.equal(coverage?.first, Date.parse('2013-02-01T00:00:00Z'));
    assert.equal(coverage?.last, Date.parse('2013-03-01T00:00:00Z'));
    assert.equal(coverage?.bars, 28761);
    assert.deepEqual(await store.months('F:USDJPY'), ['2013-02', '2013-03']);
    assert.deepEqual(await store.dataCoverage('C:BTCUSD'), {
      symbol: 'C:BTCUSD',
      firstDay: '2024-01-01',
      lastDay: '2024-03-31',
    });
    const index = await store.index('C:BTCUSD');
    assert.deepEqual(index?.months['2024-02'], {
      count: 41760,
      first: Date.parse('2024-02-01T00:00:00Z'),
      last: Date.parse('2024-02-29T23:59:00Z'),
      kind: 'trade',
      priceDecimals: 2,
      volumeDecimals: btc.volumeDecimals,
      bytes: index?.months['2024-02']?.bytes,
    });
    assert.equal(await store.coverage('S:NONE'), undefined);
    assert.deepEqual(await store.symbols(), ['C:BTCUSD', 'F:USDJPY']);
    // rebuildIndex recomputes the same index from the chunks
    await store.objects.delete('bars/C_BTCUSD/index.json');
    assert.deepEqual(await store.rebuildIndex('C:BTCUSD'), index);
  });

  test('refuses to mix bar kinds in a month, bad symbols and non-integer values', async () => {
    const store = new BarStore(new MemoryObjectStore());
    await store.writeBars('X:MIX', slice(eur, 0, 10));
    const asTrade: TradeBarBatch = {
      symbol: 'X:MIX',
      priceDecimals: 5,
      volumeDecimals: 0,
      length: 1,
      time: eur.time.slice(0, 1),
      open: eur.bidOpen.slice(0, 1),
      high: eur.bidHigh.slice(0, 1),
      low: eur.bidLow.slice(0, 1),
      close: eur.bidClose.slice(0, 1),
      volume: new Float64Array(1),
    };
    await assert.rejects(store.writeBars('X:MIX', asTrade), /cannot be merged/);
    await assert.rejects(store.writeBars('../etc', asTrade), /invalid symbol/);
    asTrade.open[0] = 0.5;
    await assert.rejects(store.writeBars('X:OTHER', asTrade), /not a safe integer/);
    await store.writeBars('X_MIX', { ...asTrade, open: eur.bidOpen.slice(0, 1) }).then(
      () => assert.fail('X_MIX shares the key of X:MIX'),
      (err: Error) => assert.match(err.message, /collides/),
    );
  });

  test('concurrent writes to one symbol are serialised', async () => {
    const store = new BarStore(new MemoryObjectStore());
    await Promise.all(
      [0, 1, 2, 3].map((k) => store.writeBars('F:EURUSD', slice(eur, k * 4000, (k + 1) * 4000))),
    );
    const whole = new BarStore(new MemoryObjectStore());
    await whole.writeBars('F:EURUSD', eur);
    assert.deepEqual(await snapshot(store.objects), await snapshot(whole.objects));
  });
});

describe('BarStore ticks', () => {
  function ticks(times: number[], bid: number, decimals = 5): QuoteTickBatch {
    const n = times.length;
    return {
      symbol: 'F:EURUSD',
      priceDecimals: decimals,
      volumeDecimals: 0,
      length: n,
      time: Float64Array.from(times),
      bid: Float64Array.from(times, (_, i) => bid + i),
      ask: Float64Array.from(times, (_, i) => bid + i + 2),
      bidVolume: new Float64Array(n).fill(1),
      askVolume: new Float64Array(n).fill(2),
    };
  }
  const day = Date.parse('2014-05-01T00:00:00Z');

  test('one chunk per UTC day; a write replaces the stored ticks in its time range; idempotent', async () => {
    const store = new BarStore(new MemoryObjectStore());
    const t = (s: number) => day + s * 1000;
    // equal timestamps are legitimate ticks and are kept
    await store.writeTicks('F:EURUSD', ticks([t(1), t(2), t(2), t(3), t(86_400 + 5)], 100));
    assert.deepEqual(await store.tickDays('F:EURUSD'), ['2014-05-01', '2014-05-02']);
    const first = await store.readTicks('F:EURUSD', '2014-05-01');
    assert.deepEqual(Array.from(first?.time ?? []), [t(1), t(2), t(2), t(3)]);
    const before = await snapshot(store.objects);
    assert.deepEqual((await store.writeTicks('F:EURUSD', ticks([t(1), t(2), t(2), t(3)], 100))).unchanged, [
      '2014-05-01',
    ]);
    assert.deepEqual(await snapshot(store.objects), before);
    // overlapping: ticks from 2 s to 2 s are replaced by the new ones (at finer decimals)
    await store.writeTicks('F:EURUSD', ticks([t(2)], 5000, 6));
    const merged = await store.readTicks('F:EURUSD', '2014-05-01');
    assert.equal(merged?.priceDecimals, 6);
    assert.deepEqual(Array.from(merged?.time ?? []), [t(1), t(2), t(3)]);
    assert.deepEqual(Array.from(merged?.bid ?? []), [1000, 5000, 1030]);
    assert.equal(await store.readTicks('F:EURUSD', '2014-05-03'), undefined);
  });
});
