import { Dec, ticksToDecimalString } from '@hindsight/core';
import { Exact } from '../numbers/exact.ts';
import { add, multiply, type Scaled, scaledText, scaledTicks, subtract } from '../numbers/scaled-decimal.ts';
import { unrealizedInQuote } from './position.ts';

/** The open positions' numbers captured at one moment, valued later (margin and the timeseries). */

const ZERO = new Exact(0);
const SCALED_ZERO: Scaled = { value: 0n, scale: 0 };
const sameAmount = (amount: Dec): Dec => amount;

/** What the open positions are worth at a captured moment (USD). */
export interface Valuation {
  unrealizedUsd: Dec;
  notionals: { symbol: string; notionalUsd: Dec }[];
}

/** `Valuation` as scaled integers (exact). */
export interface ScaledValuation {
  unrealizedUsd: Scaled;
  notionals: { symbol: string; notionalUsd: Scaled }[];
}

interface CapturedPosition {
  symbol: string;
  long: boolean;
  quantity: Scaled;
  cost: Scaled;
  /** The mark (bid for a long, ask for a short) as ticks, or `fallback` before the first mark. */
  ticks: number;
  decimals: number;
  fallback: Dec | undefined;
  toUsd: (amount: Dec) => Dec;
  /** A USD position with a mark: valued in scaled integers alone (no conversion, no fallback). */
  scalable: boolean;
}

/**
 * The open positions' numbers at one moment, to value exactly later (the sampler values only the
 * points it keeps): scaled integers and decimals are immutable, so keeping references is a copy, and
 * the marks are the quotes' ticks. Both valuations compute exactly what `unrealizedPnlUsd` (and the
 * margin's notionals) would have then; the scaled one, cheaper, exists when every position is in USD
 * and marked. `PositionBook.capture` can refill a capture no longer needed (one per bar otherwise).
 */
export class CapturedPositions {
  private readonly parts: CapturedPosition[] = [];
  private count = 0;

  /** Empties the capture, keeping its part objects for the next `add`s. */
  clear(): void {
    this.count = 0;
  }

  /** The next part, reused when there is one (its every field is set by the caller). */
  next(): CapturedPosition {
    let part = this.parts[this.count];
    if (!part) {
      part = {
        symbol: '',
        long: true,
        quantity: SCALED_ZERO,
        cost: SCALED_ZERO,
        ticks: 0,
        decimals: -1,
        fallback: undefined,
        toUsd: sameAmount,
        scalable: false,
      };
      this.parts.push(part);
    }
    this.count += 1;
    return part;
  }

  exact(): Valuation {
    let unrealizedUsd: Dec = ZERO;
    const notionals: { symbol: string; notionalUsd: Dec }[] = [];
    for (let index = 0; index < this.count; index++) {
      const part = this.parts[index] as CapturedPosition;
      const price = part.fallback ?? new Dec(ticksToDecimalString(part.ticks, part.decimals));
      const pnl = unrealizedInQuote(part.long, part.quantity, part.cost, price);
      unrealizedUsd = unrealizedUsd.plus(part.toUsd(pnl));
      const notional = new Dec(scaledText(part.quantity)).times(price);
      notionals.push({ symbol: part.symbol, notionalUsd: part.toUsd(notional) });
    }
    return { unrealizedUsd: new Dec(unrealizedUsd), notionals };
  }

  scaled(): ScaledValuation | undefined {
    let unrealizedUsd: Scaled = SCALED_ZERO;
    const notionals: { symbol: string; notionalUsd: Scaled }[] = [];
    for (let index = 0; index < this.count; index++) {
      const part = this.parts[index] as CapturedPosition;
      if (!part.scalable) return undefined;
      const value = multiply(part.quantity, scaledTicks(part.ticks, part.decimals));
      const pnl = part.long ? subtract(value, part.cost) : subtract(part.cost, value);
      // The first P&L is the sum so far (adding it to zero only rescaled a BigInt at every sampled point).
      unrealizedUsd = index === 0 ? pnl : add(unrealizedUsd, pnl);
      notionals.push({ symbol: part.symbol, notionalUsd: value });
    }
    return { unrealizedUsd, notionals };
  }
}
