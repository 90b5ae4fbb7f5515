import { Dec } from '@hindsight/core';
import { absolute, fitsDec, multiply, type Scaled, scaledOf } from '../numbers/scaled-decimal.ts';

/**
 * Spec (costs.commission): `zero`, or `bps_of_notional`: charge = notional x fee_rate_bps / 10000,
 * once at entry and once at exit. Decision 2: the notional is units x the fill price (post-slippage),
 * in USD.
 */
export type CommissionSettings = { model: 'zero' } | { model: 'bps_of_notional'; fee_rate_bps: string };

export const ZERO_COMMISSION: CommissionSettings = { model: 'zero' };

/** 1/10000 exactly: the same result as a division by 10000, at the cost of a multiplication. */
const PER_BPS = new Dec('0.0001');

/** The fee rate parsed once per settings object (it is read on every fill). */
const rates = new WeakMap<CommissionSettings, Dec>();

function rateOf(settings: { fee_rate_bps: string } & CommissionSettings): Dec {
  let rate = rates.get(settings);
  if (!rate) {
    rate = new Dec(settings.fee_rate_bps);
    rates.set(settings, rate);
  }
  return rate;
}

export function commissionFor(settings: CommissionSettings, notionalUsd: Dec): Dec {
  if (settings.model === 'zero') return new Dec(0);
  return notionalUsd.abs().times(rateOf(settings)).times(PER_BPS);
}

const scaledRates = new WeakMap<CommissionSettings, Scaled>();
const SCALED_PER_BPS = scaledOf(PER_BPS);
const NONE: Scaled = { value: 0n, scale: 0 };

/**
 * `commissionFor` in scaled integers: the same amount when neither product rounds (each fits the 60
 * digits `Dec` keeps); undefined otherwise, for the caller to take `commissionFor`.
 */
export function commissionScaled(settings: CommissionSettings, notionalUsd: Scaled): Scaled | undefined {
  if (settings.model === 'zero') return NONE;
  let rate = scaledRates.get(settings);
  if (!rate) {
    rate = scaledOf(rateOf(settings));
    scaledRates.set(settings, rate);
  }
  const charged = multiply(absolute(notionalUsd), rate);
  if (!fitsDec(charged)) return undefined;
  const commission = multiply(charged, SCALED_PER_BPS);
  return fitsDec(commission) ? commission : undefined;
}
