import { Dec } from '@hindsight/core';

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
