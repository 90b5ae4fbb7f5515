/**
 * Decision 22: the only timestamp grammar `startTime`/`endTime` accept.
 * `YYYY-MM-DDTHH:MM:SS[.fraction]` then `Z` or `+HH:MM`/`-HH:MM`; upper-case `T` and `Z` only.
 * The regex is the shape (it is also published as the JSON Schema `pattern`); `parseIsoInstant` adds
 * what a regex cannot say: the date and time must exist on the calendar.
 */
export const isoTimestampPattern =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]+))?(?:Z|([+-])([0-9]{2}):([0-9]{2}))$/;

export const ISO_TIMESTAMP_FORMAT = 'YYYY-MM-DDTHH:MM:SS[.fraction] followed by Z or +HH:MM/-HH:MM';

const MS_PER_MINUTE = 60_000;
const MS_PER_DAY = 86_400_000;

/**
 * An instant with full precision: `ms` is epoch milliseconds rounded down, `subMs` the fraction
 * digits beyond the millisecond (trailing zeros dropped). Keeping them apart lets `endTime > startTime`
 * be judged exactly, even for two instants inside one millisecond.
 */
export interface IsoInstant {
  ms: number;
  subMs: string;
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const isLeapYear = (year: number): boolean => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * Parses a decision-22 timestamp, or answers `undefined` if it is not one (wrong shape, or a date or
 * time that does not exist such as 2024-02-30 or 25:00). Leap seconds (`:60`) are refused: no data
 * source here has them. Offsets may be up to ±23:59, as RFC 3339 allows.
 */
export function parseIsoInstant(text: string): IsoInstant | undefined {
  const match = isoTimestampPattern.exec(text);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction = '', sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (sign !== undefined) {
    const offsetHours = Number(oh);
    const offsetMins = Number(om);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const millis = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const local =
    daysFromCivil(year, month, day) * MS_PER_DAY + ((hour * 60 + minute) * 60 + second) * 1000 + millis;
  return { ms: local - offsetMinutes * MS_PER_MINUTE, subMs: fraction.slice(3).replace(/0+$/, '') };
}

/** Epoch milliseconds of a decision-22 timestamp (digits beyond the millisecond are dropped), or `undefined`. */
export function parseIsoTimestamp(text: string): number | undefined {
  return parseIsoInstant(text)?.ms;
}

/** Exact ordering of two instants: negative, zero or positive. */
export function compareInstants(a: IsoInstant, b: IsoInstant): number {
  if (a.ms !== b.ms) return a.ms - b.ms;
  const width = Math.max(a.subMs.length, b.subMs.length);
  const left = a.subMs.padEnd(width, '0');
  const right = b.subMs.padEnd(width, '0');
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Epoch milliseconds of a catalog day `YYYY-MM-DD` at 00:00 UTC, or `undefined` if it is not a real day. */
export function parseUtcDay(day: string): number | undefined {
  return parseIsoTimestamp(`${day}T00:00:00Z`);
}
