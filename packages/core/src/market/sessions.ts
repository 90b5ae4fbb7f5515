import type { MarketId } from '../catalog/markets.ts';
import type { Timeframe } from '../timeframes.ts';
import { fxDayStart, newYorkDate, newYorkMidnight, newYorkToUtc } from './new-york-time.ts';

/**
 * Where bars and trading days begin, per market (docs/market-data.md):
 * - minutes and hours are aligned to UTC for every market;
 * - `1d`: crypto 00:00 UTC; FX 17:00 New York (the rollover); stocks 00:00 New York (the trade date);
 * - `1w`: crypto Monday 00:00 UTC; FX Sunday 17:00 New York; stocks Monday 00:00 New York.
 */
const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

export const TIMEFRAME_MS: Record<Exclude<Timeframe, '1d' | '1w'>, number> = {
  '1m': MINUTE_MS,
  '2m': 2 * MINUTE_MS,
  '5m': 5 * MINUTE_MS,
  '10m': 10 * MINUTE_MS,
  '15m': 15 * MINUTE_MS,
  '30m': 30 * MINUTE_MS,
  '1h': 60 * MINUTE_MS,
  '2h': 120 * MINUTE_MS,
  '4h': 240 * MINUTE_MS,
  '12h': 720 * MINUTE_MS,
};

export type SessionCalendar = 'utc' | 'fx' | 'us_equity';

export function calendarOf(market: MarketId): SessionCalendar {
  if (market === 'FOREX') return 'fx';
  if (market === 'STOCKS' || market === 'FUTURES') return 'us_equity';
  return 'utc';
}

const utcParts = (dayMs: number) => {
  const d = new Date(dayMs);
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()] as const;
};

/** Start of the trading day containing `t`. */
export function dayStart(calendar: SessionCalendar, t: number): number {
  if (calendar === 'fx') return fxDayStart(t);
  if (calendar === 'us_equity') return newYorkMidnight(t);
  return Math.floor(t / DAY_MS) * DAY_MS;
}

/** Start of the trading week containing `t`. */
export function weekStart(calendar: SessionCalendar, t: number): number {
  if (calendar === 'utc') {
    const day = Math.floor(t / DAY_MS) * DAY_MS;
    const weekday = (new Date(day).getUTCDay() + 6) % 7;
    return day - weekday * DAY_MS;
  }
  if (calendar === 'us_equity') {
    const { dayMs, weekday } = newYorkDate(t);
    return newYorkToUtc(...utcParts(dayMs - weekday * DAY_MS));
  }
  // FX: the week opens at the Sunday 17:00 New York rollover.
  const fxDay = fxDayStart(t);
  const { dayMs, weekday } = newYorkDate(fxDay);
  const daysSinceSunday = (weekday + 1) % 7;
  return newYorkToUtc(...utcParts(dayMs - daysSinceSunday * DAY_MS), 17);
}

/** Start of the `timeframe` bar that contains instant `t`. */
export function bucketStart(timeframe: Timeframe, calendar: SessionCalendar, t: number): number {
  if (timeframe === '1d') return dayStart(calendar, t);
  if (timeframe === '1w') return weekStart(calendar, t);
  const size = TIMEFRAME_MS[timeframe];
  return Math.floor(t / size) * size;
}
