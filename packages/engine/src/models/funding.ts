import { Dec, newYorkDate, nextFxRollover } from '@hindsight/core';

/**
 * Spec (costs.funding `daily`) and decision 5: at each 17:00 America/New_York rollover (DST-aware),
 * a position open across it (opened before, closed after) is charged
 * position_value x rate x days_charged / day_count_basis, added to the balance (a negative rate
 * debits). position_value = units x the closing side price (bid for a long, ask for a short) at the
 * rollover, in USD; days_charged = day_multipliers[weekday of the New York date], Monday = 0.
 */
export type FundingSettings =
  | { model: 'disabled' }
  | {
      model: 'daily';
      long_rate: string;
      short_rate: string;
      day_multipliers?: readonly number[];
      day_count_basis?: 360 | 365;
    };

export const DEFAULT_DAY_MULTIPLIERS = [1, 1, 3, 1, 1, 0, 0] as const;
export const DEFAULT_DAY_COUNT_BASIS = 365;

/** The rollovers in (from, to]: the instants funding is charged when time moves from `from` to `to`. */
export function rolloversBetween(from: number, to: number): number[] {
  const out: number[] = [];
  for (let t = nextFxRollover(from); t <= to; t = nextFxRollover(t)) out.push(t);
  return out;
}

/** days_charged for a rollover: the multiplier of its New York weekday. */
export function daysCharged(
  settings: Extract<FundingSettings, { model: 'daily' }>,
  rollover: number,
): number {
  const multipliers = settings.day_multipliers ?? DEFAULT_DAY_MULTIPLIERS;
  return multipliers[newYorkDate(rollover).weekday] ?? 0;
}

/** The signed amount added to the balance for one position at one rollover. */
export function fundingAmount(
  settings: FundingSettings,
  side: 'LONG' | 'SHORT',
  positionValueUsd: Dec,
  rollover: number,
): Dec {
  if (settings.model === 'disabled') return new Dec(0);
  const rate = side === 'LONG' ? settings.long_rate : settings.short_rate;
  const basis = settings.day_count_basis ?? DEFAULT_DAY_COUNT_BASIS;
  return positionValueUsd.abs().times(rate).times(daysCharged(settings, rollover)).div(basis);
}
