import { Dec } from '@hindsight/core';

/**
 * Exact sums for the books. `Dec` rounds every result to 60 significant digits, so adding a
 * 60-digit converted amount (5000 JPY / 93.4995 = 53.476...) to a balance of 100000 would round,
 * and a running balance would drift from initialCapital + realized - commissions + funding. The
 * books therefore add, subtract and multiply in this wide clone: with these operands (each at most
 * 60 significant digits, sums of them) every such result is exact. Rounding happens only where a
 * quotient is taken (currency conversion, pro-rata shares, average prices), always in `Dec`:
 * never divide an `Exact` value (decimal.js would use this precision for the quotient).
 */
export const Exact = Dec.clone({ precision: 1000 });

/** The value as an `Exact` instance (the constructor never rounds). */
export const exact = (value: Dec | string | number): Dec => new Exact(value);

/** The value as a 60-digit `Dec` instance, for a division (the constructor never rounds). */
export const dec = (value: Dec | string | number): Dec => new Dec(value);
