import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { BidAskBarBatch, SpreadModel, TradeBarBatch } from '@hindsight/core';
import {
  type BarBatch,
  type BarSource,
  type BarStore,
  ensureZstd,
  isBidAskBatch,
  type MonthIndexEntry,
  monthRange,
  openFileBarStore,
  ReplayReader,
  type SymbolIndex,
  utcMonth,
  zstdCompress,
  zstdDecompress,
} from '@hindsight/marketdata';
import { bundledBidAskBars, bundledTradeBars } from '@hindsight/marketdata/import';
import { parquetRead } from 'hyparquet';
import { parquetWriteBuffer } from 'hyparquet-writer';

/**
 * Market data storage and replay (issue: chunked columnar files, replay reader). Compares the HSB1 chunk
 * format with Parquet (hyparquet-writer INT64 columns, DELTA_BINARY_PACKED, zstd; read with hyparquet), both
 * replayed by the same ReplayReader through the BarSource interface.
 *
 * - storage: bytes per stored 1m bar on the real sample files (EURUSD, USDJPY bid/ask; BTCUSDT trade);
 * - replay single: C:BTCUSD (131,040 bars, half_spread_bps 0.5 derived on read), repeated until >= 1 s,
 *   every pass reading the chunk files (OS cache warm) and decoding them;
 * - replay merged: 10 synthetic instruments x one year of 1m bars (copies of the real series, shifted and offset),
 *   written through BarStore, replayed as one merged stream; peak heap (V8 heap + array buffers) and RSS.
 */

const HALF_BPS: SpreadModel = { kind: 'half_spread_bps', value: '0.5' };
const ZERO: SpreadModel = { kind: 'zero' };
const MINUTE = 60_000;
const ZSTD_LEVEL = 12;

function bench(name: string, value: number, unit: string, digits = 2): void {
  console.log(`BENCH ${name} ${value.toFixed(digits)} ${unit}`);
}

const gc: () => void = (() => {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
})();

/** Parquet month files `<dir>/<SYM>/<YYYY-MM>.parquet` with an in-memory index: a BarSource for ReplayReader. */
class ParquetBarSource implements BarSource {
  private readonly indexes = new Map<string, SymbolIndex>();
  constructor(private readonly dir: string) {}

  private path(symbol: string, month: string): string {
    return join(this.dir, symbol.replaceAll(':', '_'), `${month}.parquet`);
  }

  /** Writes a batch as one file per UTC month (no merging: the bench writes each month once). */
  async write(symbol: string, batch: BarBatch): Promise<number> {
    const columns = Object.entries(batch).filter(([, v]) => v instanceof Float64Array) as [
      string,
      Float64Array,
    ][];
    const index = this.indexes.get(symbol) ?? { symbol, months: {} };
    this.indexes.set(symbol, index);
    let bytes = 0;
    let from = 0;
    while (from < batch.length) {
      const month = utcMonth(batch.time[from] as number);
      const { end } = monthRange(month);
      let to = from;
      while (to < batch.length && (batch.time[to] as number) < end) to++;
      const buffer = parquetWriteBuffer({
        columnData: columns.map(([name, values]) => ({
          name,
          data: BigInt64Array.from(values.subarray(from, to), (v) => BigInt(v)),
          type: 'INT64' as const,
          nullable: false,
          encoding: 'DELTA_BINARY_PACKED' as const,
        })),
        codec: 'ZSTD',
        compressors: { ZSTD: (input: Uint8Array) => zstdCompress(input, ZSTD_LEVEL) },
        statistics: false,
        rowGroupSize: 1_000_000,
        kvMetadata: [
          { key: 'priceDecimals', value: String(batch.priceDecimals) },
          { key: 'volumeDecimals', value: String(batch.volumeDecimals) },
        ],
      });
      await mkdir(join(this.dir, symbol.replaceAll(':', '_')), { recursive: true });
      await writeFile(this.path(symbol, month), new Uint8Array(buffer));
      bytes += buffer.byteLength;
      index.months[month] = {
        count: to - from,
        first: batch.time[from] as number,
        last: batch.time[to - 1] as number,
        kind: isBidAskBatch(batch) ? 'bidask' : 'trade',
        priceDecimals: batch.priceDecimals,
        volumeDecimals: batch.volumeDecimals,
        bytes: buffer.byteLength,
      };
      from = to;
    }
    return bytes;
  }

  async index(symbol: string): Promise<SymbolIndex | undefined> {
    return this.indexes.get(symbol);
  }

