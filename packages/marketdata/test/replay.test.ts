import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import {
  type BidAskBarBatch,
  type SpreadModel,
  type TradeBarBatch,
  ticksToDecimalString,
} from '@hindsight/core';
import { bundledBidAskBars, bundledTradeBars } from '../src/import/index.ts';
import {
  type BarBatch,
  BarStore,
  deriveBidAsk,
  isBidAskBatch,
  MemoryObjectStore,
  type ObjectStore,
  ReplayReader,
} from '../src/index.ts';

/** Rows of `batch` kept by `keep`, times shifted by `shift` ms. */
function select<T extends BarBatch>(batch: T, keep: (time: number, i: number) => boolean, shift = 0): T {
  const indices: number[] = [];
  for (let i = 0; i < batch.length; i++) if (keep(batch.time[i] as number, i)) indices.push(i);
  const out: Record<string, unknown> = { ...batch, length: indices.length };
  for (const [key, value] of Object.entries(batch)) {
    if (value instanceof Float64Array) out[key] = Float64Array.from(indices, (i) => value[i] as number);
  }
  const result = out as T;
  for (let i = 0; i < result.length; i++) result.time[i] = (result.time[i] as number) + shift;
  return result;
}

class ReadLog implements ObjectStore {
  reads: Array<{ key: string; lastEmitted: number }> = [];
  lastEmitted = Number.NEGATIVE_INFINITY;
  constructor(private readonly inner: ObjectStore) {}
  get(key: string) {
    if (key.endsWith('.hsb')) this.reads.push({ key, lastEmitted: this.lastEmitted });
    return this.inner.get(key);
  }
  put(key: string, bytes: Uint8Array) {
    return this.inner.put(key, bytes);
  }
  list(prefix: string) {
    return this.inner.list(prefix);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }
}

type Line = string;
function line(time: number, symbolIndex: number, batch: BidAskBarBatch, row: number): Line {
  const d = batch.priceDecimals;
  const p = (c: Float64Array) => ticksToDecimalString(c[row] as number, d);
  return [
    new Date(time).toISOString(),
    symbolIndex,
    p(batch.bidOpen),
    p(batch.bidHigh),
    p(batch.bidLow),
    p(batch.bidClose),
    p(batch.askOpen),
    p(batch.askHigh),
    p(batch.askLow),
    p(batch.askClose),
    ticksToDecimalString(batch.volume[row] as number, batch.volumeDecimals),
  ].join(' ');
}

/** The expected stream, by brute force: every bar in the window, sorted by (time, instrument). */
function expected(sources: Array<[BarBatch, SpreadModel]>, start: number, end: number): Line[] {
  const all: Array<[number, number, Line]> = [];
  sources.forEach(([source, model], k) => {
    const bars = isBidAskBatch(source) ? source : deriveBidAsk(source, model);
    for (let i = 0; i < bars.length; i++) {
      const t = bars.time[i] as number;
      if (t >= start && t < end) all.push([t, k, line(t, k, bars, i)]);
    }
  });
  all.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  return all.map(([, , l]) => l);
}

async function collect(reader: ReplayReader, log?: ReadLog): Promise<Line[]> {
  const lines: Line[] = [];
  while (await reader.fill()) {
    while (reader.next()) {
      lines.push(line(reader.time, reader.symbolIndex, reader.batch as BidAskBarBatch, reader.row));
      if (log) log.lastEmitted = reader.time;
    }
  }
  return lines;
}

const HALF_BPS: SpreadModel = { kind: 'half_spread_bps', value: '0.5' };
const ZERO: SpreadModel = { kind: 'zero' };
let btc: TradeBarBatch;
let eur: BidAskBarBatch;
let jpy: BidAskBarBatch;
let sources: Array<[BarBatch, SpreadModel]>;
let objects: ReadLog;
let store: BarStore;
const symbols = ['C:BTCUSD', 'F:EURUSD', 'F:USDJPY'];

