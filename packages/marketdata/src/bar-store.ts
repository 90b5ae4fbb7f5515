import { join } from 'node:path';
import type { BidAskBarBatch, DataCoverage, QuoteTickBatch, TradeBarBatch } from '@hindsight/core';
import {
  type BarChunkKind,
  barBatchKind,
  decodeBarChunk,
  encodeBarChunk,
  readBarChunkHeader,
} from './codec/bars.ts';
import { decodeTickChunk, encodeTickChunk } from './codec/ticks.ts';
import { FileObjectStore, type ObjectStore } from './object-store.ts';
import {
  barChunkKey,
  barIndexKey,
  DAY,
  dayRange,
  MONTH,
  monthRange,
  symbolKey,
  tickChunkKey,
  utcDay,
  utcMonth,
} from './store-keys.ts';
import { allColumns, checkColumns, mergeBars, mergeTicks, sortedUniqueRows } from './store-merge.ts';
import { DEFAULT_ZSTD_LEVEL, ensureZstd } from './zstd.ts';

export type BarBatch = BidAskBarBatch | TradeBarBatch;

/** What `bars/<SYM>/index.json` records per stored month (`YYYY-MM`). Times are bar starts, epoch ms UTC. */
export interface MonthIndexEntry {
  count: number;
  first: number;
  last: number;
  kind: BarChunkKind;
  priceDecimals: number;
  volumeDecimals: number;
  /** Size of the stored chunk in bytes. */
  bytes: number;
}

export interface SymbolIndex {
  symbol: string;
  months: Record<string, MonthIndexEntry>;
}

export interface BarCoverage {
  symbol: string;
  /** First and last stored bar start, epoch ms UTC. */
  first: number;
  last: number;
  bars: number;
  months: number;
  bytes: number;
}

export interface WriteSummary {
  /** Months (or days, for ticks) whose chunk changed. */
  written: string[];
  /** Months (or days) whose merged content equalled the stored chunk: nothing was written. */
  unchanged: string[];
}

export interface BarStoreOptions {
  /** zstd level for new chunks (default 12: ~3.5–8 bytes per 1m bar on the sample data). */
  zstdLevel?: number;
}

/**
 * Base market data over an object store: one HSB1 chunk per instrument and UTC month
 * (`bars/<SYM>/<YYYY-MM>.hsb`), a per-symbol index (`bars/<SYM>/index.json`, month -> count, first, last, kind,
 * decimals, bytes) and, where ticks exist, one HST1 chunk per UTC day (`ticks/<SYM>/<YYYY-MM-DD>.hst`).
 *
 * Writes merge with what is stored, so re-importing the same or overlapping data is idempotent: same data
 * gives byte-identical chunks (and no write at all). Writes to one symbol are serialised within this instance;
 * use one BarStore per store location in a process.
 */
