import type { BidAskBarBatch, SpreadModel } from '@hindsight/core';
import type { BarBatch, MonthIndexEntry, SymbolIndex } from './bar-store.ts';
import { barChunkValues, isBidAskBatch } from './codec/bars.ts';
import { deriveBidAsk } from './spread.ts';

/**
 * Where replay reads bars from: a per-symbol index of months and whole months of bars. `BarStore` is one;
 * anything else with the same two methods (another format, a cache) can be replayed the same way.
 */
export interface BarSource {
  index(symbol: string): Promise<SymbolIndex | undefined>;
  readMonth(symbol: string, month: string): Promise<BarBatch | undefined>;
  /**
   * Optional two-phase read: fetch the bytes now, decode on call (into `scratch` when given and large enough).
   * Replay prefetches through it when present, and recycles buffers through `scratch`.
   */
  fetchMonth?(symbol: string, month: string): Promise<((scratch?: Float64Array) => BarBatch) | undefined>;
}

export interface ReplayOptions {
  /**
   * Fetch each instrument's next month while the current one plays (default true). With a source that has
   * `fetchMonth` (BarStore) only the next chunk's compressed bytes are held ahead; decoding stays lazy. Without
   * it, the next month is held decoded (two chunks per instrument at most).
   */
  prefetch?: boolean;
  /**
   * Decode each instrument's next month into the buffers of the month it has passed, and hand the buffers of a
   * finished replay to the next one through a bounded process-wide pool (default true): no fresh memory per
   * chunk, so no page faults and little garbage. A batch handed out is then overwritten once the cursor has left
   * it (also after the stream has ended); set false to keep batches intact for good.
   */
  reuseBuffers?: boolean;
}

type Fetched = Promise<((scratch?: Float64Array) => BarBatch) | undefined>;

export interface ReplayInstrument {
  symbol: string;
  /** Applied to trade-only bars (bid/ask derived exactly); bars stored with bid/ask are used as stored. */
  spreadModel: SpreadModel;
}

/** Bar starts in [start, end), epoch ms UTC. */
export interface ReplayWindow {
  start: number;
  end: number;
}

export interface ReplayStats {
  /** Chunks decoded so far. */
  chunksLoaded: number;
  /** Bars decoded so far (whole chunks, including bars outside the window). */
  barsDecoded: number;
  /** Most chunks held at once (at most one per instrument). */
  maxChunksHeld: number;
}

/**
 * Buffers of finished replays, shared by later ones in the process (a server runs many replays): bounded, so
 * memory stays bounded; only buffers of readers with `reuseBuffers` (whose batches are void once passed) get here.
 */
const SHARED_POOL_LIMIT_BYTES = 64 * 2 ** 20;
const sharedPool: Float64Array[] = [];
let sharedPoolBytes = 0;

/** The smallest pooled buffer of at least `values` values, removed from the pool; undefined when none fits. */
function takeBuffer(values: number): Float64Array | undefined {
  let best = -1;
  for (let i = 0; i < sharedPool.length; i++) {
    const length = (sharedPool[i] as Float64Array).length;
    if (length >= values && (best < 0 || length < (sharedPool[best] as Float64Array).length)) best = i;
  }
  if (best < 0) return undefined;
  const [buffer] = sharedPool.splice(best, 1) as [Float64Array];
  sharedPoolBytes -= buffer.byteLength;
  return buffer;
}

function returnBuffer(buffer: Float64Array): void {
  if (sharedPoolBytes + buffer.byteLength > SHARED_POOL_LIMIT_BYTES) return;
  sharedPool.push(buffer);
  sharedPoolBytes += buffer.byteLength;
}

function barChunkValuesOf(entry: MonthIndexEntry | undefined): number {
  return entry ? barChunkValues(entry.kind, entry.count) : 0;
}

