/**
 * UTC offsets of an IANA time zone from the platform's time-zone database (Intl). Offsets are cached
 * per UTC hour, and per minute inside an hour that holds a transition (some zones change on the half
 * hour), so converting millions of timestamps stays cheap and exact.
 */
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

export class TimeZoneOffsets {
  private readonly format: Intl.DateTimeFormat;
  private readonly hourOffsets = new Map<number, number>();
  private readonly minuteOffsets = new Map<number, number>();

  /** Throws a RangeError for a zone name Intl does not know. */
  constructor(readonly zone: string) {
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** Local time minus UTC, in ms, in force at a UTC instant. */
  offsetAt(utcMs: number): number {
    const hour = Math.floor(utcMs / HOUR_MS);
    let offset = this.hourOffsets.get(hour);
    if (offset === undefined) {
      const first = this.compute(hour * HOUR_MS);
      const last = this.compute(hour * HOUR_MS + HOUR_MS - 1000);
      offset = first === last ? first : Number.NaN;
      this.hourOffsets.set(hour, offset);
    }
    if (!Number.isNaN(offset)) return offset;
    const minute = Math.floor(utcMs / MINUTE_MS);
    let exact = this.minuteOffsets.get(minute);
    if (exact === undefined) {
      exact = this.compute(minute * MINUTE_MS);
      this.minuteOffsets.set(minute, exact);
    }
    return exact;
  }

  private compute(utcMs: number): number {
    const whole = Math.floor(utcMs / 1000) * 1000;
    const parts: Record<string, number> = {};
    for (const part of this.format.formatToParts(whole)) {
      if (part.type !== 'literal') parts[part.type] = Number(part.value);
    }
    const local = Date.UTC(
      parts.year ?? 1970,
      (parts.month ?? 1) - 1,
      parts.day ?? 1,
      parts.hour ?? 0,
      parts.minute ?? 0,
      parts.second ?? 0,
    );
    return local - whole;
  }
}
