import { TimeZoneOffsets } from '@hindsight/core';

/**
 * Timestamp parsing without Date objects in the hot loop, and time-zone conversion of wall-clock
 * times (UTC, fixed offsets, or IANA zones through Intl with offsets cached per hour).
 */

export const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Epoch ms of a wall-clock time read as UTC; NaN when a field is out of range. Years 1900..2199, since
 * nothing before or after is minute data.
 */
export function civilToMs(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  ms: number,
): number {
  if (
    !(year >= 1900 && year <= 2199) ||
    !(month >= 1 && month <= 12) ||
    !(day >= 1 && day <= daysInMonth(year, month)) ||
    !(hour >= 0 && hour <= 23) ||
    !(minute >= 0 && minute <= 59) ||
    !(second >= 0 && second <= 59) ||
    !(ms >= 0 && ms <= 999)
  ) {
    return Number.NaN;
  }
  return daysFromCivil(year, month, day) * DAY_MS + hour * HOUR_MS + minute * MINUTE_MS + second * 1000 + ms;
}

/** Value of n ASCII digits at text[at]; -1 when any is not a digit. */
export function digitsAt(text: string, at: number, n: number): number {
  let v = 0;
  for (let i = at; i < at + n; i++) {
    const c = text.charCodeAt(i) - 48;
    if (!(c >= 0 && c <= 9)) return -1;
    v = v * 10 + c;
  }
  return v;
}

/** Out-parameter of `parseIsoLike`: whether the text carried its own offset (Z or +hh:mm). */
export const isoParsed = { zoned: false };

/**
 * `YYYY-MM-DD`, optionally followed by `T` or a space and `HH:MM[:SS[.fraction]]`, optionally followed
 * by `Z` or `+hh:mm` / `+hhmm` / `+hh`. Date separators `-`, `/` or `.` (`2020.01.01 00:00`, MetaTrader)
 * are accepted. Returns epoch ms; without a zone in the text the wall time is read as UTC and
 * `isoParsed.zoned` is false. NaN when malformed. Fractions beyond milliseconds must be zero-free
 * below the millisecond (sub-millisecond instants are refused rather than rounded).
 */
export function parseIsoLike(text: string, start: number, end: number): number {
  isoParsed.zoned = false;
  if (end - start < 10) return Number.NaN;
  const year = digitsAt(text, start, 4);
  const sep = text.charCodeAt(start + 4);
  if (year < 0 || (sep !== 45 && sep !== 47 && sep !== 46) || text.charCodeAt(start + 7) !== sep) {
    return Number.NaN;
  }
  const month = digitsAt(text, start + 5, 2);
  const day = digitsAt(text, start + 8, 2);
  if (month < 0 || day < 0) return Number.NaN;
  let i = start + 10;
  let hour = 0;
  let minute = 0;
  let second = 0;
  let ms = 0;
  if (i < end) {
    const t = text.charCodeAt(i);
    if (t === 84 /* T */ || t === 32) {
      i++;
      if (end - i < 5 || text.charCodeAt(i + 2) !== 58) return Number.NaN;
      hour = digitsAt(text, i, 2);
      minute = digitsAt(text, i + 3, 2);
      if (hour < 0 || minute < 0) return Number.NaN;
      i += 5;
      if (i < end && text.charCodeAt(i) === 58) {
        second = digitsAt(text, i + 1, 2);
        if (second < 0 || i + 3 > end) return Number.NaN;
        i += 3;
        if (i < end && (text.charCodeAt(i) === 46 || text.charCodeAt(i) === 44)) {
          i++;
          let digits = 0;
          for (; i < end; i++) {
            const c = text.charCodeAt(i) - 48;
            if (!(c >= 0 && c <= 9)) break;
            if (digits < 3) ms = ms * 10 + c;
            else if (c !== 0) return Number.NaN;
            digits++;
          }
          if (digits === 0) return Number.NaN;
          if (digits === 1) ms *= 100;
          else if (digits === 2) ms *= 10;
        }
      }
    }
  }
  let offsetMs = 0;
  if (i < end) {
    if (text.charCodeAt(i) === 32) i++;
    const z = text.charCodeAt(i);
    if (z === 90 /* Z */ && i + 1 === end) {
      isoParsed.zoned = true;
    } else if (z === 43 || z === 45) {
      const offset = parseOffset(text, i, end);
      if (Number.isNaN(offset)) return Number.NaN;
      offsetMs = offset;
      isoParsed.zoned = true;
    } else {
      return Number.NaN;
    }
  }
  const local = civilToMs(year, month, day, hour, minute, second, ms);
  return local - offsetMs;
}