/** First index in `time[0..n)` with time >= t. */
function lowerBound(time: Float64Array, n: number, t: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((time[mid] as number) < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const EMPTY_TIME = new Float64Array(0);

/**
 * Replays stored base bars (1m) of several instruments as one stream ordered by (time, instrument order), for a
 * window [start, end). It is a cursor over columnar batches, with no object per bar:
 *
 * ```ts
 * const replay = new ReplayReader(barStore, [{ symbol: 'C:BTCUSD', spreadModel }], { start, end });
 * while (await replay.fill()) {
 *   while (replay.next()) {
 *     const { batch, row, symbolIndex, time } = replay; // batch.bidClose[row] / 10 ** batch.priceDecimals …
 *   }
 * }
 * ```
 *
 * `next()` is synchronous and returns false when the stream ends or a chunk must be read first; `fill()` reads
 * the chunks needed next and returns false once the stream is exhausted. Chunks (one per instrument and month)
 * are decoded lazily, only when the stream reaches them (the index's first bar time of each month tells when), and
 * released when passed: one decoded chunk per instrument is held (plus, by default, the next month's compressed
 * bytes, fetched ahead), so memory stays flat whatever the window.
 * All bars of one time come out together, in instrument order. Missing bars and months are simply absent.
 * A batch is valid until the cursor leaves it; copy values to keep them. Prices of a batch are at its own
 * `priceDecimals` (trade bars under `half_spread_bps` gain decimals, see deriveBidAsk).
 */
export class ReplayReader {
  /** Instrument of the current bar (index into the instruments given). */
  symbolIndex = -1;
  /** Row of the current bar in `batch`. */
  row = -1;
  /** Bar start of the current bar, epoch ms. */
  time = Number.NaN;
  /** Batch holding the current bar. */
  batch: BidAskBarBatch | undefined;

  readonly stats: ReplayStats = { chunksLoaded: 0, barsDecoded: 0, maxChunksHeld: 0 };

  private readonly n: number;
  /** Time of each instrument's next bar; a lower bound when its chunk is not loaded; Infinity when done. */
  private readonly head: Float64Array;
  private readonly loaded: Uint8Array;
  private readonly rows: Int32Array;
  private readonly endRows: Int32Array;
  private readonly times: Float64Array[];
  private readonly batches: (BidAskBarBatch | undefined)[];
  private months: string[][] = [];
  private lowerBounds: number[][] = [];
  private readonly nextMonth: Int32Array;
  private groupTime = Number.NEGATIVE_INFINITY;
  private scan = 0;
  /** Run mode (see next()): the instrument running alone, the time its run must stay below, its times. */
  private runK = -1;
  private runLimit = Number.POSITIVE_INFINITY;
  private runTimes: Float64Array = EMPTY_TIME;
  private held = 0;
  private initialized = false;
  private finished = false;
  private readonly prefetch: boolean;
  private readonly reuse: boolean;
  /** Per instrument: the buffers of the current chunk that this reader supplied (and may recycle). */
  private readonly ownStored: (Float64Array | undefined)[];
  private readonly ownDerived: (Float64Array | undefined)[];
  /** Per instrument: buffers of passed chunks, for decoding (`storedSpare`) and deriving (`derivedSpare`). */
  private readonly storedSpare: (Float64Array | undefined)[];
  private readonly derivedSpare: (Float64Array | undefined)[];
  private entries: MonthIndexEntry[][] = [];
  /** Per instrument: the fetch of month `nextMonth[k]`, when started ahead. */
  private readonly fetched: (Fetched | undefined)[];

  constructor(
    private readonly source: BarSource,
    readonly instruments: readonly ReplayInstrument[],
    readonly window: ReplayWindow,
    options: ReplayOptions = {},
  ) {
    this.prefetch = options.prefetch ?? true;
    this.reuse = options.reuseBuffers ?? true;
    if (!(Number.isFinite(window.start) && Number.isFinite(window.end) && window.start <= window.end)) {
      throw new RangeError('replay window must be finite with start <= end');
    }
    const n = instruments.length;
    this.n = n;
    this.head = new Float64Array(n).fill(Number.POSITIVE_INFINITY);
    this.loaded = new Uint8Array(n);
    this.rows = new Int32Array(n);
    this.endRows = new Int32Array(n);
    this.times = Array.from({ length: n }, () => EMPTY_TIME);
    this.batches = Array.from({ length: n }, () => undefined);
    this.nextMonth = new Int32Array(n);
    this.fetched = Array.from({ length: n }, () => undefined);
    this.ownStored = Array.from({ length: n }, () => undefined);
    this.ownDerived = Array.from({ length: n }, () => undefined);
    this.storedSpare = Array.from({ length: n }, () => undefined);
    this.derivedSpare = Array.from({ length: n }, () => undefined);
    this.scan = n;
  }

  private fetch(k: number, m: number): Fetched {
    const symbol = (this.instruments[k] as ReplayInstrument).symbol;
    const month = (this.months[k] as string[])[m] as string;
    const source = this.source;
    if (source.fetchMonth) return source.fetchMonth(symbol, month);
    return source.readMonth(symbol, month).then((batch) => batch && (() => batch));
  }

  private async init(): Promise<void> {
    const { start, end } = this.window;
    const indexes = await Promise.all(this.instruments.map((i) => this.source.index(i.symbol)));
    this.months = [];
    this.lowerBounds = [];
    this.entries = [];
    indexes.forEach((index, k) => {
      const entries = Object.entries(index?.months ?? {})
        .filter(([, e]: [string, MonthIndexEntry]) => e.count > 0 && e.last >= start && e.first < end)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      this.months.push(entries.map(([month]) => month));
      this.entries.push(entries.map(([, e]) => e));
      this.lowerBounds.push(entries.map(([, e]) => Math.max(e.first, start)));
      this.head[k] =
        entries.length > 0 ? Math.max((entries[0] as [string, MonthIndexEntry])[1].first, start) : Infinity;
    });
    this.initialized = true;
  }

  /** The instrument's chunk is passed: aim at its next month (not yet read) or mark it done. */
  private release(k: number): void {
    if (this.loaded[k] === 1) this.held--;
    this.loaded[k] = 0;
    // keep this reader's buffers for the next month of the instrument (see ReplayOptions.reuseBuffers)
    if (this.ownStored[k]) this.storedSpare[k] = this.ownStored[k];
    if (this.ownDerived[k]) this.derivedSpare[k] = this.ownDerived[k];
    this.ownStored[k] = undefined;
    this.ownDerived[k] = undefined;
    this.batches[k] = undefined;
    this.times[k] = EMPTY_TIME;
    const m = this.nextMonth[k] as number;
    const bounds = this.lowerBounds[k] as number[];
    this.head[k] = m < bounds.length ? (bounds[m] as number) : Number.POSITIVE_INFINITY;
  }

  /**
   * A buffer of at least `values` Float64 values for instrument k: its spare one when large enough, else a new
   * one (a quarter larger, so months of varying length settle quickly). Undefined when buffers are not reused
   * (the decoder then allocates) or the size is unknown.
   */
  private spare(pool: (Float64Array | undefined)[], k: number, values: number): Float64Array | undefined {
    if (!this.reuse || values <= 0) return undefined;
    const spare = pool[k];
    pool[k] = undefined;
    if (spare && spare.length >= values) return spare;
    if (spare) returnBuffer(spare);
    return takeBuffer(values) ?? new Float64Array(Math.ceil(values * 1.25));
  }

  /** The stream is over: this reader's buffers go to the shared pool for the next reader. */
  private finish(): void {
    if (!this.reuse || this.finished) return;
    this.finished = true;
    for (const pool of [this.storedSpare, this.derivedSpare, this.ownStored, this.ownDerived]) {
      for (let k = 0; k < pool.length; k++) {
        const buffer = pool[k];
        if (buffer) returnBuffer(buffer);
        pool[k] = undefined;
      }
    }
  }

  /** The scratch buffer if `column` lives in it (the source used it), else undefined; an unused one goes back. */
  private adopt(
    pool: (Float64Array | undefined)[],
    k: number,
    scratch: Float64Array | undefined,
    column: Float64Array,
  ): Float64Array | undefined {
    if (!scratch) return undefined;
    if (column.buffer === scratch.buffer) return scratch;
    pool[k] = scratch;
    return undefined;
  }

  private async load(k: number): Promise<void> {
    const instrument = this.instruments[k] as ReplayInstrument;
    const months = this.months[k] as string[];
    for (;;) {
      const m = this.nextMonth[k] as number;
      if (m >= months.length) {
        this.head[k] = Number.POSITIVE_INFINITY;
        return;
      }
      const pending = this.fetched[k] ?? this.fetch(k, m);
      this.fetched[k] = undefined;
      const decode = await pending;
      this.nextMonth[k] = m + 1;
      if (this.prefetch && m + 1 < months.length) {
        const ahead = this.fetch(k, m + 1);
        ahead.catch(() => undefined); // a failure surfaces when the month is awaited, not as an unhandled rejection
        this.fetched[k] = ahead;
      }
      if (!decode) {
        this.release(k);
        continue;
      }
      const scratch = this.spare(this.storedSpare, k, barChunkValuesOf(this.entries[k]?.[m]));
      const stored = decode(scratch);
      this.stats.chunksLoaded++;
      this.stats.barsDecoded += stored.length;
      this.ownStored[k] = this.adopt(this.storedSpare, k, scratch, stored.time);
      let batch: BidAskBarBatch;
      if (isBidAskBatch(stored)) batch = stored;
      else {
        const copies = instrument.spreadModel.kind !== 'zero'; // `zero` shares the trade columns
        const derivedScratch = copies ? this.spare(this.derivedSpare, k, 8 * stored.length) : undefined;
        batch = deriveBidAsk(stored, instrument.spreadModel, derivedScratch);
        this.ownDerived[k] = this.adopt(this.derivedSpare, k, derivedScratch, batch.bidOpen);
      }
      const first = lowerBound(batch.time, batch.length, this.window.start);
      const last = lowerBound(batch.time, batch.length, this.window.end);
      const bound = (this.lowerBounds[k] as number[])[m] as number;
      if (first < last && (batch.time[first] as number) < bound) {
        // the stream may already be past this bar: refuse rather than emit out of order
        throw new Error(
          `${instrument.symbol} ${months[m]}: bars before the indexed first bar; run rebuildIndex`,
        );
      }
      if (first >= last) {
        this.release(k);
        continue;
      }
      this.batches[k] = batch;
      this.times[k] = batch.time;
      this.rows[k] = first;
      this.endRows[k] = last;
      this.head[k] = batch.time[first] as number;
      this.loaded[k] = 1;
      this.held++;
      if (this.held > this.stats.maxChunksHeld) this.stats.maxChunksHeld = this.held;
      return;
    }
  }

  /**
   * Reads the chunks the stream needs next. Returns true when `next()` has bars to give, false when the
   * stream is exhausted.
   */
  async fill(): Promise<boolean> {
    if (!this.initialized) await this.init();
    const head = this.head;
    for (;;) {
      let min = Number.POSITIVE_INFINITY;
      for (let k = 0; k < this.n; k++) if ((head[k] as number) < min) min = head[k] as number;
      if (min === Number.POSITIVE_INFINITY) {
        this.finish();
        return false;
      }
      const pending: number[] = [];
      for (let k = 0; k < this.n; k++) if (head[k] === min && this.loaded[k] === 0) pending.push(k);
      if (pending.length === 0) return true;
      await Promise.all(pending.map((k) => this.load(k)));
    }
  }

  /**
   * Moves to the next bar; false when a chunk must be read first (call `fill()`) or the stream is exhausted
   * (`fill()` then returns false).
   */
  next(): boolean {
    // fast path: a run of one instrument whose bars all come before any other instrument's next bar
    const rk = this.runK;
    if (rk >= 0) {
      const r = this.rows[rk] as number;
      if (r < (this.endRows[rk] as number)) {
        const t = this.runTimes[r] as number;
        if (t < this.runLimit) {
          this.row = r;
          this.time = t;
          this.rows[rk] = r + 1;
          return true;
        }
        this.head[rk] = t;
      } else {
        this.release(rk);
      }
      this.runK = -1;
      this.scan = this.n;
    }
    const n = this.n;
    const head = this.head;
    const t = this.groupTime;
    // rest of the group of time t, in instrument order
    for (let k = this.scan + 1; k < n; k++) {
      if (head[k] === t) {
        this.emit(k, t);
        return true;
      }
    }
    // the next group: the smallest head (min), and the next larger head (limit)
    let min = Number.POSITIVE_INFINITY;
    let limit = Number.POSITIVE_INFINITY;
    let count = 0;
    let first = -1;
    let unloaded = false;
    for (let k = 0; k < n; k++) {
      const h = head[k] as number;
      if (h < min) {
        limit = min;
        min = h;
        count = 1;
        first = k;
        unloaded = this.loaded[k] === 0;
      } else if (h === min) {
        count++;
        if (this.loaded[k] === 0) unloaded = true;
      } else if (h < limit) {
        limit = h;
      }
    }
    if (min === Number.POSITIVE_INFINITY || unloaded) return false;
    this.groupTime = min;
    if (count === 1) {
      // one instrument alone at the front: it runs until its bars reach the next instrument's
      this.runK = first;
      this.runLimit = limit;
      this.runTimes = this.times[first] as Float64Array;
      const r = this.rows[first] as number;
      this.symbolIndex = first;
      this.row = r;
      this.time = min;
      this.batch = this.batches[first];
      this.rows[first] = r + 1;
      return true;
    }
    this.emit(first, min);
    return true;
  }

  /** Emits the head bar of instrument k (at time t) and advances it. */
  private emit(k: number, t: number): void {
    const r = this.rows[k] as number;
    this.symbolIndex = k;
    this.row = r;
    this.time = t;
    this.batch = this.batches[k];
    this.scan = k;
    const nr = r + 1;
    if (nr < (this.endRows[k] as number)) {
      this.rows[k] = nr;
      this.head[k] = (this.times[k] as Float64Array)[nr] as number;
    } else {
      this.release(k);
    }
  }

  /** Runs the whole replay, calling `onBar` for every bar; returns the number of bars. */
  async forEach(onBar: (batch: BidAskBarBatch, row: number, symbolIndex: number) => void): Promise<number> {
    let count = 0;
    while (await this.fill()) {
      while (this.next()) {
        onBar(this.batch as BidAskBarBatch, this.row, this.symbolIndex);
        count++;
      }
    }
    return count;
  }
}
