/**
 * Epoch ms as ISO-8601 UTC with milliseconds (`2024-03-08T22:00:00.000Z`), as `Date#toISOString`
 * writes it. Event timestamps fall on whole minutes, one or more per base bar, so those are built from
 * the day's prefix and a table of the day's minutes instead of a Date each time.
 */
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

const MINUTES_OF_DAY: readonly string[] = Array.from({ length: 1440 }, (_, m) => {
  const hh = String(Math.floor(m / 60)).padStart(2, '0');
  const mm = String(m % 60).padStart(2, '0');
  return `${hh}:${mm}:00.000Z`;
});

let cachedDay = Number.NaN;
let cachedPrefix = '';

export function isoTime(ms: number): string {
  if (ms % MINUTE_MS !== 0 || ms < 0) return new Date(ms).toISOString();
  const day = ms - (ms % DAY_MS);
  if (day !== cachedDay) {
    const prefix = new Date(day).toISOString().slice(0, 11);
    if (prefix.length !== 11) return new Date(ms).toISOString(); // beyond year 9999
    cachedDay = day;
    cachedPrefix = prefix;
  }
  return cachedPrefix + (MINUTES_OF_DAY[(ms - day) / MINUTE_MS] as string);
}
