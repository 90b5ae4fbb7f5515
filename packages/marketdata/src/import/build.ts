/** Column sets of the three row kinds, and turning finished RowColumns into batches and results. */
import type { BidAskBarBatch, QuoteTickBatch, TradeBarBatch } from '@hindsight/core';
import { ImportError } from './errors.ts';
import {
  type BidAskImportResult,
  findGaps,
  type ImportResult,
  type ImportSummary,
  type PriceSide,
  type TradeImportResult,
} from './import-result.ts';
import { type ColumnGroup, RowColumns } from './rows.ts';
import { aggregateTicksToMinuteBars } from './tick-aggregation.ts';
import { formatUtc } from './time.ts';

type Columns = readonly (readonly [string, ColumnGroup])[];

export const TRADE_COLUMNS: Columns = [
  ['time', 'time'],
  ['open', 'price'],
  ['high', 'price'],
  ['low', 'price'],
  ['close', 'price'],
  ['volume', 'volume'],
];
/** Column indices in TRADE_COLUMNS. */
export const T = { open: 1, high: 2, low: 3, close: 4, volume: 5 } as const;

export const BIDASK_COLUMNS: Columns = [
  ['time', 'time'],
  ['bidOpen', 'price'],
  ['bidHigh', 'price'],
  ['bidLow', 'price'],
  ['bidClose', 'price'],
  ['askOpen', 'price'],
  ['askHigh', 'price'],
  ['askLow', 'price'],
  ['askClose', 'price'],
  ['volume', 'volume'],
];
export const BA = {
  bidOpen: 1,
  bidHigh: 2,
  bidLow: 3,
  bidClose: 4,
  askOpen: 5,
  askHigh: 6,
  askLow: 7,
  askClose: 8,
  volume: 9,
} as const;

export const TICK_COLUMNS: Columns = [
  ['time', 'time'],
  ['bid', 'price'],
  ['ask', 'price'],
  ['bidVolume', 'volume'],
  ['askVolume', 'volume'],
];
export const Q = { bid: 1, ask: 2, bidVolume: 3, askVolume: 4 } as const;

export const newTradeRows = () => new RowColumns(TRADE_COLUMNS);
export const newBidAskRows = () => new RowColumns(BIDASK_COLUMNS);
export const newTickRows = () => new RowColumns(TICK_COLUMNS);

export function tradeBatch(rows: RowColumns, symbol: string): TradeBarBatch {
  return {
    symbol,
    priceDecimals: rows.priceDecimals,
    volumeDecimals: rows.volumeDecimals,
    length: rows.length,
    time: rows.cols[0] as Float64Array,
    open: rows.cols[T.open] as Float64Array,
    high: rows.cols[T.high] as Float64Array,
    low: rows.cols[T.low] as Float64Array,
    close: rows.cols[T.close] as Float64Array,
    volume: rows.cols[T.volume] as Float64Array,
  };
}

export function bidAskBatch(rows: RowColumns, symbol: string): BidAskBarBatch {
  return {
    symbol,
    priceDecimals: rows.priceDecimals,
    volumeDecimals: rows.volumeDecimals,
    length: rows.length,
    time: rows.cols[0] as Float64Array,
    bidOpen: rows.cols[BA.bidOpen] as Float64Array,
    bidHigh: rows.cols[BA.bidHigh] as Float64Array,
    bidLow: rows.cols[BA.bidLow] as Float64Array,
    bidClose: rows.cols[BA.bidClose] as Float64Array,
    askOpen: rows.cols[BA.askOpen] as Float64Array,
    askHigh: rows.cols[BA.askHigh] as Float64Array,
    askLow: rows.cols[BA.askLow] as Float64Array,
    askClose: rows.cols[BA.askClose] as Float64Array,
    volume: rows.cols[BA.volume] as Float64Array,
  };
}

export function tickBatch(rows: RowColumns, symbol: string): QuoteTickBatch {
  return {
    symbol,
    priceDecimals: rows.priceDecimals,
    volumeDecimals: rows.volumeDecimals,
    length: rows.length,
    time: rows.cols[0] as Float64Array,
    bid: rows.cols[Q.bid] as Float64Array,
    ask: rows.cols[Q.ask] as Float64Array,
    bidVolume: rows.cols[Q.bidVolume] as Float64Array,
    askVolume: rows.cols[Q.askVolume] as Float64Array,
  };
}