/** `+hh:mm`, `+hhmm` or `+hh` (also with `-`) in text[start, end) as ms east of UTC; NaN otherwise. */
export function parseOffset(text: string, start: number, end: number): number {
  const sign = text.charCodeAt(start);
  if (sign !== 43 && sign !== 45) return Number.NaN;
  const length = end - start;
  const hours = digitsAt(text, start + 1, 2);
  let minutes = 0;
  if (length === 6 && text.charCodeAt(start + 3) === 58) minutes = digitsAt(text, start + 4, 2);
  else if (length === 5) minutes = digitsAt(text, start + 3, 2);
  else if (length !== 3) return Number.NaN;
  if (hours < 0 || hours > 18 || minutes < 0 || minutes > 59) return Number.NaN;
  const value = (hours * 60 + minutes) * MINUTE_MS;
  return sign === 45 ? -value : value;
}

/** A time zone that turns wall-clock times (epoch ms read as if UTC) into UTC instants. */
export interface WallClockZone {
  readonly name: string;
  /** UTC epoch ms of a wall-clock time; NaN when that time does not exist there (DST gap). */
  toUtc(wallMs: number): number;
  /** Set when a conversion fell on an ambiguous wall time (DST fold); the earlier instant is used. */
  ambiguous: number;
}

class FixedZone implements WallClockZone {
  readonly name: string;
  readonly offsetMs: number;
  ambiguous = 0;
  constructor(name: string, offsetMs: number) {
    this.name = name;
    this.offsetMs = offsetMs;
  }
  toUtc(wallMs: number): number {
    return wallMs - this.offsetMs;
  }
}

/**
 * An IANA zone through Intl. Offsets at UTC instants are cached per UTC hour (per minute inside an hour
 * holding a transition); a wall time resolves to the instants whose offset maps back to it: none is
 * a DST gap (refused), two is a DST fold (the earlier is taken and counted in `ambiguous`).
 */
class IanaZone implements WallClockZone {
  readonly name: string;
  ambiguous = 0;
  private readonly offsets: TimeZoneOffsets;
  private readonly wallHours = new Map<number, number>();

  constructor(name: string) {
    this.name = name;
    this.offsets = new TimeZoneOffsets(name);
  }

  /** Offset (ms east of UTC) in force at a UTC instant. */
  offsetAt(utcMs: number): number {
    return this.offsets.offsetAt(utcMs);
  }

  private resolve(wallMs: number): number {
    const before = this.offsetAt(wallMs - DAY_MS);
    const after = this.offsetAt(wallMs + DAY_MS);
    const u1 = wallMs - before;
    const ok1 = this.offsetAt(u1) === before;
    if (before === after) {
      if (ok1) return u1;
    }
    const u2 = wallMs - after;
    const ok2 = this.offsetAt(u2) === after;
    if (ok1 && ok2) {
      this.ambiguous++;
      return Math.min(u1, u2);
    }
    if (ok1) return u1;
    if (ok2) return u2;
    // Neither neighbour's offset fits: try the offset at the guess itself (zones with two changes in a day).
    const guess = this.offsetAt(wallMs - this.offsetAt(wallMs));
    return this.offsetAt(wallMs - guess) === guess ? wallMs - guess : Number.NaN;
  }

  toUtc(wallMs: number): number {
    const hour = Math.floor(wallMs / HOUR_MS);
    let offset = this.wallHours.get(hour);
    if (offset === undefined) {
      const start = hour * HOUR_MS;
      const ambiguousBefore = this.ambiguous;
      const a = this.resolve(start);
      const b = this.resolve(start + HOUR_MS - MINUTE_MS);
      offset =
        !Number.isNaN(a) && !Number.isNaN(b) && start - a === start + HOUR_MS - MINUTE_MS - b
          ? start - a
          : Number.NaN;
      // A fold or gap somewhere in the hour: resolve each time on its own.
      if (this.ambiguous !== ambiguousBefore) offset = Number.NaN;
      this.ambiguous = ambiguousBefore;
      this.wallHours.set(hour, offset);
    }
    if (!Number.isNaN(offset)) return wallMs - offset;
    return this.resolve(wallMs);
  }
}

/** UTC. */
export const UTC_ZONE: WallClockZone = new FixedZone('UTC', 0);

/** HistData's "EST without DST": UTC-5 all year. */
export const HISTDATA_EST: WallClockZone = new FixedZone('EST (UTC-05:00, no DST)', -5 * HOUR_MS);