function sameBytes(a: Uint8Array | undefined, b: Uint8Array): boolean {
  if (!a || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function encodeJson(value: unknown): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(value, null, 1)}\n`);
}

export class BarStore {
  private readonly level: number;
  private readonly locks = new Map<string, Promise<unknown>>();

  constructor(
    readonly objects: ObjectStore,
    options: BarStoreOptions = {},
  ) {
    this.level = options.zstdLevel ?? DEFAULT_ZSTD_LEVEL;
  }

  private async locked<T>(symbol: string, task: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(symbol) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => undefined);
    this.locks.set(symbol, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(symbol) === tail) this.locks.delete(symbol);
    }
  }

  /**
   * Stores bars of one instrument: split by UTC month, each month merged with its stored chunk (same bar time:
   * the new row replaces the stored one; rows sorted by time; a chunk's decimals become the larger of stored and
   * new, rescaled exactly). Input need not be sorted; duplicate times in the input keep the last row. Every value
   * must be a safe integer. A month's chunk must keep one kind (bid/ask or trade).
   */
  async writeBars(symbol: string, batch: BarBatch): Promise<WriteSummary> {
    symbolKey(symbol);
    const n = batch.length;
    checkColumns(`${symbol} bars`, allColumns(batch), n);
    await ensureZstd();
    const rows = sortedUniqueRows(batch.time, n);
    const incoming: BarBatch = { ...batch, symbol };
    return this.locked(symbol, async () => {
      const summary: WriteSummary = { written: [], unchanged: [] };
      if (rows.length === 0) return summary;
      const index = (await this.index(symbol)) ?? { symbol, months: {} };
      if (index.symbol !== symbol) {
        throw new Error(
          `symbol ${symbol} collides with stored symbol ${index.symbol} (same key ${symbolKey(symbol)})`,
        );
      }
      const kind = barBatchKind(batch);
      let from = 0;
      while (from < rows.length) {
        const month = utcMonth(batch.time[rows[from] as number] as number);
        const { end } = monthRange(month);
        let to = from;
        while (to < rows.length && (batch.time[rows[to] as number] as number) < end) to++;
        const key = barChunkKey(symbol, month);
        const stored = await this.objects.get(key);
        let old: BarBatch | undefined;
        if (stored) {
          const header = readBarChunkHeader(stored);
          if (header.kind !== kind) {
            throw new Error(
              `${symbol} ${month}: stored ${header.kind} bars cannot be merged with ${kind} bars`,
            );
          }
          old = decodeBarChunk(stored, symbol);
        }
        const merged = mergeBars(old, incoming, rows, from, to);
        const bytes = encodeBarChunk(merged, this.level);
        if (sameBytes(stored, bytes)) summary.unchanged.push(month);
        else {
          await this.objects.put(key, bytes);
          summary.written.push(month);
        }
        index.months[month] = {
          count: merged.length,
          first: merged.time[0] as number,
          last: merged.time[merged.length - 1] as number,
          kind,
          priceDecimals: merged.priceDecimals,
          volumeDecimals: merged.volumeDecimals,
          bytes: bytes.length,
        };
        // the index follows every chunk, so a crash leaves it at most one month behind (see rebuildIndex)
        await this.putIndex(symbol, index);
        from = to;
      }
      return summary;
    });
  }

  private async putIndex(symbol: string, index: SymbolIndex): Promise<void> {
    const months: Record<string, MonthIndexEntry> = {};
    for (const month of Object.keys(index.months).sort())
      months[month] = index.months[month] as MonthIndexEntry;
    const bytes = encodeJson({ symbol: index.symbol, months });
    const key = barIndexKey(symbol);
    if (!sameBytes(await this.objects.get(key), bytes)) await this.objects.put(key, bytes);
  }

  /** The symbol's index, or undefined when nothing is stored for it. */
  async index(symbol: string): Promise<SymbolIndex | undefined> {
    const bytes = await this.objects.get(barIndexKey(symbol));
    if (!bytes) return undefined;
    return JSON.parse(new TextDecoder().decode(bytes)) as SymbolIndex;
  }

  /**
   * Rebuilds `index.json` from the stored chunks (after a crash between a chunk write and the index write,
   * or a copy of chunks from elsewhere). Decodes each chunk once.
   */
  async rebuildIndex(symbol: string): Promise<SymbolIndex> {
    await ensureZstd();
    return this.locked(symbol, async () => {
      const prefix = `bars/${symbolKey(symbol)}/`;
      const index: SymbolIndex = { symbol, months: {} };
      for (const key of await this.objects.list(prefix)) {
        const month = key.slice(prefix.length).replace(/\.hsb$/, '');
        if (!key.endsWith('.hsb') || !MONTH.test(month)) continue;
        const bytes = await this.objects.get(key);
        if (!bytes) continue;
        const batch = decodeBarChunk(bytes, symbol);
        if (batch.length === 0) continue;
        index.months[month] = {
          count: batch.length,
          first: batch.time[0] as number,
          last: batch.time[batch.length - 1] as number,
          kind: barBatchKind(batch),
          priceDecimals: batch.priceDecimals,
          volumeDecimals: batch.volumeDecimals,
          bytes: bytes.length,
        };
      }
      await this.putIndex(symbol, index);
      return index;
    });
  }

  /** The raw HSB1 chunk of a month, or undefined. */
  async readMonthBytes(symbol: string, month: string): Promise<Uint8Array | undefined> {
    monthRange(month);
    return this.objects.get(barChunkKey(symbol, month));
  }

  /** The stored bars of one UTC month (`YYYY-MM`), as stored (bid/ask or trade), or undefined. */
  async readMonth(symbol: string, month: string): Promise<BarBatch | undefined> {
    return (await this.fetchMonth(symbol, month))?.();
  }

  /**
   * Two-phase read of a month: fetches the chunk's bytes now and returns a function that decodes them when
   * called (undefined when the month is not stored), into `scratch` when given (see decodeBarChunk). Replay uses
   * it to fetch the next month while the current one plays, holding only compressed bytes ahead, and to decode
   * into the buffers of months it has passed.
   */
  async fetchMonth(
    symbol: string,
    month: string,
  ): Promise<((scratch?: Float64Array) => BarBatch) | undefined> {
    const bytes = await this.readMonthBytes(symbol, month);
    if (!bytes) return undefined;
    await ensureZstd();
    return (scratch) => decodeBarChunk(bytes, symbol, scratch);
  }

  /** Stored months of a symbol, ascending (`YYYY-MM`). */
  async months(symbol: string): Promise<string[]> {
    const index = await this.index(symbol);
    return index ? Object.keys(index.months).sort() : [];
  }

  /** First and last stored bar of a symbol from its index, without decoding any chunk. */
  async coverage(symbol: string): Promise<BarCoverage | undefined> {
    const index = await this.index(symbol);
    const entries = index ? Object.values(index.months) : [];
    if (entries.length === 0) return undefined;
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    let bars = 0;
    let bytes = 0;
    for (const entry of entries) {
      first = Math.min(first, entry.first);
      last = Math.max(last, entry.last);
      bars += entry.count;
      bytes += entry.bytes;
    }
    return { symbol, first, last, bars, months: entries.length, bytes };
  }

  /** Coverage as UTC days (`DataCoverage` of the catalog). */
  async dataCoverage(symbol: string): Promise<DataCoverage | undefined> {
    const coverage = await this.coverage(symbol);
    return coverage && { symbol, firstDay: utcDay(coverage.first), lastDay: utcDay(coverage.last) };
  }

  /** Symbols with stored bars, sorted (read from their index objects). */
  async symbols(): Promise<string[]> {
    const keys = (await this.objects.list('bars/')).filter((key) => /^bars\/[^/]+\/index\.json$/.test(key));
    const symbols: string[] = [];
    for (const key of keys) {
      const bytes = await this.objects.get(key);
      if (!bytes) continue;
      const index = JSON.parse(new TextDecoder().decode(bytes)) as SymbolIndex;
      if (Object.keys(index.months).length > 0) symbols.push(index.symbol);
    }
    return symbols.sort();
  }

  /**
   * Stores quote ticks of one instrument: split by UTC day; within each day the stored ticks from the first to
   * the last time of the new ticks are replaced by the new ones (ticks may share a timestamp, so they are
   * replaced by time range, not by time). Input is sorted stably by time. Same data twice: byte-identical.
   */
  async writeTicks(symbol: string, batch: QuoteTickBatch): Promise<WriteSummary> {
    symbolKey(symbol);
    const n = batch.length;
    const columns = [batch.time, batch.bid, batch.ask, batch.bidVolume, batch.askVolume];
    checkColumns(`${symbol} ticks`, columns, n);
    await ensureZstd();
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => (batch.time[a] as number) - (batch.time[b] as number) || a - b);
    return this.locked(`ticks:${symbol}`, async () => {
      const summary: WriteSummary = { written: [], unchanged: [] };
      let from = 0;
      while (from < order.length) {
        const day = utcDay(batch.time[order[from] as number] as number);
        const { end } = dayRange(day);
        let to = from;
        while (to < order.length && (batch.time[order[to] as number] as number) < end) to++;
        const key = tickChunkKey(symbol, day);
        const stored = await this.objects.get(key);
        const old = stored ? decodeTickChunk(stored, symbol) : undefined;
        const merged = mergeTicks(old, batch, order.slice(from, to));
        const bytes = encodeTickChunk(merged, this.level);
        if (sameBytes(stored, bytes)) summary.unchanged.push(day);
        else {
          await this.objects.put(key, bytes);
          summary.written.push(day);
        }
        from = to;
      }
      return summary;
    });
  }

  /** Stored ticks of one UTC day (`YYYY-MM-DD`), or undefined. */
  async readTicks(symbol: string, day: string): Promise<QuoteTickBatch | undefined> {
    dayRange(day);
    const bytes = await this.objects.get(tickChunkKey(symbol, day));
    if (!bytes) return undefined;
    await ensureZstd();
    return decodeTickChunk(bytes, symbol);
  }

  /** UTC days with stored ticks, ascending. */
  async tickDays(symbol: string): Promise<string[]> {
    const prefix = `ticks/${symbolKey(symbol)}/`;
    return (await this.objects.list(prefix))
      .map((key) => key.slice(prefix.length))
      .filter((name) => name.endsWith('.hst'))
      .map((name) => name.slice(0, -4))
      .filter((day) => DAY.test(day));
  }
}

export function openFileBarStore(dataDir: string, options?: BarStoreOptions): BarStore {
  return new BarStore(new FileObjectStore(join(dataDir, 'market')), options);
}
