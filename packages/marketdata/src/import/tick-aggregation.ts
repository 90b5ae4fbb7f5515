/**
 * Ticks (top-of-book quotes) to the base 1-minute bid/ask series, exactly: per minute and side,
 * open = first, high = max, low = min, close = last; volume = sum of bid and ask volumes of the
 * minute's ticks. A minute without ticks has no bar. Integer arithmetic on the ticks' scale only.
 */
import type { BidAskBarBatch, QuoteTickBatch } from '@hindsight/core';
import { MINUTE_MS } from './time.ts';

/** `ticks` must be sorted by time (as importers return them). */
export function aggregateTicksToMinuteBars(ticks: QuoteTickBatch): BidAskBarBatch {
  const n = ticks.length;
  const { time, bid, ask, bidVolume, askVolume } = ticks;
  let bars = 0;
  let previous = Number.NaN;
  for (let i = 0; i < n; i++) {
    const minute = Math.floor((time[i] as number) / MINUTE_MS);
    if (i > 0 && minute < previous) throw new Error('ticks must be sorted by time');
    if (minute !== previous) bars++;
    previous = minute;
  }
  const out: BidAskBarBatch = {
    symbol: ticks.symbol,
    priceDecimals: ticks.priceDecimals,
    volumeDecimals: ticks.volumeDecimals,
    length: bars,
    time: new Float64Array(bars),
    bidOpen: new Float64Array(bars),
    bidHigh: new Float64Array(bars),
    bidLow: new Float64Array(bars),
    bidClose: new Float64Array(bars),
    askOpen: new Float64Array(bars),
    askHigh: new Float64Array(bars),
    askLow: new Float64Array(bars),
    askClose: new Float64Array(bars),
    volume: new Float64Array(bars),
  };
  let b = -1;
  previous = Number.NaN;
  for (let i = 0; i < n; i++) {
    const minute = Math.floor((time[i] as number) / MINUTE_MS);
    const bi = bid[i] as number;
    const ai = ask[i] as number;
    const v = (bidVolume[i] as number) + (askVolume[i] as number);
    if (minute !== previous) {
      b++;
      previous = minute;
      out.time[b] = minute * MINUTE_MS;
      out.bidOpen[b] = bi;
      out.bidHigh[b] = bi;
      out.bidLow[b] = bi;
      out.askOpen[b] = ai;
      out.askHigh[b] = ai;
      out.askLow[b] = ai;
      out.volume[b] = v;
    } else {
      if (bi > (out.bidHigh[b] as number)) out.bidHigh[b] = bi;
      if (bi < (out.bidLow[b] as number)) out.bidLow[b] = bi;
      if (ai > (out.askHigh[b] as number)) out.askHigh[b] = ai;
      if (ai < (out.askLow[b] as number)) out.askLow[b] = ai;
      out.volume[b] = (out.volume[b] as number) + v;
    }
    out.bidClose[b] = bi;
    out.askClose[b] = ai;
  }
  for (let k = 0; k < bars; k++) {
    if (!Number.isSafeInteger(out.volume[k])) throw new Error('tick volume sum exceeds exact range');
  }
  return out;
}