  async readMonth(symbol: string, month: string): Promise<BarBatch | undefined> {
    const entry = this.indexes.get(symbol)?.months[month] as MonthIndexEntry | undefined;
    if (!entry) return undefined;
    const file = await readFile(this.path(symbol, month));
    const arrayBuffer = file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
    const columns: Record<string, Float64Array> = {};
    await parquetRead({
      file: arrayBuffer,
      compressors: { ZSTD: (input: Uint8Array, length: number) => zstdDecompress(input, length) },
      onChunk: (chunk) => {
        const data = chunk.columnData as ArrayLike<bigint | number>;
        const out = new Float64Array(data.length);
        for (let i = 0; i < data.length; i++) out[i] = Number(data[i]);
        columns[chunk.columnName] = out;
      },
    });
    return {
      symbol,
      priceDecimals: entry.priceDecimals,
      volumeDecimals: entry.volumeDecimals,
      length: entry.count,
      ...columns,
    } as unknown as BarBatch;
  }
}

interface ReplayRun {
  bars: number;
  seconds: number;
  /** CPU time of this process (user + system) over the run: the figure that other load on the host leaves alone. */
  cpuSeconds: number;
  checksum: number;
  peakHeapMB: number;
  peakRssMB: number;
  chunks: number;
}

/**
 * Replays `instruments` over the window, repeated until `minSeconds` of work; samples memory every 65,536 bars.
 * With `gcEvery`, forces a full GC every that many bars before sampling (live memory; not for timing).
 */
async function replay(
  source: BarSource,
  instruments: Array<{ symbol: string; spreadModel: SpreadModel }>,
  window: { start: number; end: number },
  minSeconds: number,
  gcEvery = 0,
): Promise<ReplayRun> {
  let bars = 0;
  let checksum = 0;
  let peakHeap = 0;
  let peakRss = 0;
  let chunks = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed + m.arrayBuffers);
    peakRss = Math.max(peakRss, m.rss);
  };
  sample();
  const started = performance.now();
  const cpu = process.cpuUsage();
  do {
    const reader = new ReplayReader(source, instruments, window);
    while (await reader.fill()) {
      while (reader.next()) {
        const batch = reader.batch as BidAskBarBatch;
        checksum += (batch.askClose[reader.row] as number) - (batch.bidClose[reader.row] as number);
        if ((++bars & 0xffff) === 0) {
          if (gcEvery > 0 && bars % gcEvery === 0) gc();
          sample();
        }
      }
    }
    chunks += reader.stats.chunksLoaded;
  } while (performance.now() - started < minSeconds * 1000);
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  sample();
  return {
    bars,
    seconds,
    cpuSeconds: (used.user + used.system) / 1e6,
    checksum,
    peakHeapMB: peakHeap / 2 ** 20,
    peakRssMB: peakRss / 2 ** 20,
    chunks,
  };
}

const YEAR_START = Date.UTC(2025, 0, 1);
const YEAR_END = Date.UTC(2026, 0, 1);

/**
 * One year of 1m bars from a real series: the series is repeated end to end (period = its span + 1 minute, so
 * holes and weekends repeat too), started `shift` ms late, with `priceOffset` ticks added to every price.
 */
function synthesize<T extends BarBatch>(source: T, symbol: string, shift: number, priceOffset: number): T {
  const first = source.time[0] as number;
  const period = (source.time[source.length - 1] as number) - first + MINUTE;
  const times: number[] = [];
  const rows: number[] = [];
  for (let c = -1; ; c++) {
    const base = YEAR_START + shift + c * period - first;
    if (base + first >= YEAR_END) break;
    for (let i = 0; i < source.length; i++) {
      const t = base + (source.time[i] as number);
      if (t < YEAR_START) continue;
      if (t >= YEAR_END) break;
      times.push(t);
      rows.push(i);
    }
  }
  const out: Record<string, unknown> = { ...source, symbol, length: rows.length };
  for (const [key, value] of Object.entries(source)) {
    if (!(value instanceof Float64Array)) continue;
    const isPrice = key !== 'time' && key !== 'volume';
    out[key] =
      key === 'time'
        ? Float64Array.from(times)
        : Float64Array.from(rows, (i) => (value[i] as number) + (isPrice ? priceOffset : 0));
  }
  return out as T;
}

async function storageFigures(
  store: BarStore,
  parquet: ParquetBarSource,
  samples: Array<[string, BarBatch]>,
) {
  for (const [name, batch] of samples) {
    const started = performance.now();
    await store.writeBars(batch.symbol, batch);
    const writeSeconds = (performance.now() - started) / 1000;
    const coverage = await store.coverage(batch.symbol);
    if (!coverage || coverage.bars !== batch.length)
      throw new Error(`${name}: stored ${coverage?.bars} bars`);
    bench(`marketdata_storage_${name}_1m`, coverage.bytes / coverage.bars, 'bytes/bar');
    bench(`marketdata_write_${name}_1m`, batch.length / writeSeconds, 'bars/s', 0);
    const parquetBytes = await parquet.write(batch.symbol, batch);
    bench(`marketdata_parquet_storage_${name}_1m`, parquetBytes / batch.length, 'bytes/bar');
  }
}

