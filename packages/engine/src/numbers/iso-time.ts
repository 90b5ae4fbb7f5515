/**
 * Epoch ms as ISO-8601 UTC with milliseconds (`2024-03-08T22:00:00.000Z`), as `Date#toISOString`
 * writes it. Event timestamps fall on whole minutes, one or more per base bar, so those are built from
 * the day's prefix and a table of the day's minutes instead of a Date each time. The minute is found
 * by a division within the cached day: `%` of an epoch ms (not a small integer) is a call to `fmod`,
 * and this runs for every event. The last answer is kept, since a fill's events share one time.
 */
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

const MINUTES_OF_DAY: readonly string[] = Array.from({ length: 1440 }, (_, m) => {
  const hh = String(Math.floor(m / 60)).padStart(2, '0');
  const mm = String(m % 60).padStart(2, '0');
  return `${hh}:${mm}:00.000Z`;
});

const T = 'T'.charCodeAt(0);

let cachedDay = Number.NaN;
let cachedPrefix = '';
let lastMs = Number.NaN;
let lastText = '';

export function isoTime(ms: number): string {
  if (ms === lastMs) return lastText;
  let minute = (ms - cachedDay) / MINUTE_MS;
  if (!(minute >= 0 && minute < 1440 && Number.isInteger(minute))) {
    if (ms % MINUTE_MS !== 0 || ms < 0) return new Date(ms).toISOString();
    const day = ms - (ms % DAY_MS);
    const prefix = new Date(day).toISOString().slice(0, 11);
    // Beyond year 9999 the year has six digits and a sign.
    if (prefix.charCodeAt(10) !== T) return new Date(ms).toISOString();
    cachedDay = day;
    cachedPrefix = prefix;
    minute = (ms - day) / MINUTE_MS;
  }
  lastMs = ms;
  lastText = cachedPrefix + (MINUTES_OF_DAY[minute] as string);
  return lastText;
}
