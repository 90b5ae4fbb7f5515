import type { SessionCalendar } from '@hindsight/core';
import type { BarStore, MonthIndexEntry } from '@hindsight/marketdata';

/**
 * Which UTC days the market store holds bars for, per instrument, as ranges and the gaps between
 * them (the web app's coverage view: a catalog entry's first and last day hide what is missing in
 * between). The store's index has first and last bar per month only, so a month whose bars are not
 * one unbroken run of minutes is decoded once to find its days; the answer is cached per chunk
 * version (the index entry), so only months imported since are read again.
 */
export interface DayRange {
  from: string;
  to: string;
}

export interface DayCoverage {
  ranges: DayRange[];
  gaps: DayRange[];
  firstDay: string | null;
  lastDay: string | null;
}

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

const dayText = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * Days on which the market's calendar trades nothing: a missing one neither breaks a range nor makes
 * a gap. Forex is shut on Saturdays (UTC), stocks and futures at weekends; crypto never closes.
 * Exchange holidays are not modelled (as in the engine): see HOLIDAY_DAYS.
 */
function closedDay(calendar: SessionCalendar, day: number): boolean {
  const weekday = new Date(day * DAY_MS).getUTCDay();
  if (calendar === 'fx') return weekday === 6;
  if (calendar === 'us_equity') return weekday === 6 || weekday === 0;
  return false;
}

/**
 * Open days in a row a market with a calendar may miss as a holiday without it counting as a gap.
 * Exchange holidays are not modelled; without this, a stock's daily history shows every holiday of
 * every year as a gap (about nine a year), burying the gaps that matter. Crypto never closes.
 */
const HOLIDAY_DAYS = 2;
const holidayAllowance = (calendar: SessionCalendar) =>
  calendar === 'fx' || calendar === 'us_equity' ? HOLIDAY_DAYS : 0;

/** Ranges of present days, bridged over closed days, and the gaps between them. */
export function dayRanges(days: readonly number[], calendar: SessionCalendar): DayCoverage {
  const sorted = [...new Set(days)].sort((a, b) => a - b);
  const first = sorted[0];
  const last = sorted.at(-1);
  if (first === undefined || last === undefined)
    return { ranges: [], gaps: [], firstDay: null, lastDay: null };
  const spans: [number, number][] = [];
  let start = first;
  let end = first;
  for (const day of sorted.slice(1)) {
    let missingOpenDays = 0;
    for (let d = end + 1; d < day; d++) if (!closedDay(calendar, d)) missingOpenDays++;
    if (missingOpenDays <= holidayAllowance(calendar)) end = day;
    else {
      spans.push([start, end]);
      start = day;
      end = day;
    }
  }
  spans.push([start, end]);
  const ranges = spans.map(([from, to]) => ({ from: dayText(from), to: dayText(to) }));
  const gaps = spans.slice(1).map(([from], i) => ({
    from: dayText((spans[i] as [number, number])[1] + 1),
    to: dayText(from - 1),
  }));
  return { ranges, gaps, firstDay: dayText(first), lastDay: dayText(last) };
}

export class DayCoverageReader {
  /** Days (epoch days) of a stored month, by `symbol/month` and the index entry they were read for. */
  private readonly cache = new Map<string, { version: string; days: number[] }>();

  constructor(private readonly store: BarStore) {}

  async coverage(symbol: string, calendar: SessionCalendar): Promise<DayCoverage> {
    const index = await this.store.index(symbol);
    const days: number[] = [];
    for (const [month, entry] of Object.entries(index?.months ?? {})) {
      if (entry.count === 0) continue;
      days.push(...(await this.monthDays(symbol, month, entry)));
    }
    return dayRanges(days, calendar);
  }

  private async monthDays(symbol: string, month: string, entry: MonthIndexEntry): Promise<number[]> {
    const firstDay = Math.floor(entry.first / DAY_MS);
    const lastDay = Math.floor(entry.last / DAY_MS);
    // One bar for every minute from the first to the last: every day between is there.
    if ((entry.last - entry.first) / MINUTE_MS + 1 === entry.count) {
      return Array.from({ length: lastDay - firstDay + 1 }, (_, i) => firstDay + i);
    }
    const key = `${symbol}/${month}`;
    const version = `${entry.count}/${entry.first}/${entry.last}/${entry.bytes}`;
    const cached = this.cache.get(key);
    if (cached?.version === version) return cached.days;
    const bars = await this.store.readMonth(symbol, month);
    const days: number[] = [];
    for (let i = 0; i < (bars?.length ?? 0); i++) {
      const day = Math.floor((bars?.time[i] as number) / DAY_MS);
      if (days.at(-1) !== day) days.push(day);
    }
    this.cache.set(key, { version, days });
    return days;
  }
}
