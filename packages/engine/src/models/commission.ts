import { Dec } from '@hindsight/core';

/**
 * Spec (costs.commission): `zero`, or `bps_of_notional`: charge = notional x fee_rate_bps / 10000,
 * once at entry and once at exit. Decision 2: the notional is units x the fill price (post-slippage),
 * in USD.
 */
export type CommissionSettings = { model: 'zero' } | { model: 'bps_of_notional'; fee_rate_bps: string };

export const ZERO_COMMISSION: CommissionSettings = { model: 'zero' };

export function commissionFor(settings: CommissionSettings, notionalUsd: Dec): Dec {
  if (settings.model === 'zero') return new Dec(0);
  return notionalUsd.abs().times(settings.fee_rate_bps).div(10_000);
}
