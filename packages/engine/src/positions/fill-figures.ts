import { type Dec, toDecimalString } from '@hindsight/core';
import { type CommissionSettings, commissionScaled } from '../models/commission.ts';
import { applySlippageScaled, type SlippageSettings } from '../models/slippage.ts';
import { fitsDec, multiply, type Scaled, scaledOfText, scaledText } from '../numbers/scaled-decimal.ts';
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

/** An amount of a fill (its units, its base price) as the scaled integer and the canonical text its figures carry. */
export interface FillAmount {
  scaled: Scaled;
  text: string;
}

/** The amount with its text written from the integer. */
export const fillAmountOf = (scaled: Scaled): FillAmount => ({ scaled, text: scaledText(scaled) });

const unitsByDecimal = new WeakMap<Dec, FillAmount>();

/**
 * The units of a fill of `units`, read and written once per decimal: orders of the same quantity
 * share its decimal (the gateway's parser gives one decimal per request text, its
 * `protocol/request-decimals.ts`), so a strategy trading one size parses and writes it once (a text
 * read and written was ~0.3 us a fill), and its lots and trades share the text.
 */
export function fillUnitsOf(units: Dec): FillAmount {
  let known = unitsByDecimal.get(units);
  if (known === undefined) {
    const text = toDecimalString(units);
    known = { scaled: scaledOfText(text), text };
    unitsByDecimal.set(units, known);
  }
  return known;
}

/**
 * The figures of a fill of a USD-quoted instrument priced in scaled integers (slippage, then commission
 * on the slipped notional, docs/fills.md): the same numbers as the decimal models when none of their
 * steps rounds; undefined when one would, for the caller to price the fill in decimals.
 */
export function pricedInUsd(
  unitsAmount: FillAmount,
  baseAmount: FillAmount,
  side: Side,
  slippage: SlippageSettings,
  commission: CommissionSettings,
): FillFigures | undefined {
  const units = unitsAmount.scaled;
  const basePrice = baseAmount.scaled;
  const notional = multiply(units, basePrice);
  const slipped = fitsDec(notional) ? applySlippageScaled(slippage, side, basePrice, notional) : undefined;
  if (!slipped) return undefined;
  const traded = multiply(units, slipped.price);
  const charged = fitsDec(traded) ? commissionScaled(commission, traded) : undefined;
  if (!charged) return undefined;
  return {
    units,
    unitsText: unitsAmount.text,
    price: slipped.price,
    priceText: scaledText(slipped.price),
    basePriceText: baseAmount.text,
    slippageBpsText: scaledText(slipped.bps),
    commission: charged,
  };
}
