import { Dec } from '@hindsight/core';
import {
  add,
  compare,
  fitsDec,
  multiply,
  type Scaled,
  scaledOf,
  subtract,
} from '../numbers/scaled-decimal.ts';

/**
 * Spec (costs.slippage): slippage_bps = base + (notional / 100000) x size_impact_per_100k, capped by
 * max when max > 0; a buy fills at ask x (1 + bps/10000), a sell at bid x (1 - bps/10000). Decision 2:
 * the notional is units x the pre-slippage price, in USD. Exact decimals; fill prices are not rounded.
 */
export interface SlippageSettings {
  base_slippage_bps: string;
  size_impact_bps_per_100k: string;
  max_slippage_bps: string;
}

export const NO_SLIPPAGE: SlippageSettings = {
  base_slippage_bps: '0',
  size_impact_bps_per_100k: '0',
  max_slippage_bps: '0',
};

export interface SlippedPrice {
  price: Dec;
  bps: Dec;
}

/** Settings parsed once per settings object (they are read on every fill). */
const parsed = new WeakMap<SlippageSettings, { base: Dec; impact: Dec; max: Dec }>();

function parsedOf(settings: SlippageSettings): { base: Dec; impact: Dec; max: Dec } {
  let values = parsed.get(settings);
  if (!values) {
    values = {
      base: new Dec(settings.base_slippage_bps),
      impact: new Dec(settings.size_impact_bps_per_100k),
      max: new Dec(settings.max_slippage_bps),
    };
    parsed.set(settings, values);
  }
  return values;
}

/**
 * 1/100000 and 1/10000 exactly: multiplying by them gives the same correctly rounded result as dividing
 * by 100000 and 10000 (the same exact value), and decimal.js multiplies several times faster than it
 * divides.
 */
const PER_100K = new Dec('0.00001');
const PER_BPS = new Dec('0.0001');

export function slippageBps(settings: SlippageSettings, notionalUsd: Dec): Dec {
  const { base, impact, max } = parsedOf(settings);
  const bps = base.plus(notionalUsd.times(PER_100K).times(impact));
  return max.gt(0) && bps.gt(max) ? max : bps;
}

export function applySlippage(
  settings: SlippageSettings,
  direction: 'BUY' | 'SELL',
  basePrice: Dec,
  notionalUsd: Dec,
): SlippedPrice {
  const bps = slippageBps(settings, notionalUsd);
  const factor = bps.times(PER_BPS);
  const price =
    direction === 'BUY' ? basePrice.times(factor.plus(1)) : basePrice.times(new Dec(1).minus(factor));
  return { price, bps };
}

/** The settings and constants as scaled integers (once per settings object). */
const scaledSettings = new WeakMap<SlippageSettings, { base: Scaled; impact: Scaled; max: Scaled }>();
const SCALED_PER_100K = scaledOf(PER_100K);
const SCALED_PER_BPS = scaledOf(PER_BPS);
const ONE: Scaled = { value: 1n, scale: 0 };

/** A `Dec` operation's result as a scaled integer when it fits 60 digits (then `Dec` did not round it). */
const unrounded = (result: Scaled): Scaled | undefined => (fitsDec(result) ? result : undefined);

/**
 * `applySlippage` in scaled integers (a USD notional): the same price and bps when no step of the
 * decimal formula rounds, that is when every intermediate fits the 60 digits `Dec` keeps; undefined
 * otherwise, for the caller to take `applySlippage`.
 */
export function applySlippageScaled(
  settings: SlippageSettings,
  direction: 'BUY' | 'SELL',
  basePrice: Scaled,
  notionalUsd: Scaled,
): { price: Scaled; bps: Scaled } | undefined {
  let values = scaledSettings.get(settings);
  if (!values) {
    const { base, impact, max } = parsedOf(settings);
    values = { base: scaledOf(base), impact: scaledOf(impact), max: scaledOf(max) };
    scaledSettings.set(settings, values);
  }
  const perNotional = unrounded(multiply(notionalUsd, SCALED_PER_100K));
  const impact = perNotional && unrounded(multiply(perNotional, values.impact));
  let bps = impact && unrounded(add(values.base, impact));
  if (!bps) return undefined;
  if (values.max.value > 0n && compare(bps, values.max) > 0) bps = values.max;
  const factor = unrounded(multiply(bps, SCALED_PER_BPS));
  const move = factor && unrounded(direction === 'BUY' ? add(factor, ONE) : subtract(ONE, factor));
  const price = move && unrounded(multiply(basePrice, move));
  return price && { price, bps };
}
