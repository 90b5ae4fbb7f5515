/**
 * Chart data for the run page, computed once per load: the result files' decimal strings parsed to
 * numbers a single time (display only: charts plot floats, exact values stay in the tables and the
 * CSV), times converted from epoch ms to the UTC seconds lightweight-charts takes, and trade markers
 * placed on the candles they fell in. No DOM here.
 */
import type { Candle, Timeseries, TradeLot } from '../api/internal.ts';

/** Parallel arrays, ready for `setData`: seconds, NAV, balance and drawdown in percent (<= 0). */
export interface EquitySeries {
  times: number[];
  nav: number[];
  balance: number[];
  drawdownPct: number[];
}

/**
 * One pass over the timeseries. Samples are strictly increasing in ms; two in the same second would
 * break the chart's strictly-ascending rule, so the later one wins.
 */
export function equitySeries(timeseries: Timeseries): EquitySeries {
  const { timestamps, nav, units } = timeseries;
  const out: EquitySeries = { times: [], nav: [], balance: [], drawdownPct: [] };
  let peak = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < timestamps.length; i++) {
    const time = Math.floor((timestamps[i] as number) / 1000);
    const navValue = Number(nav[i]);
    const balanceValue = Number(units[i]);
    if (navValue > peak) peak = navValue;
    const drawdown = peak > 0 ? ((navValue - peak) / peak) * 100 : 0;
    const last = out.times.length - 1;
    if (last >= 0 && out.times[last] === time) {
      out.nav[last] = navValue;
      out.balance[last] = balanceValue;
      out.drawdownPct[last] = drawdown;
    } else {
      out.times.push(time);
      out.nav.push(navValue);
      out.balance.push(balanceValue);
      out.drawdownPct.push(drawdown);
    }
  }
  return out;
}

export interface CandlePoint {
  time: number;
  open: number;
  high: number;
  low: number;
  close: number;
}

export function candlePoints(candles: readonly Candle[]): CandlePoint[] {
  return candles.map((c) => ({
    time: Math.floor(c.time / 1000),
    open: Number(c.open),
    high: Number(c.high),
    low: Number(c.low),
    close: Number(c.close),
  }));
}

export interface TradeMarker {
  time: number;
  position: 'aboveBar' | 'belowBar';
  shape: 'arrowUp' | 'arrowDown';
  color: string;
  text: string;
}

/** Long lots in blue, short lots in orange (both readable on white); the arrow says buy or sell. */
export const LONG_COLOUR = '#0b5cad';
export const SHORT_COLOUR = '#b54708';

/**
 * Entry and exit markers of one instrument's trades: a buy is an up arrow under the bar, a sell a down
 * arrow over it (a long opens with a buy and closes with a sell, a short the other way round), coloured
 * by the lot's direction, labelled with its units. Each is moved to the open time of the candle it
 * happened in (the last candle opening at or before it), so markers sit on bars at any timeframe;
 * the list is sorted by time, as the chart requires.
 */
export function tradeMarkers(trades: readonly TradeLot[], symbol: string, candleTimes: readonly number[]) {
  const markers: TradeMarker[] = [];
  if (candleTimes.length === 0) return markers;
  const snap = (ms: number) =>
    candleTimes[Math.max(0, lastAtOrBefore(candleTimes, Math.floor(ms / 1000)))] as number;
  const buy = (time: number, units: string, what: string, color: string): TradeMarker => ({
    time,
    position: 'belowBar',
    shape: 'arrowUp',
    color,
    text: `Buy ${units} ${what}`,
  });
  const sell = (time: number, units: string, what: string, color: string): TradeMarker => ({
    time,
    position: 'aboveBar',
    shape: 'arrowDown',
    color,
    text: `Sell ${units} ${what}`,
  });
  for (const trade of trades) {
    if (trade.instrument_symbol !== symbol) continue;
    const long = trade.direction === 'Long';
    const color = long ? LONG_COLOUR : SHORT_COLOUR;
    const entry = snap(trade.opened_at);
    markers.push(long ? buy(entry, trade.units, 'open', color) : sell(entry, trade.units, 'open', color));
    if (trade.closed_at !== undefined) {
      const exit = snap(trade.closed_at);
      markers.push(long ? sell(exit, trade.units, 'close', color) : buy(exit, trade.units, 'close', color));
    }
  }
  // Stable: fills within one bar keep the trades file's order.
  return markers.sort((a, b) => a.time - b.time);
}

/** Index of the last element <= value in an ascending array, -1 when there is none. */
export function lastAtOrBefore(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if ((sorted[mid] as number) <= value) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}

/**
 * Which points of a long equity series to hand the chart: the series cut into buckets, and of each
 * bucket its first and last point and those holding the NAV's and the balance's lowest and highest
 * value and the deepest drawdown, so the drawn envelope (every peak, trough and step) is the full
 * series' at the screen's resolution. Inside [from, to] (the visible range, UTC seconds) buckets are
 * sized for `buckets` across that range, outside it for `buckets` across the whole run; a series of at
 * most `buckets` x 5 points is drawn whole. Returns the indices, ascending, and the inside bucket size.
 */
export function envelopeIndices(
  series: EquitySeries,
  from: number,
  to: number,
  buckets: number,
): { indices: number[]; bucket: number } {
  const n = series.times.length;
  if (n <= buckets * 5) return { indices: Array.from({ length: n }, (_, i) => i), bucket: 1 };
  const first = Math.max(0, lastAtOrBefore(series.times, from));
  const last = Math.max(first, lastAtOrBefore(series.times, to));
  const outer = Math.ceil(n / buckets);
  const inner = Math.max(1, Math.ceil((last - first + 1) / buckets));
  const indices: number[] = [];
  const take = (start: number, end: number, size: number) => {
    for (let a = start; a < end; a += size) {
      const b = Math.min(end, a + size);
      const picks = [a, b - 1];
      for (const values of [series.nav, series.balance, series.drawdownPct]) {
        let low = a;
        let high = a;
        for (let i = a + 1; i < b; i++) {
          if ((values[i] as number) < (values[low] as number)) low = i;
          if ((values[i] as number) > (values[high] as number)) high = i;
        }
        picks.push(low, high);
      }
      picks.sort((x, y) => x - y);
      for (const i of picks) if (indices[indices.length - 1] !== i) indices.push(i);
    }
  };
  take(0, first, outer);
  take(first, last + 1, inner);
  take(last + 1, n, outer);
  return { indices, bucket: inner };
}
