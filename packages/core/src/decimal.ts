import { Decimal } from 'decimal.js';

/** Decision 23: the only decimal-string grammar requests accept. */
export const decimalStringPattern = /^-?[0-9]+(\.[0-9]+)?$/;

export const isDecimalString = (value: string): boolean => decimalStringPattern.test(value);

/** Exact decimal arithmetic for money: precision high enough that no realistic amount is rounded. */
export const Dec = Decimal.clone({
  precision: 60,
  rounding: Decimal.ROUND_HALF_EVEN,
  toExpNeg: -1e9,
  toExpPos: 1e9,
});
export type Dec = InstanceType<typeof Dec>;

/** 0, shared: `gt(0)` and friends make a decimal of 0 on every call, and decimals are immutable. */
export const DEC_ZERO: Dec = new Dec(0);

/** Decision 37: canonical decimal output, no exponent, no leading zeros, never `-0`. */
export function toDecimalString(value: Dec | string): string {
  const d = typeof value === 'string' ? new Dec(value) : value;
  if (d.isZero()) return '0';
  return d.toFixed();
}
