import {
  type BidAskBarBatch,
  bucketSpan,
  bucketStart,
  calendarOf,
  type MarketId,
  resampleBars,
  type SessionCalendar,
  TIMEFRAMES,
  type Timeframe,
  ticksToDecimalString,
} from '@hindsight/core';
import { type BarBatch, type BarStore, isBidAskBatch, monthRange } from '@hindsight/marketdata';

/**
 * Candles of one instrument over a window, for the web app's charts, built the way the engine builds
 * the candle events a strategy receives (engine candle-aggregator, gateway bar-history): per base bar
 * the mid of bid and ask (for trade-only data that is the traded price, the spread model being
 * symmetric), then core's `resampleBars` per bucket of the market's calendar. Months are read and
 * resampled one at a time, so memory follows one month of base bars, not the window.
 */

export interface SeriesCandle {
  time: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}

/** Buckets of `timeframe` that [from, to) touches, counted up to `cap + 1` (enough to say "too many"). */
export function bucketCount(
  timeframe: Timeframe,
  calendar: SessionCalendar,
  from: number,
  to: number,
  cap: number,
) {
  let count = 0;
  for (let start = bucketStart(timeframe, calendar, from); start < to && count <= cap; count++) {
    start = bucketSpan(timeframe, calendar, start)[1];
  }
  return count;
}

/** The smallest standard timeframe with at most `maxPoints` buckets over the window, if any. */
export function smallestFitting(calendar: SessionCalendar, from: number, to: number, maxPoints: number) {
  return TIMEFRAMES.find((tf) => bucketCount(tf, calendar, from, to, maxPoints) <= maxPoints);
}

/** One resampled candle in integer ticks (price at `decimals`, volume at `volumeDecimals`). */
interface TickCandle {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}

const emptyMids = (symbol: string, n: number, decimals: number, volumeDecimals: number) => {
  const time = new Float64Array(n);
  const open = new Float64Array(n);
  const high = new Float64Array(n);
  const low = new Float64Array(n);
  const close = new Float64Array(n);
  const batch: BidAskBarBatch = {
    symbol,
    priceDecimals: decimals,
    volumeDecimals,
    length: 0,
    time,
    // Bid and ask are both the mid, so the resampled bid side is the candle of the mids.
    bidOpen: open,
    bidHigh: high,
    bidLow: low,
    bidClose: close,
    askOpen: open,
    askHigh: high,
    askLow: low,
    askClose: close,
    volume: new Float64Array(n),
  };
  return batch;
};

/**
 * The stored month's base bars in [from, to) as mids at `decimals` (bid/ask: (bid + ask) x 5 at the
 * chunk's decimals + 1; trade: the price), volumes at `volumeDecimals`.
 */
function midsOf(stored: BarBatch, from: number, to: number, decimals: number, volumeDecimals: number) {
  const out = emptyMids(stored.symbol, stored.length, decimals, volumeDecimals);
  const bidAsk = isBidAskBatch(stored);
  const scale = 10 ** (decimals - stored.priceDecimals - (bidAsk ? 1 : 0));
  const volumeScale = 10 ** (volumeDecimals - stored.volumeDecimals);
  let k = 0;
  for (let i = 0; i < stored.length; i++) {
    const t = stored.time[i] as number;
    if (t < from) continue;
    if (t >= to) break;
    out.time[k] = t;
    if (bidAsk) {
      out.bidOpen[k] = ((stored.bidOpen[i] as number) + (stored.askOpen[i] as number)) * 5 * scale;
      out.bidHigh[k] = ((stored.bidHigh[i] as number) + (stored.askHigh[i] as number)) * 5 * scale;
      out.bidLow[k] = ((stored.bidLow[i] as number) + (stored.askLow[i] as number)) * 5 * scale;
      out.bidClose[k] = ((stored.bidClose[i] as number) + (stored.askClose[i] as number)) * 5 * scale;
    } else {
      out.bidOpen[k] = (stored.open[i] as number) * scale;
      out.bidHigh[k] = (stored.high[i] as number) * scale;
      out.bidLow[k] = (stored.low[i] as number) * scale;
      out.bidClose[k] = (stored.close[i] as number) * scale;
    }
    out.volume[k] = (stored.volume[i] as number) * volumeScale;
    k++;
  }
  out.length = k;
  return out;
}

export interface SeriesInstrument {
  symbol: string;
  market: MarketId;
}

export async function candleSeries(
  store: BarStore,
  instrument: SeriesInstrument,
  timeframe: Timeframe,
  from: number,
  to: number,
): Promise<SeriesCandle[]> {
  const index = await store.index(instrument.symbol);
  const months = Object.entries(index?.months ?? {})
    .filter(([month]) => {
      const range = monthRange(month);
      return range.start < to && range.end > from;
    })
    .sort(([a], [b]) => (a < b ? -1 : 1));
  if (months.length === 0) return [];
  // One scale for the whole series, from the index (no chunk decoded for it): every month's mids fit.
  const decimals = Math.max(...months.map(([, e]) => e.priceDecimals + (e.kind === 'bidask' ? 1 : 0)));
  const volumeDecimals = Math.max(...months.map(([, e]) => e.volumeDecimals));
  const calendar = calendarOf(instrument.market);
  const candles: TickCandle[] = [];
  for (const [month] of months) {
    const stored = await store.readMonth(instrument.symbol, month);
    if (!stored || stored.length === 0) continue;
    const mids = midsOf(stored, from, to, decimals, volumeDecimals);
    if (mids.length === 0) continue;
    const bars = resampleBars(mids, timeframe, calendar);
    for (let i = 0; i < bars.length; i++) {
      const candle: TickCandle = {
        time: bars.time[i] as number,
        open: bars.bidOpen[i] as number,
        high: bars.bidHigh[i] as number,
        low: bars.bidLow[i] as number,
        close: bars.bidClose[i] as number,
        volume: bars.volume[i] as number,
      };
      const previous = candles.at(-1);
      // A bucket that spans two months (a week, an FX day) is resampled in both: join its halves.
      if (previous?.time === candle.time) {
        previous.high = Math.max(previous.high, candle.high);
        previous.low = Math.min(previous.low, candle.low);
        previous.close = candle.close;
        previous.volume += candle.volume;
      } else candles.push(candle);
    }
  }
  const price = (ticks: number) => ticksToDecimalString(ticks, decimals);
  return candles.map((c) => ({
    time: c.time,
    open: price(c.open),
    high: price(c.high),
    low: price(c.low),
    close: price(c.close),
    volume: ticksToDecimalString(c.volume, volumeDecimals),
  }));
}