interface Counts {
  rows: number;
  duplicates: number;
  outOfOrder: number;
  sources: string[];
  warnings?: string[];
  /** Name of the first source, for "no data" messages. */
  emptyLabel?: string;
}

function summarise(time: Float64Array, length: number, counts: Counts): ImportSummary {
  if (length === 0) {
    throw new ImportError(counts.sources.join(', '), undefined, 'no bars left to import');
  }
  return {
    rows: counts.rows,
    bars: length,
    first: time[0] as number,
    last: time[length - 1] as number,
    duplicates: counts.duplicates,
    gaps: findGaps(time, length),
    outOfOrder: counts.outOfOrder,
  };
}

export function tradeResult(
  rows: RowColumns,
  symbol: string,
  counts: Counts,
  priceSide: PriceSide = 'trade',
): TradeImportResult {
  const bars = tradeBatch(rows, symbol);
  return {
    kind: 'trade',
    bars,
    priceSide,
    summary: summarise(bars.time, bars.length, counts),
    sources: counts.sources,
    warnings: counts.warnings ?? [],
  };
}

export function bidAskResult(
  bars: BidAskBarBatch,
  counts: Counts,
  ticks?: QuoteTickBatch,
): BidAskImportResult {
  const summary = summarise(bars.time, bars.length, counts);
  const result: BidAskImportResult = {
    kind: 'bidask',
    bars,
    priceSide: 'bidask',
    summary,
    sources: counts.sources,
    warnings: counts.warnings ?? [],
  };
  if (ticks !== undefined) {
    result.ticks = ticks;
    summary.ticks = ticks.length;
  }
  return result;
}

/** Ticks (finished) to a result holding both the ticks and their exact 1-minute bars. */
export function tickResult(rows: RowColumns, symbol: string, counts: Counts): BidAskImportResult {
  const ticks = tickBatch(rows, symbol);
  let bars: BidAskBarBatch;
  try {
    bars = aggregateTicksToMinuteBars(ticks);
  } catch (error) {
    throw new ImportError(counts.sources.join(', '), undefined, (error as Error).message);
  }
  return bidAskResult(bars, counts, ticks);
}

/**
 * Joins separately read BID and ASK bars (both finished, so sorted and unique) into bid/ask bars: both
 * must hold the same minutes. Volume is the sum of both sides' volumes.
 */
export function joinSides(bid: RowColumns, ask: RowColumns, symbol: string): BidAskBarBatch {
  const priceDecimals = Math.max(bid.priceDecimals, ask.priceDecimals);
  const volumeDecimals = Math.max(bid.volumeDecimals, ask.volumeDecimals);
  for (const side of [bid, ask]) {
    if (!side.scaleTo(priceDecimals, volumeDecimals)) {
      throw new ImportError(
        side.files.join(', '),
        undefined,
        'prices do not fit one exact scale with the other side',
      );
    }
  }
  const n = bid.length;
  const bt = bid.cols[0] as Float64Array;
  const at = ask.cols[0] as Float64Array;
  for (let i = 0; i < Math.max(n, ask.length); i++) {
    const b = bt[i];
    const a = at[i];
    if (b !== a) {
      if (a === undefined || (b !== undefined && b < a)) {
        throw bid.errorAt(
          i,
          `no ASK bar at ${formatUtc(b as number)}: BID and ASK files must hold the same minutes`,
        );
      }
      throw ask.errorAt(i, `no BID bar at ${formatUtc(a)}: BID and ASK files must hold the same minutes`);
    }
  }
  const volume = new Float64Array(n);
  const bv = bid.cols[T.volume] as Float64Array;
  const av = ask.cols[T.volume] as Float64Array;
  for (let i = 0; i < n; i++) {
    volume[i] = (bv[i] as number) + (av[i] as number);
    if (!Number.isSafeInteger(volume[i])) throw bid.errorAt(i, 'bid + ask volume exceeds the exact range');
  }
  return {
    symbol,
    priceDecimals,
    volumeDecimals,
    length: n,
    time: bt,
    bidOpen: bid.cols[T.open] as Float64Array,
    bidHigh: bid.cols[T.high] as Float64Array,
    bidLow: bid.cols[T.low] as Float64Array,
    bidClose: bid.cols[T.close] as Float64Array,
    askOpen: ask.cols[T.open] as Float64Array,
    askHigh: ask.cols[T.high] as Float64Array,
    askLow: ask.cols[T.low] as Float64Array,
    askClose: ask.cols[T.close] as Float64Array,
    volume,
  };
}

export type { ImportResult };
