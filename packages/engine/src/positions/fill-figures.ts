import { type Dec, toDecimalString } from '@hindsight/core';
import { type Scaled, scaledOfText } from '../account/scaled-decimal.ts';

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