before(async () => {
  const btcAll = await bundledTradeBars('C:BTCUSD');
  // BTC: Jan-Mar 2024 with a hole from 10 Feb to 20 Feb
  btc = select(btcAll, (t) => t < Date.parse('2024-02-10T00:00Z') || t >= Date.parse('2024-02-20T00:00Z'));
  // EURUSD (May 2014, with its own small holes and weekend) moved to 25 Jan 2024: crosses into February
  const eurAll = await bundledBidAskBars('F:EURUSD');
  eur = select(eurAll, () => true, Date.parse('2024-01-25T00:00Z') - Date.parse('2014-05-01T00:00Z'));
  // USDJPY (Feb 2013) moved to 20 Feb 2024, every 7th bar dropped: ends in March
  const jpyAll = await bundledBidAskBars('F:USDJPY');
  jpy = select(
    jpyAll,
    (_, i) => i % 7 !== 3,
    Date.parse('2024-02-20T00:00Z') - Date.parse('2013-02-01T00:00Z'),
  );
  objects = new ReadLog(new MemoryObjectStore());
  store = new BarStore(objects, { zstdLevel: 3 });
  await store.writeBars('C:BTCUSD', btc);
  await store.writeBars('F:EURUSD', eur);
  await store.writeBars('F:USDJPY', jpy);
  sources = [
    [btc, HALF_BPS],
    [eur, ZERO],
    [jpy, ZERO],
  ];
});

function instruments(models: SpreadModel[] = [HALF_BPS, ZERO, ZERO]) {
  return symbols.map((symbol, k) => ({ symbol, spreadModel: models[k] as SpreadModel }));
}

