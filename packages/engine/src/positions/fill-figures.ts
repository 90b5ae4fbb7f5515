import { type Dec, toDecimalString } from '@hindsight/core';
import { fitsDec, multiply, type Scaled, scaledOfText, scaledText } from '../account/scaled-decimal.ts';
import { type CommissionSettings, commissionScaled } from '../models/commission.ts';
import { applySlippageScaled, type SlippageSettings } from '../models/slippage.ts';
import type { Side } from '../orders/order-types.ts';

/**
 * A fill's amounts written once as canonical texts, with the scaled integers the books compute with:
 * the lot records take the texts as they are, and realized P&L, commission shares and the account's
 * sums are exact BigInt arithmetic on the integers (no decimal made or parsed again per lot).
 */
export interface FillFigures {
  units: Scaled;
  unitsText: string;
  price: Scaled;
  priceText: string;
  basePriceText: string;
  slippageBpsText: string;
  commission: Scaled;
}

/** The figures of a fill priced in decimals (units, prices, slippage and commission). */
export function figuresOf(fill: {
  units: Dec;
  price: Dec;
  basePrice: Dec;
  slippageBps: Dec;
  commissionUsd: Dec;
}): FillFigures {
  const unitsText = toDecimalString(fill.units);
  const priceText = toDecimalString(fill.price);
  return {
    units: scaledOfText(unitsText),
    unitsText,
    price: scaledOfText(priceText),
    priceText,
    basePriceText: toDecimalString(fill.basePrice),
    slippageBpsText: toDecimalString(fill.slippageBps),
    commission: scaledOfText(toDecimalString(fill.commissionUsd)),
  };
}

/**
 * The figures of a fill of a USD-quoted instrument priced in scaled integers (slippage, then commission
 * on the slipped notional, docs/fills.md): the same numbers as the decimal models when none of their
 * steps rounds; undefined when one would, for the caller to price the fill in decimals.
 */
export function pricedInUsd(
  units: Scaled,
  basePrice: Scaled,
  side: Side,
  slippage: SlippageSettings,
  commission: CommissionSettings,
): FillFigures | undefined {
  const notional = multiply(units, basePrice);
  const slipped = fitsDec(notional) ? applySlippageScaled(slippage, side, basePrice, notional) : undefined;
  if (!slipped) return undefined;
  const traded = multiply(units, slipped.price);
  const charged = fitsDec(traded) ? commissionScaled(commission, traded) : undefined;
  if (!charged) return undefined;
  return {
    units,
    unitsText: scaledText(units),
    price: slipped.price,
    priceText: scaledText(slipped.price),
    basePriceText: scaledText(basePrice),
    slippageBpsText: scaledText(slipped.bps),
    commission: charged,
  };
}