export async function run(): Promise<void> {
  console.log(
    `# host load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} on ${cpus().length} cores`,
  );
  await ensureZstd();
  const root = await mkdtemp(join(tmpdir(), 'hindsight-bench-marketdata-'));
  try {
    const btc: TradeBarBatch = await bundledTradeBars('C:BTCUSD');
    const eur: BidAskBarBatch = await bundledBidAskBars('F:EURUSD');
    const jpy: BidAskBarBatch = await bundledBidAskBars('F:USDJPY');

    // storage on the real sample data
    const store = openFileBarStore(join(root, 'data'), { zstdLevel: ZSTD_LEVEL });
    const parquet = new ParquetBarSource(join(root, 'parquet'));
    await storageFigures(store, parquet, [
      ['eurusd', eur],
      ['usdjpy', jpy],
      ['btcusdt', btc],
    ]);

    // single instrument replay, warm (one untimed pass first)
    const single = [{ symbol: 'C:BTCUSD', spreadModel: HALF_BPS }];
    const all = { start: btc.time[0] as number, end: (btc.time[btc.length - 1] as number) + MINUTE };
    for (const [label, source] of [
      ['', store],
      ['parquet_', parquet],
    ] as const) {
      await replay(source, single, all, 0);
      const result = await replay(source, single, all, 1);
      if (result.bars % btc.length !== 0) throw new Error(`${label}single replay: ${result.bars} bars`);
      bench(`marketdata_${label}replay_single_bars_per_s`, result.bars / result.seconds, 'bars/s', 0);
      bench(
        `marketdata_${label}replay_single_bars_per_cpu_s`,
        result.bars / result.cpuSeconds,
        'bars/cpu-s',
        0,
      );
    }

    // 10 instruments x one year, written through BarStore (and as Parquet for comparison)
    const sources: Array<[BarBatch, SpreadModel]> = [
      [btc, HALF_BPS],
      [btc, HALF_BPS],
      [btc, ZERO],
      [btc, HALF_BPS],
      [btc, HALF_BPS],
      [btc, ZERO],
      [eur, ZERO],
      [eur, ZERO],
      [jpy, ZERO],
      [jpy, ZERO],
    ];
    const instruments: Array<{ symbol: string; spreadModel: SpreadModel }> = [];
    let totalBars = 0;
    let storedBytes = 0;
    let writeSeconds = 0;
    for (const [k, [source, spreadModel]] of sources.entries()) {
      const symbol = `X:SYN${k}`;
      const batch = synthesize(source, symbol, k * 7 * 24 * 60 * MINUTE, k * 1000);
      const started = performance.now();
      await store.writeBars(symbol, batch);
      writeSeconds += (performance.now() - started) / 1000;
      await parquet.write(symbol, batch);
      storedBytes += (await store.coverage(symbol))?.bytes ?? 0;
      totalBars += batch.length;
      instruments.push({ symbol, spreadModel });
    }
    bench('marketdata_synthetic_bars', totalBars, 'bars', 0);
    bench('marketdata_synthetic_storage', storedBytes / totalBars, 'bytes/bar');
    bench('marketdata_write_synthetic', totalBars / writeSeconds, 'bars/s', 0);

    const year = { start: YEAR_START, end: YEAR_END };
    const march = { start: Date.UTC(2025, 2, 1), end: Date.UTC(2025, 3, 1) };
    for (const [label, source] of [
      ['', store],
      ['parquet_', parquet],
    ] as const) {
      await replay(source, instruments, march, 0); // warm up
      gc();
      const baseline = process.memoryUsage();
      if (label === '') {
        bench(
          'marketdata_replay_baseline_heap',
          (baseline.heapUsed + baseline.arrayBuffers) / 2 ** 20,
          'MB',
          1,
        );
      }
      const result = await replay(source, instruments, year, 1);
      if (result.bars % totalBars !== 0)
        throw new Error(`${label}merged replay: ${result.bars} of ${totalBars} bars`);
      bench(`marketdata_${label}replay_merged10_bars_per_s`, result.bars / result.seconds, 'bars/s', 0);
      bench(
        `marketdata_${label}replay_merged10_bars_per_cpu_s`,
        result.bars / result.cpuSeconds,
        'bars/cpu-s',
        0,
      );
      bench(`marketdata_${label}replay_peak_heap`, result.peakHeapMB, 'MB', 1);
      bench(`marketdata_${label}replay_peak_rss`, result.peakRssMB, 'MB', 1);
      if (label === '') {
        // live memory (after forced GCs every 2^18 bars): flat whatever the window length
        for (const [name, window] of [
          ['1month', march],
          ['1year', year],
        ] as const) {
          gc();
          const live = await replay(source, instruments, window, 0, 2 ** 18);
          bench(`marketdata_replay_live_heap_${name}_window`, live.peakHeapMB, 'MB', 1);
        }
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