describe('ReplayReader', () => {
  test('merges 3 instruments with different gaps into one (time, instrument)-ordered stream, window cut mid-month', async () => {
    const start = Date.parse('2024-01-28T12:34:00Z');
    const end = Date.parse('2024-03-05T06:00:00Z');
    const reader = new ReplayReader(store, instruments(), { start, end });
    const lines = await collect(reader);
    const want = expected(sources, start, end);
    assert.ok(want.length > 60_000, `${want.length} bars expected`);
    assert.equal(lines.length, want.length);
    assert.deepEqual(lines, want);
    assert.match(lines[0] as string, /^2024-01-28T12:34:00.000Z 0 /);
    // bars of one minute come together, in instrument order (BTC and EURUSD overlap in late January)
    const key = (l: string | undefined) => l?.split(' ').slice(0, 2).join(' ');
    const shared = lines.findIndex(
      (l, i) => key(l)?.endsWith(' 0') && key(lines[i + 1]) === `${l.slice(0, 24)} 1`,
    );
    assert.ok(shared >= 0);
    // months of each instrument were read once; at most one chunk per instrument was held
    assert.equal(reader.stats.chunksLoaded, 3 + 2 + 2);
    assert.ok(reader.stats.maxChunksHeld <= 3);
  });

  test('whole range, single instruments, empty windows and unknown symbols', async () => {
    const all = new ReplayReader(store, instruments(), { start: 0, end: Date.parse('2030-01-01T00:00Z') });
    assert.deepEqual(await collect(all), expected(sources, 0, Date.parse('2030-01-01T00:00Z')));

    const start = Date.parse('2024-02-15T00:00Z'); // inside the BTC hole
    const end = Date.parse('2024-02-21T00:00Z');
    const one = new ReplayReader(store, [{ symbol: 'C:BTCUSD', spreadModel: ZERO }], { start, end });
    const lines = await collect(one);
    assert.equal(lines.length, 24 * 60);
    assert.match(lines[0] as string, /^2024-02-20T00:00:00.000Z 0 /);

    const empty = new ReplayReader(store, instruments(), { start, end: start });
    assert.deepEqual(await collect(empty), []);
    const nothing = new ReplayReader(store, [{ symbol: 'X:NONE', spreadModel: ZERO }], {
      start: 0,
      end: 1e13,
    });
    assert.deepEqual(await collect(nothing), []);
    const mixed = new ReplayReader(
      store,
      [
        { symbol: 'X:NONE', spreadModel: ZERO },
        { symbol: 'F:EURUSD', spreadModel: ZERO },
      ],
      { start: 0, end: 1e13 },
    );
    assert.equal((await collect(mixed)).length, eur.length);
  });

  test('reads chunks lazily: a month is read only when the stream reaches it, and released after', async () => {
    objects.reads = [];
    objects.lastEmitted = Number.NEGATIVE_INFINITY;
    const start = Date.parse('2024-01-01T00:00Z');
    const end = Date.parse('2024-04-01T00:00Z');
    const reader = new ReplayReader(store, instruments(), { start, end }, { prefetch: false });
    assert.equal(await reader.fill(), true);
    // only the chunk of the first bar (BTC January) is read before anything is emitted
    assert.deepEqual(
      objects.reads.map((r) => r.key),
      ['bars/C_BTCUSD/2024-01.hsb'],
    );
    assert.equal(reader.stats.chunksLoaded, 1);
    await collect(reader, objects);
    const firstOf = (key: string) => {
      const [, sym, month] = /^bars\/([^/]+)\/(\d{4}-\d{2})\.hsb$/.exec(key) ?? [];
      const batch = sources[symbols.findIndex((s) => s.replace(':', '_') === sym)]?.[0] as BarBatch;
      for (let i = 0; i < batch.length; i++) {
        if (new Date(batch.time[i] as number).toISOString().startsWith(month as string))
          return batch.time[i] as number;
      }
      return Number.NaN;
    };
    for (const read of objects.reads) {
      // the stream had not yet passed the chunk's first bar when the chunk was read
      assert.ok(read.lastEmitted <= firstOf(read.key), `${read.key} read too early`);
    }
    assert.equal(objects.reads.length, 7);
    assert.equal(reader.stats.chunksLoaded, 7);
    assert.ok(reader.stats.maxChunksHeld <= 3);
    assert.equal(reader.stats.barsDecoded, btc.length + eur.length + jpy.length);
  });

  test('with prefetch (the default), bytes are fetched one month ahead but decoded only when reached', async () => {
    objects.reads = [];
    const start = Date.parse('2024-01-01T00:00Z');
    const end = Date.parse('2024-04-01T00:00Z');
    const reader = new ReplayReader(store, instruments(), { start, end });
    assert.equal(await reader.fill(), true);
    assert.equal(reader.stats.chunksLoaded, 1);
    assert.deepEqual(
      objects.reads.map((r) => r.key),
      ['bars/C_BTCUSD/2024-01.hsb', 'bars/C_BTCUSD/2024-02.hsb'],
    );
    assert.deepEqual(await collect(reader), expected(sources, start, end));
    assert.equal(objects.reads.length, 7);
    assert.equal(reader.stats.chunksLoaded, 7);
    assert.ok(reader.stats.maxChunksHeld <= 3);
  });

  test('a failing read surfaces from fill(), also when it was a prefetch', async () => {
    const failing: ObjectStore = {
      get: async (key) => {
        if (key.endsWith('2024-02.hsb')) throw new Error('disk on fire');
        return objects.get(key);
      },
      put: (key, bytes) => objects.put(key, bytes),
      list: (prefix) => objects.list(prefix),
      delete: (key) => objects.delete(key),
    };
    const reader = new ReplayReader(new BarStore(failing), instruments(), { start: 0, end: 1e13 });
    await assert.rejects(collect(reader), /disk on fire/);
  });

  test('reuseBuffers: false keeps every batch handed out intact; the default recycles passed months', async () => {
    const start = Date.parse('2024-01-30T00:00Z');
    const end = Date.parse('2024-03-02T00:00Z');
    const kept: Array<[number, BidAskBarBatch, number]> = [];
    const reader = new ReplayReader(store, instruments(), { start, end }, { reuseBuffers: false });
    while (await reader.fill()) {
      while (reader.next()) kept.push([reader.time, reader.batch as BidAskBarBatch, reader.row]);
    }
    assert.deepEqual(
      kept.map(([, batch, row]) =>
        line(batch.time[row] as number, symbols.indexOf(batch.symbol), batch, row),
      ),
      expected(sources, start, end),
    );
    // with reuse, batches of passed months are overwritten by later months of the same instrument
    const reused: BidAskBarBatch[] = [];
    const recycling = new ReplayReader(store, instruments(), { start, end });
    while (await recycling.fill()) {
      while (recycling.next()) {
        if (reused.at(-1) !== recycling.batch) reused.push(recycling.batch as BidAskBarBatch);
      }
    }
    const btcBatches = new Set(reused.filter((b) => b.symbol === 'C:BTCUSD'));
    assert.equal(btcBatches.size, 3); // January, February, March
    assert.equal(new Set([...btcBatches].map((b) => b.bidOpen.buffer)).size, 1);
  });

  test('a window inside one month decodes only that month per instrument', async () => {
    const start = Date.parse('2024-02-21T00:00Z');
    const end = Date.parse('2024-02-22T00:00Z');
    const reader = new ReplayReader(store, instruments(), { start, end });
    const lines = await collect(reader);
    assert.deepEqual(lines, expected(sources, start, end));
    assert.equal(reader.stats.chunksLoaded, 2); // EURUSD has no bars that day: its chunk is never read
  });

  test('forEach visits the same bars', async () => {
    const start = Date.parse('2024-02-01T00:00Z');
    const end = Date.parse('2024-02-03T00:00Z');
    const seen: string[] = [];
    const count = await new ReplayReader(store, instruments(), { start, end }).forEach((batch, row, k) => {
      seen.push(line(batch.time[row] as number, k, batch, row));
    });
    assert.equal(count, seen.length);
    assert.deepEqual(seen, expected(sources, start, end));
    assert.throws(() => new ReplayReader(store, instruments(), { start: 2, end: 1 }), RangeError);
  });
});