/**
 * `UTC` (also `Z`, `GMT`), a fixed offset `+02:00` / `-0500` / `UTC+2` / `GMT-05:00`, or an IANA zone
 * (`Europe/Berlin`). Throws a plain Error naming the accepted forms otherwise.
 */
export function parseTimeZone(spec: string): WallClockZone {
  const text = spec.trim();
  const upper = text.toUpperCase();
  if (upper === 'UTC' || upper === 'Z' || upper === 'GMT' || upper === 'ETC/UTC') return UTC_ZONE;
  const fixed = /^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(text);
  if (fixed) {
    const hours = Number(fixed[2]);
    const minutes = Number(fixed[3] ?? '0');
    if (hours > 18 || minutes > 59) throw new Error(`time zone ${JSON.stringify(spec)}: offset out of range`);
    const offset = (hours * 60 + minutes) * MINUTE_MS * (fixed[1] === '-' ? -1 : 1);
    const sign = offset < 0 ? '-' : '+';
    const name = `${sign}${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`;
    return new FixedZone(name, offset);
  }
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: text });
  } catch {
    throw new Error(
      `time zone ${JSON.stringify(spec)}: expected UTC, a fixed offset like +02:00, or an IANA zone like Europe/Berlin`,
    );
  }
  return new IanaZone(text);
}

/** `2024-01-01T00:00:00Z`-style text of an epoch ms (seconds and ms only when not zero). */
export function formatUtc(ms: number): string {
  const iso = new Date(ms).toISOString();
  if (iso.endsWith(':00.000Z')) return `${iso.slice(0, 16)}Z`;
  if (iso.endsWith('.000Z')) return `${iso.slice(0, 19)}Z`;
  return iso;
}

/**
 * `YYYYMMDD HHMMSS` (bars) or `YYYYMMDD HHMMSSfff` (ticks), as HistData and NinjaTrader write them:
 * wall-clock epoch ms (read as UTC); NaN when malformed.
 */
export function parseCompact(text: string, start: number, end: number): number {
  const length = end - start;
  if ((length !== 15 && length !== 18) || text.charCodeAt(start + 8) !== 32) return Number.NaN;
  const year = digitsAt(text, start, 4);
  const month = digitsAt(text, start + 4, 2);
  const day = digitsAt(text, start + 6, 2);
  const hour = digitsAt(text, start + 9, 2);
  const minute = digitsAt(text, start + 11, 2);
  const second = digitsAt(text, start + 13, 2);
  const ms = length === 18 ? digitsAt(text, start + 15, 3) : 0;
  if ((year | month | day | hour | minute | second | ms) < 0) return Number.NaN;
  return civilToMs(year, month, day, hour, minute, second, ms);
}

/**
 * Dukascopy's `DD.MM.YYYY HH:MM:SS[.fff]`, optionally followed by ` GMT+hhmm` (their "Local time"
 * exports): epoch ms UTC (GMT when no offset is written); NaN when malformed.
 */
export function parseDukascopyTime(text: string, start: number, end: number): number {
  if (end - start < 19) return Number.NaN;
  if (
    text.charCodeAt(start + 2) !== 46 ||
    text.charCodeAt(start + 5) !== 46 ||
    text.charCodeAt(start + 10) !== 32 ||
    text.charCodeAt(start + 13) !== 58 ||
    text.charCodeAt(start + 16) !== 58
  ) {
    return Number.NaN;
  }
  const day = digitsAt(text, start, 2);
  const month = digitsAt(text, start + 3, 2);
  const year = digitsAt(text, start + 6, 4);
  const hour = digitsAt(text, start + 11, 2);
  const minute = digitsAt(text, start + 14, 2);
  const second = digitsAt(text, start + 17, 2);
  let i = start + 19;
  let ms = 0;
  if (i < end && text.charCodeAt(i) === 46) {
    ms = digitsAt(text, i + 1, 3);
    if (i + 4 > end) return Number.NaN;
    i += 4;
  }
  if ((year | month | day | hour | minute | second | ms) < 0) return Number.NaN;
  let offset = 0;
  if (i < end) {
    if (text.charCodeAt(i) !== 32 || text.slice(i + 1, i + 4) !== 'GMT') return Number.NaN;
    offset = parseOffset(text, i + 4, end);
    if (Number.isNaN(offset)) return Number.NaN;
  }
  return civilToMs(year, month, day, hour, minute, second, ms) - offset;
}
