import { join } from 'node:path';
import {
  BID_ASK_PRICE_COLUMNS,
  type BidAskBarBatch,
  type DataCoverage,
  type QuoteTickBatch,
  TRADE_PRICE_COLUMNS,
  type TradeBarBatch,
} from '@hindsight/core';
import {
  type BarChunkKind,
  barBatchKind,
  decodeBarChunk,
  encodeBarChunk,
  isBidAskBatch,
  readBarChunkHeader,
} from './codec/bars.ts';
import { decodeTickChunk, encodeTickChunk } from './codec/ticks.ts';
import { FileObjectStore, type ObjectStore } from './object-store.ts';
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

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;
const DAY = /^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const SYMBOL = /^[A-Za-z0-9][A-Za-z0-9:._-]{0,63}$/;

/** The key segment of a symbol: `C:BTCUSD` is stored as `C_BTCUSD`. */
export function symbolKey(symbol: string): string {
  if (!SYMBOL.test(symbol)) throw new Error(`invalid symbol ${JSON.stringify(symbol)}`);
  return symbol.replaceAll(':', '_');
}

export function barChunkKey(symbol: string, month: string): string {
  return `bars/${symbolKey(symbol)}/${month}.hsb`;
}

export function barIndexKey(symbol: string): string {
  return `bars/${symbolKey(symbol)}/index.json`;
}

export function tickChunkKey(symbol: string, day: string): string {
  return `ticks/${symbolKey(symbol)}/${day}.hst`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, '0');
}

/** UTC month `YYYY-MM` of an epoch-ms time. */
export function utcMonth(time: number): string {
  const d = new Date(time);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1, 2)}`;
}

/** [start, end) epoch ms of a UTC month `YYYY-MM`. */
export function monthRange(month: string): { start: number; end: number } {
  const match = MONTH.exec(month);
  if (!match) throw new Error(`invalid month ${JSON.stringify(month)} (want YYYY-MM)`);
  const year = Number(match[1]);
  const m = Number(match[2]) - 1;
  return { start: Date.UTC(year, m, 1), end: Date.UTC(year, m + 1, 1) };
}

function dayRange(day: string): { start: number; end: number } {
  const match = DAY.exec(day);
  if (!match) throw new Error(`invalid day ${JSON.stringify(day)} (want YYYY-MM-DD)`);
  const start = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  if (new Date(start).toISOString().slice(0, 10) !== day) throw new Error(`invalid day ${day}`);
  return { start, end: start + 86_400_000 };
}

function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

function priceColumns(batch: BarBatch): Float64Array[] {
  return isBidAskBatch(batch)
    ? BID_ASK_PRICE_COLUMNS.map((c) => batch[c])
    : TRADE_PRICE_COLUMNS.map((c) => batch[c]);
}

/** All columns of a batch in a fixed order: time, prices, volume. */
function allColumns(batch: BarBatch): Float64Array[] {
  return [batch.time, ...priceColumns(batch), batch.volume];
}

function emptyLike(batch: BarBatch, n: number, priceDecimals: number, volumeDecimals: number): BarBatch {
  const col = () => new Float64Array(n);
  const base = { symbol: batch.symbol, priceDecimals, volumeDecimals, length: n, time: col() };
  if (isBidAskBatch(batch)) {
    return {
      ...base,
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
  return { ...base, open: col(), high: col(), low: col(), close: col(), volume: col() };
}

function checkColumns(label: string, columns: Float64Array[], n: number): void {
  for (const column of columns) {
    if (column.length < n) throw new RangeError(`${label}: a column is shorter than length ${n}`);
    for (let i = 0; i < n; i++) {
      if (!Number.isSafeInteger(column[i])) {
        throw new RangeError(`${label}: value ${column[i]} at row ${i} is not a safe integer`);
      }
    }
  }
}

/** Multiplies by 10^shift exactly or throws. */
function rescale(values: number[] | Float64Array, shift: number, label: string): void {
  if (shift === 0) return;
  const factor = 10 ** shift;
  for (let i = 0; i < values.length; i++) {
    const v = (values[i] as number) * factor;
    if (!Number.isSafeInteger(v))
      throw new RangeError(`${label}: rescaling by 10^${shift} leaves safe integers`);
    values[i] = v;
  }
}

/** Columns of a merge input and the decimal shifts that bring its prices and volumes to the merged scale. */
type RowSource = { columns: Float64Array[]; priceShift: number; volumeShift: number };

/**
 * Sorted by time, one row per time (the last occurrence wins). Returns row indices into the batch.
 */
function sortedUniqueRows(time: Float64Array, n: number): Int32Array {
  let sorted = true;
  for (let i = 1; i < n; i++) {
    if ((time[i] as number) <= (time[i - 1] as number)) {
      sorted = false;
      break;
    }
  }
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  if (sorted) return order;
  // stable sort by time, then keep the last of equal times
  const rows = Array.from(order).sort((a, b) => (time[a] as number) - (time[b] as number) || a - b);
  const kept: number[] = [];
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k] as number;
    const next = rows[k + 1];
    if (next !== undefined && time[next] === time[row]) continue;
    kept.push(row);
  }
  return Int32Array.from(kept);
}

/**
 * Merges old rows with new rows (both sorted, unique times); on equal time the new row replaces the old.
 * Values are rescaled to the larger decimals. Returns the merged batch.
 */
function mergeBars(
  old: BarBatch | undefined,
  incoming: BarBatch,
  rows: Int32Array,
  from: number,
  to: number,
): BarBatch {
  const priceDecimals = Math.max(old?.priceDecimals ?? 0, incoming.priceDecimals);
  const volumeDecimals = Math.max(old?.volumeDecimals ?? 0, incoming.volumeDecimals);
  const make = (batch: BarBatch): RowSource => ({
    columns: allColumns(batch),
    priceShift: priceDecimals - batch.priceDecimals,
    volumeShift: volumeDecimals - batch.volumeDecimals,
  });
  const oldSource = old ? make(old) : undefined;
  const newSource = make(incoming);
  // merge plan: (source, row) pairs in time order
  const plan: Array<[RowSource, number]> = [];
  const oldTime = old?.time;
  const newTime = incoming.time;
  let i = 0;
  const oldN = old?.length ?? 0;
  let k = from;
  while (i < oldN || k < to) {
    const ot = i < oldN && oldTime ? (oldTime[i] as number) : Number.POSITIVE_INFINITY;
    const nt = k < to ? (newTime[rows[k] as number] as number) : Number.POSITIVE_INFINITY;
    if (nt <= ot) {
      plan.push([newSource, rows[k] as number]);
      k++;
      if (nt === ot) i++;
    } else {
      plan.push([oldSource as RowSource, i]);
      i++;
    }
  }
  const merged = emptyLike(incoming, plan.length, priceDecimals, volumeDecimals);
  const out = allColumns(merged);
  const last = out.length - 1;
  for (let c = 0; c < out.length; c++) {
    const target = out[c] as Float64Array;
    for (let j = 0; j < plan.length; j++) {
      const [source, row] = plan[j] as [RowSource, number];
      target[j] = (source.columns[c] as Float64Array)[row] as number;
    }
    // rescale per source, exactly
    const shiftOf = (s: RowSource) => (c === 0 ? 0 : c === last ? s.volumeShift : s.priceShift);
    for (const source of [oldSource, newSource]) {
      if (!source || shiftOf(source) === 0) continue;
      const factor = 10 ** shiftOf(source);
      for (let j = 0; j < plan.length; j++) {
        if ((plan[j] as [RowSource, number])[0] !== source) continue;
        const v = (target[j] as number) * factor;
        if (!Number.isSafeInteger(v)) {
          throw new RangeError(`${incoming.symbol}: rescaling to more decimals leaves safe integers`);
        }
        target[j] = v;
      }
    }
  }
  return merged;
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array): boolean {
  if (!a || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function encodeJson(value: unknown): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(value, null, 1)}\n`);
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

