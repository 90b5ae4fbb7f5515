import type { Timeframe } from '../timeframes.ts';
import type { BidAskBarBatch } from './bars.ts';
import { bucketStart, type SessionCalendar, TIMEFRAME_MS } from './sessions.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * The [start, end) span of the `timeframe` bar containing `t`. Days and weeks follow the calendar
 * (DST makes some New York days 23 or 25 hours), so their end is the next bucket's start.
 */
export function bucketSpan(timeframe: Timeframe, calendar: SessionCalendar, t: number): [number, number] {
  const start = bucketStart(timeframe, calendar, t);
  if (timeframe === '1d') return [start, bucketStart('1d', calendar, start + DAY_MS + 2 * HOUR_MS)];
  if (timeframe === '1w') return [start, bucketStart('1w', calendar, start + 7 * DAY_MS + 2 * HOUR_MS)];
  return [start, start + TIMEFRAME_MS[timeframe]];
}

const emptyLike = (source: BidAskBarBatch, capacity: number): BidAskBarBatch => ({
  symbol: source.symbol,
  priceDecimals: source.priceDecimals,
  volumeDecimals: source.volumeDecimals,
  length: 0,
  time: new Float64Array(capacity),
  bidOpen: new Float64Array(capacity),
  bidHigh: new Float64Array(capacity),
  bidLow: new Float64Array(capacity),
  bidClose: new Float64Array(capacity),
  askOpen: new Float64Array(capacity),
  askHigh: new Float64Array(capacity),
  askLow: new Float64Array(capacity),
  askClose: new Float64Array(capacity),
  volume: new Float64Array(capacity),
});

/**
 * Aggregates base bars (sorted by time) into `timeframe` bars stamped with their bucket start: open
 * of the first base bar, extremes over the bucket, close of the last, summed volume, per side. A
 * bucket without base bars produces no bar; nothing is forward-filled.
 */
export function resampleBars(
  bars: BidAskBarBatch,
  timeframe: Timeframe,
  calendar: SessionCalendar,
): BidAskBarBatch {
  const out = emptyLike(bars, bars.length);
  let end = Number.NEGATIVE_INFINITY;
  let k = -1;
  for (let i = 0; i < bars.length; i++) {
    const t = bars.time[i] as number;
    if (t >= end) {
      const span = bucketSpan(timeframe, calendar, t);
      end = span[1];
      k++;
      out.time[k] = span[0];
      out.bidOpen[k] = bars.bidOpen[i] as number;
      out.bidHigh[k] = bars.bidHigh[i] as number;
      out.bidLow[k] = bars.bidLow[i] as number;
      out.askOpen[k] = bars.askOpen[i] as number;
      out.askHigh[k] = bars.askHigh[i] as number;
      out.askLow[k] = bars.askLow[i] as number;
      out.volume[k] = 0;
    } else {
      if ((bars.bidHigh[i] as number) > (out.bidHigh[k] as number))
        out.bidHigh[k] = bars.bidHigh[i] as number;
      if ((bars.bidLow[i] as number) < (out.bidLow[k] as number)) out.bidLow[k] = bars.bidLow[i] as number;
      if ((bars.askHigh[i] as number) > (out.askHigh[k] as number))
        out.askHigh[k] = bars.askHigh[i] as number;
      if ((bars.askLow[i] as number) < (out.askLow[k] as number)) out.askLow[k] = bars.askLow[i] as number;
    }
    out.bidClose[k] = bars.bidClose[i] as number;
    out.askClose[k] = bars.askClose[i] as number;
    out.volume[k] = (out.volume[k] as number) + (bars.volume[i] as number);
  }
  out.length = k + 1;
  return out;
}
