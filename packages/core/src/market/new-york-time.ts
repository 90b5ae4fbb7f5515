import { TimeZoneOffsets } from './time-zone.ts';

/**
 * America/New_York wall-clock arithmetic: FX days roll over at 17:00 New York, US stocks trade on New
 * York dates, and both follow daylight saving (offsets from `TimeZoneOffsets`).
 */
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

const newYork = new TimeZoneOffsets('America/New_York');

/** New York local time minus UTC, in ms (-5 h in winter, -4 h in summer). */
export const newYorkOffsetMs = (utcMs: number): number => newYork.offsetAt(utcMs);

/** The UTC instant of a New York wall-clock time (times skipped by DST resolve forward). */
export function newYorkToUtc(year: number, month: number, day: number, hour = 0, minute = 0): number {
  const local = Date.UTC(year, month - 1, day, hour, minute);
  let utc = local + 5 * HOUR_MS;
  for (let i = 0; i < 2; i++) utc = local - newYorkOffsetMs(utc);
  return utc;
}

/** The New York calendar date (as a UTC-midnight ms value) and weekday (0 = Monday) of an instant. */
export function newYorkDate(utcMs: number): { dayMs: number; weekday: number } {
  const local = utcMs + newYorkOffsetMs(utcMs);
  const dayMs = Math.floor(local / DAY_MS) * DAY_MS;
  return { dayMs, weekday: (new Date(dayMs).getUTCDay() + 6) % 7 };
}

const utcParts = (dayMs: number) => {
  const d = new Date(dayMs);
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()] as const;
};

/** The latest 17:00 New York at or before `utcMs`: the start of the FX trading day containing it. */
export function fxDayStart(utcMs: number): number {
  const { dayMs } = newYorkDate(utcMs);
  const today = newYorkToUtc(...utcParts(dayMs), 17);
  return today <= utcMs ? today : newYorkToUtc(...utcParts(dayMs - DAY_MS), 17);
}

/** The first 17:00 New York strictly after `utcMs`: the next FX rollover. */
export function nextFxRollover(utcMs: number): number {
  const { dayMs } = newYorkDate(utcMs);
  const today = newYorkToUtc(...utcParts(dayMs), 17);
  return today > utcMs ? today : newYorkToUtc(...utcParts(dayMs + DAY_MS), 17);
}

/** Midnight New York of the New York date containing `utcMs`. */
export function newYorkMidnight(utcMs: number): number {
  return newYorkToUtc(...utcParts(newYorkDate(utcMs).dayMs));
}
