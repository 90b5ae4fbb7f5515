import { Dec, powerOfTen, ticksToDecimalString } from '@hindsight/core';
import { flatText } from './flat-text.ts';
import { type Scaled, scaledTicks } from './scaled-decimal.ts';

/**
 * A bid/ask quote held as integer ticks at `decimals`, as the bars carry it. Marking positions with
 * every base bar only stores three numbers; the exact decimals (and the mid) are made on demand and
 * cached until the next quote, so the per-bar path does no decimal arithmetic.
 */
export class TickQuote {
  private bidDec: Dec | undefined;
  private askDec: Dec | undefined;
  private midDec: Dec | undefined;

  constructor(
    public bidTicks: number,
    public askTicks: number,
    public decimals: number,
  ) {}

  /** A quote from exact decimals (tests and callers without ticks). */
  static fromDecimals(bid: Dec, ask: Dec): TickQuote {
    const decimals = Math.max(0, bid.decimalPlaces(), ask.decimalPlaces());
    const scale = new Dec(10).pow(decimals);
    const ticks = (d: Dec) => {
      const t = d.times(scale).toNumber();
      if (!Number.isSafeInteger(t)) throw new RangeError(`quote ${d} does not fit integer ticks`);
      return t;
    };
    return new TickQuote(ticks(bid), ticks(ask), decimals);
  }

  set(bidTicks: number, askTicks: number, decimals: number): void {
    if (bidTicks === this.bidTicks && askTicks === this.askTicks && decimals === this.decimals) return;
    this.bidTicks = bidTicks;
    this.askTicks = askTicks;
    this.decimals = decimals;
    this.bidDec = undefined;
    this.askDec = undefined;
    this.midDec = undefined;
  }

  get bid(): Dec {
    this.bidDec ??= new Dec(ticksToDecimalString(this.bidTicks, this.decimals));
    return this.bidDec;
  }

  get ask(): Dec {
    this.askDec ??= new Dec(ticksToDecimalString(this.askTicks, this.decimals));
    return this.askDec;
  }

  /** (bid + ask) / 2, exact (one more decimal at most). */
  get mid(): Dec {
    this.midDec ??= new Dec(ticksToDecimalString((this.bidTicks + this.askTicks) * 5, this.decimals + 1));
    return this.midDec;
  }

  /**
   * The bid and the ask as the scaled integers `scaledOf` makes of their decimals (no trailing zeros),
   * straight from the ticks: a market fill in USD is priced without a decimal of the quote.
   */
  bidScaled(): Scaled {
    return canonicalTicks(this.bidTicks, this.decimals);
  }

  askScaled(): Scaled {
    return canonicalTicks(this.askTicks, this.decimals);
  }

  /**
   * The price a `side` order trades at (the ask for a buy, the bid for a sell) as the scaled integer
   * and the canonical text a fill's figures carry, both from the ticks: the text without a BigInt
   * written out. Flat, as the lots keep it for the run (`flat-text.ts`).
   */
  amountOn(side: 'BUY' | 'SELL'): { scaled: Scaled; text: string } {
    const buy = side === 'BUY';
    const ticks = buy ? this.askTicks : this.bidTicks;
    return {
      scaled: buy ? this.askScaled() : this.bidScaled(),
      text: flatText(ticksToDecimalString(ticks, this.decimals), ''),
    };
  }

  /** Floats, for deciding whether an exact computation is needed; never shown to a user. */
  bidApprox(): number {
    return this.bidTicks / powerOfTen(this.decimals);
  }

  askApprox(): number {
    return this.askTicks / powerOfTen(this.decimals);
  }

  midApprox(): number {
    return (this.bidTicks + this.askTicks) / (2 * powerOfTen(this.decimals));
  }
}

function canonicalTicks(ticks: number, decimals: number): Scaled {
  let value = ticks;
  let scale = decimals;
  while (scale > 0 && value % 10 === 0) {
    value /= 10;
    scale -= 1;
  }
  return scaledTicks(value, scale);
}
