import { Dec, powerOfTen } from '@hindsight/core';
import { flatText } from './flat-text.ts';

/**
 * Exact decimals as scaled integers (`value` / 10^`scale`, BigInt), for the sums the engine makes at
 * every sampled timeseries point and only writes out (NAV, margin used). Adding and multiplying
 * BigInts is exact and several times cheaper than decimal.js, and writing one out is one `toString`.
 * Division has no place here: a quotient stays in `Dec`.
 */
export interface Scaled {
  readonly value: bigint;
  readonly scale: number;
}

const POWERS: bigint[] = [1n];
function pow10(n: number): bigint {
  for (let i = POWERS.length; i <= n; i++) POWERS.push((POWERS[i - 1] as bigint) * 10n);
  return POWERS[n] as bigint;
}

/** The decimal as a scaled integer (exactly; its canonical text read once). */
export function scaledOf(d: Dec): Scaled {
  return scaledOfText(d.toFixed());
}

/**
 * A plain decimal text (`-12.5`, no exponent: decision 23's grammar, as canonical strings are) as a
 * scaled integer, without making a `Dec`: how the books read the amounts a lot record was written with.
 */
export function scaledOfText(text: string): Scaled {
  const dot = text.indexOf('.');
  if (dot < 0) return { value: BigInt(text), scale: 0 };
  return { value: BigInt(text.slice(0, dot) + text.slice(dot + 1)), scale: text.length - dot - 1 };
}

/** Integer ticks at `decimals` (a bar's price) as a scaled integer. */
export const scaledTicks = (ticks: number, decimals: number): Scaled => ({
  value: BigInt(ticks),
  scale: decimals,
});

/** `value` at a larger `scale`. */
function at(s: Scaled, scale: number): bigint {
  return scale === s.scale ? s.value : s.value * pow10(scale - s.scale);
}

export function add(a: Scaled, b: Scaled): Scaled {
  const scale = Math.max(a.scale, b.scale);
  return { value: at(a, scale) + at(b, scale), scale };
}

export function subtract(a: Scaled, b: Scaled): Scaled {
  const scale = Math.max(a.scale, b.scale);
  return { value: at(a, scale) - at(b, scale), scale };
}

export function multiply(a: Scaled, b: Scaled): Scaled {
  return { value: a.value * b.value, scale: a.scale + b.scale };
}

