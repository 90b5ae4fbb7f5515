import { Dec } from '@hindsight/core';
import type { DecimalInput } from '../positions/trade-lot.ts';

/**
 * A NAV series read two ways, for metrics that must be exact but scan thousands of points: floats to
 * compare (each within a relative 1e-16 of its decimal, so two NAVs whose floats differ by more than a
 * relative 1e-12 are ordered as their floats are) and the exact decimals, made only for a near tie or where an
 * exact result is computed. The decimals come from the caller when it has them (the sampler does),
 * otherwise they are parsed from the file's strings on first use.
 */
export class NavSeries {
  private readonly approx: Float64Array;
  /** The caller's decimals and those parsed so far. */
  private readonly exact: (Dec | undefined)[];

  constructor(
    private readonly nav: readonly DecimalInput[],
    decimals?: readonly (Dec | undefined)[],
  ) {
    this.approx = new Float64Array(nav.length);
    for (let i = 0; i < nav.length; i++) {
      const value = nav[i] as DecimalInput;
      this.approx[i] = typeof value === 'string' ? approximate(value) : value.toNumber();
    }
    this.exact = decimals && decimals.length === nav.length ? [...decimals] : new Array(nav.length);
  }

  get length(): number {
    return this.nav.length;
  }

  /** The float nearest NAV `i` (for decisions that are then confirmed exactly when close). */
  float(i: number): number {
    return this.approx[i] as number;
  }

  /** NAV `i`, exact. */
  at(i: number): Dec {
    let value = this.exact[i];
    if (value === undefined) {
      value = new Dec(this.nav[i] as DecimalInput);
      this.exact[i] = value;
    }
    return value;
  }

  /** Sign of NAV `i` - NAV `j`, exact: by the floats when they clearly differ, else by the decimals. */
  compare(i: number, j: number): number {
    const a = this.approx[i] as number;
    const b = this.approx[j] as number;
    const tolerance = RELATIVE_TIE * Math.max(Math.abs(a), Math.abs(b));
    if (a - b > tolerance) return 1;
    if (b - a > tolerance) return -1;
    return this.at(i).comparedTo(this.at(j));
  }
}

/**
 * The float of a plain decimal string, read from its first 20 characters when its integer part is not
 * zero and fits in them: the digits dropped are beyond the 18th significant one, a relative error below
 * 1e-17 (converting all of a 40-digit string takes the slow exact path).
 */
function approximate(text: string): number {
  if (text.length <= 20) return Number(text);
  const dot = text.indexOf('.');
  const integerZero = text.startsWith('0') || text.startsWith('-0');
  return dot < 0 || dot >= 19 || integerZero ? Number(text) : Number(text.slice(0, 20));
}

/**
 * Far above the error of a correctly rounded double (1.1e-16 relative) and of the few float operations
 * a caller does with them; far below any difference a metric could turn on.
 */
export const RELATIVE_TIE = 1e-12;
