import type { Dec } from '@hindsight/core';

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
  return a.scale === 0 ? Number(a.value) : Number(a.value) / 10 ** a.scale;
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
  let text: string;
  if (scale === 0) text = digits;
  else if (digits.length > scale) text = `${digits.slice(0, digits.length - scale)}.${digits.slice(-scale)}`;
  else text = `0.${'0'.repeat(scale - digits.length)}${digits}`;
  return negative ? `-${text}` : text;
}