/** -1, 0 or 1 as a is below, equal to or above b. */
export function compare(a: Scaled, b: Scaled): number {
  const scale = Math.max(a.scale, b.scale);
  const x = at(a, scale);
  const y = at(b, scale);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** The number as a float (approximations only: pre-checks that fall back to exact values near a tie). */
export function scaledApprox(a: Scaled): number {
  return a.scale === 0 ? Number(a.value) : Number(a.value) / powerOfTen(a.scale);
}

export function absolute(a: Scaled): Scaled {
  return a.value < 0n ? { value: -a.value, scale: a.scale } : a;
}

/** Below 10^60 in magnitude as an integer: a `Dec` (60 significant digits) holds the number exactly. */
const DEC_DIGITS_BOUND = 10n ** 60n;

/**
 * Whether `Dec` arithmetic producing this number would have kept it exactly (at most 60 significant
 * digits). Counting only what the integer's size proves: a larger number is not necessarily rounded,
 * but the caller then takes the `Dec` path, which rounds as it must.
 */
export function fitsDec(a: Scaled): boolean {
  return a.value < DEC_DIGITS_BOUND && a.value > -DEC_DIGITS_BOUND;
}

/** Canonical decimal text (decision 37: no exponent, no trailing zeros, `0` for zero, never `-0`). */
export function scaledText(a: Scaled): string {
  if (a.value === 0n) return '0';
  const negative = a.value < 0n;
  let digits = (negative ? -a.value : a.value).toString();
  let scale = a.scale;
  let end = digits.length;
  while (scale > 0 && digits.charCodeAt(end - 1) === 48) {
    end--;
    scale--;
  }
  if (end !== digits.length) digits = digits.slice(0, end);
  const sign = negative ? '-' : '';
  if (scale === 0) return negative ? flatText(sign, digits) : digits;
  if (digits.length > scale)
    return flatText(sign + digits.slice(0, digits.length - scale), '.', digits.slice(-scale));
  return flatText(`${sign}0.`, '0'.repeat(scale - digits.length), digits);
}

/**
 * `scaledText` with the last answer kept: an amount equal to the last one written gets the same
 * string. A reversal's exit and entry commissions are the two halves of its commission, and part
 * sizes repeat from fill to fill: the lots then keep one string for the run where they kept two, and
 * the digits are not written again.
 */
export class RecentText {
  private amount: Scaled | undefined;
  private text = '';

  of(a: Scaled): string {
    if (this.amount === undefined || compare(a, this.amount) !== 0) {
      this.amount = a;
      this.text = scaledText(a);
    }
    return this.text;
  }
}

/** Digits of a non-negative integer. */
const digitCount = (n: bigint): number => n.toString().length;

/**
 * a / b exactly, when the quotient is a terminating decimal of at most 60 significant digits, else
 * undefined. A quotient terminates when b, less its factors shared with a, has no prime factors but 2
 * and 5; then 10^k is a multiple of it for k = the larger exponent, which is below 4 x b's digit count.
 */
function exactQuotient(a: Scaled, b: Scaled): Scaled | undefined {
  const negative = a.value < 0n !== b.value < 0n;
  const numerator = a.value < 0n ? -a.value : a.value;
  const divisor = b.value < 0n ? -b.value : b.value;
  const k = 4 * digitCount(divisor);
  const widened = numerator * pow10(k);
  if (widened % divisor !== 0n) return undefined;
  let scale = a.scale - b.scale + k;
  let digits = (widened / divisor).toString();
  let end = digits.length;
  while (scale > 0 && end > 1 && digits.charCodeAt(end - 1) === 48) {
    end--;
    scale--;
  }
  digits = digits.slice(0, end);
  // Significant digits: leading zeros are none (an integer's text), trailing zeros of an integer part count
  // for nothing either, but a longer text is only ever longer by those, so this bound is safe.
  if (digits.length > 60) return undefined;
  const value = scale < 0 ? BigInt(digits) * pow10(-scale) : BigInt(digits);
  return { value: negative ? -value : value, scale: Math.max(scale, 0) };
}

/**
 * a / b as `Dec` computes it (60 significant digits, correctly rounded), as a scaled integer: when the
 * exact quotient has at most 60 significant digits it is the result and BigInt finds it, several times
 * cheaper than decimal.js; otherwise decimal.js divides.
 */
export function divide(a: Scaled, b: Scaled): Scaled {
  if (b.value === 0n) throw new RangeError('division by zero');
  return exactQuotient(a, b) ?? scaledOf(new Dec(scaledText(a)).div(new Dec(scaledText(b))));
}

/**
 * total x weight / sum as `Dec` computes it (`new Dec(total).times(weight).div(sum)`: the product
 * rounded to 60 digits, then the quotient): a pro-rata share of a commission. The product is exact in
 * BigInt, and is `Dec`'s when it fits 60 digits; otherwise decimal.js computes all of it.
 */
export function shareOf(total: Scaled, weight: Scaled, sum: Scaled): Scaled {
  const product = multiply(total, weight);
  if (fitsDec(product)) return divide(product, sum);
  const text = (s: Scaled) => new Dec(scaledText(s));
  return scaledOf(text(total).times(text(weight)).div(text(sum)));
}

/**
 * A running sum as `Dec` makes it (`sum = sum.plus(x)`, each result rounded to 60 significant digits),
 * in BigInt while every partial sum fits 60 digits (then no addition rounds, so the sums are equal), in
 * decimal.js from the first one that might not.
 */
export class DecSum {
  private exact: Scaled = { value: 0n, scale: 0 };
  private rounded: Dec | undefined;

  add(x: Scaled): void {
    if (this.rounded) {
      this.rounded = this.rounded.plus(scaledText(x));
      return;
    }
    const next = add(this.exact, x);
    if (fitsDec(next)) this.exact = next;
    else this.rounded = new Dec(scaledText(this.exact)).plus(scaledText(x));
  }

  get value(): Dec {
    return this.rounded ?? new Dec(scaledText(this.exact));
  }

  /** No addition has rounded: the sum is the exact one. */
  get isExact(): boolean {
    return this.rounded === undefined;
  }
}