function mergeTicks(
  old: QuoteTickBatch | undefined,
  incoming: QuoteTickBatch,
  rows: number[],
): QuoteTickBatch {
  const priceDecimals = Math.max(old?.priceDecimals ?? 0, incoming.priceDecimals);
  const volumeDecimals = Math.max(old?.volumeDecimals ?? 0, incoming.volumeDecimals);
  const first = incoming.time[rows[0] as number] as number;
  const last = incoming.time[rows[rows.length - 1] as number] as number;
  type Row = [QuoteTickBatch, number];
  const before: Row[] = [];
  const after: Row[] = [];
  if (old) {
    for (let i = 0; i < old.length; i++) {
      const t = old.time[i] as number;
      if (t < first) before.push([old, i]);
      else if (t > last) after.push([old, i]);
    }
  }
  const plan: Row[] = [...before, ...rows.map((row): Row => [incoming, row]), ...after];
  const n = plan.length;
  const out: QuoteTickBatch = {
    symbol: incoming.symbol,
    priceDecimals,
    volumeDecimals,
    length: n,
    time: new Float64Array(n),
    bid: new Float64Array(n),
    ask: new Float64Array(n),
    bidVolume: new Float64Array(n),
    askVolume: new Float64Array(n),
  };
  const names = ['time', 'bid', 'ask', 'bidVolume', 'askVolume'] as const;
  for (const name of names) {
    const target = out[name];
    const decimalsOf = (b: QuoteTickBatch) =>
      name === 'time'
        ? 0
        : name === 'bid' || name === 'ask'
          ? priceDecimals - b.priceDecimals
          : volumeDecimals - b.volumeDecimals;
    plan.forEach(([batch, row], j) => {
      target[j] = batch[name][row] as number;
    });
    for (const batch of old ? [old, incoming] : [incoming]) {
      const shift = decimalsOf(batch);
      if (shift === 0) continue;
      const indices = plan.flatMap(([b], j) => (b === batch ? [j] : []));
      const values = indices.map((j) => target[j] as number);
      rescale(values, shift, `${incoming.symbol} ticks`);
      indices.forEach((j, k) => {
        target[j] = values[k] as number;
      });
    }
  }
  return out;
}

/** A BarStore over files under `<dataDir>/market` (`dataDir` is `$HINDSIGHT_DATA_DIR`). */
export function openFileBarStore(dataDir: string, options?: BarStoreOptions): BarStore {
  return new BarStore(new FileObjectStore(join(dataDir, 'market')), options);
}
