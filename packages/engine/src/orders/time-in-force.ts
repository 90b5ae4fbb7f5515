import { Dec, newYorkDate, newYorkToUtc, nextFxRollover, type SessionCalendar } from '@hindsight/core';
import type { TimeInForce } from './order-types.ts';

/**
 * Time in force (spec trading-gateway.md: TimeInForce; docs/fills.md "Orders, time in force,
 * margin"). GTC never expires; DAY expires at the end of the instrument's trading day; IOC and FOK
 * are tried once, at once, and never rest.
 *
 * Session ends, DST-aware, always strictly after the placement instant:
 * - `fx`: 17:00 America/New_York, Monday to Friday (the Friday close ends the week; the Saturday and
 *   Sunday rollovers end no session, so an order placed over the weekend lives until Monday 17:00);
 * - `utc` (crypto, trading every day): 00:00 UTC;
 * - `us_equity` (stocks, futures): 16:00 America/New_York, Monday to Friday (exchange holidays are not
 *   modelled: a holiday is treated as a trading day).
 */
const DAY_MS = 86_400_000;

/** Wall-clock hour of the session end per calendar, and its zone. */
export const SESSION_END: Readonly<
  Record<SessionCalendar, { hour: number; zone: string; weekdaysOnly: boolean }>
> = {
  fx: { hour: 17, zone: 'America/New_York', weekdaysOnly: true },
  utc: { hour: 0, zone: 'UTC', weekdaysOnly: false },
  us_equity: { hour: 16, zone: 'America/New_York', weekdaysOnly: true },
};

/** Monday = 0 ... Sunday = 6, of the New York date of an instant. */
const newYorkWeekday = (utcMs: number) => newYorkDate(utcMs).weekday;

/** The instant a DAY order placed at `placedAt` expires: the first session end strictly after it. */
export function dayExpiry(calendar: SessionCalendar, placedAt: number): number {
  if (calendar === 'utc') return Math.floor(placedAt / DAY_MS) * DAY_MS + DAY_MS;
  if (calendar === 'fx') {
    let t = nextFxRollover(placedAt);
    while (newYorkWeekday(t) > 4) t = nextFxRollover(t);
    return t;
  }
  let { dayMs } = newYorkDate(placedAt);
  for (;;) {
    const d = new Date(dayMs);
    const close = newYorkToUtc(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate(), 16);
    if (close > placedAt && newYorkWeekday(close) <= 4) return close;
    dayMs += DAY_MS;
  }
}

/**
 * When an order with this time in force expires: DAY at `dayExpiry`; GTC never (null); IOC and FOK
 * have no time limit (null) because they are settled at their first matching attempt (`immediateFill`).
 */
export function expiresAt(
  timeInForce: TimeInForce,
  calendar: SessionCalendar,
  placedAt: number,
): number | null {
  return timeInForce === 'DAY' ? dayExpiry(calendar, placedAt) : null;
}

/**
 * True once simulated time has reached the expiry: at `now >= expiry` the order is EXPIRED and can no
 * longer fill (a bar starting at the expiry instant never sees it).
 */
export const isExpired = (expiry: number | null, now: number): boolean => expiry !== null && now >= expiry;

export const isImmediate = (timeInForce: TimeInForce): timeInForce is 'IOC' | 'FOK' =>
  timeInForce === 'IOC' || timeInForce === 'FOK';

/**
 * The one matching attempt of an IOC or FOK order, given the quantity fillable at once: IOC fills what
 * it can and cancels the rest; FOK fills everything or nothing. `cancelled` is the quantity left
 * unfilled, which ends as CANCELLED (the spec: IOC "cancels the unfilled part", FOK "cancels
 * completely").
 */
export function immediateFill(
  timeInForce: 'IOC' | 'FOK',
  quantity: Dec,
  fillable: Dec,
): { fill: Dec; cancelled: Dec } {
  const available = Dec.max(fillable, 0);
  const fill =
    timeInForce === 'FOK' ? (available.gte(quantity) ? quantity : new Dec(0)) : Dec.min(quantity, available);
  return { fill, cancelled: quantity.minus(fill) };
}
