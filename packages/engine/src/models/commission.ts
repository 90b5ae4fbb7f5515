import { Dec } from '@hindsight/core';

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

export function commissionFor(settings: CommissionSettings, notionalUsd: Dec): Dec {
  if (settings.model === 'zero') return new Dec(0);
  let rate = rates.get(settings);
  if (!rate) {
    rate = new Dec(settings.fee_rate_bps);
    rates.set(settings, rate);
  }
  return notionalUsd.abs().times(rate).times(PER_BPS);
}
