/**
 * Decision 1: the account currency is USD. An amount in another currency (P&L of USDJPY in JPY,
 * for example) is converted at the rate of the moment it occurs: the mid, (bid + ask) / 2, of the
 * conversion pair at that moment. For JPY the pair is USDJPY (usd = amount / mid), so a cross such
 * as EURJPY converts through USDJPY too; for a currency quoted against the dollar, such as EUR, the
 * pair is EURUSD (usd = amount x mid). Crypto quoted in USDT or USDC is listed with denomination USD
 * (decision 1), so USD is the identity and needs no pair.
 *
 * The pair must be one of the scenario's instruments (one hop: a currency reachable only through
 * another cross is not convertible). `unconvertible` lists the instruments a scenario cannot price
 * in USD; the engine refuses them at scenario start. Quotes come in with `updateQuote`; converting
 * before the pair's first quote is an error, never a silent 1:1.
 */
import { Dec } from '@hindsight/core';
import { TickQuote } from './tick-quote.ts';

export const ACCOUNT_CURRENCY = 'USD';

/** The catalog fields the converter needs (`InstrumentDefinition` has them). */
export interface CurrencyInstrument {
  symbol: string;
  underlying: string;
  denomination: string;
}

/** How one currency becomes USD. */
export interface ConversionPair {
  currency: string;
  /** The instrument whose mid is the rate. */
  symbol: string;
  /** `divide`: the pair is USD/currency (USDJPY), usd = amount / mid; `multiply`: currency/USD (EURUSD), usd = amount x mid. */
  operation: 'divide' | 'multiply';
}

export class CurrencyConversionError extends Error {
  readonly currency: string;
  constructor(currency: string, message: string) {
    super(message);
    this.name = 'CurrencyConversionError';
    this.currency = currency;
  }
}

const bySymbol = (a: CurrencyInstrument, b: CurrencyInstrument) =>
  a.symbol < b.symbol ? -1 : a.symbol > b.symbol ? 1 : 0;

/**
 * The conversion pair of `currency` among `instruments`, or undefined. A USD/currency pair (USDJPY)
 * is preferred over a currency/USD one (JPYUSD); among equals, the smallest symbol (deterministic).
 */
export function findConversionPair(
  currency: string,
  instruments: readonly CurrencyInstrument[],
): ConversionPair | undefined {
  const sorted = [...instruments].sort(bySymbol);
  const direct = sorted.find((i) => i.underlying === ACCOUNT_CURRENCY && i.denomination === currency);
  if (direct) return { currency, symbol: direct.symbol, operation: 'divide' };
  const inverse = sorted.find((i) => i.underlying === currency && i.denomination === ACCOUNT_CURRENCY);
  if (inverse) return { currency, symbol: inverse.symbol, operation: 'multiply' };
  return undefined;
}

/** Symbols of `instruments` whose denomination has no conversion pair among them, sorted. */
export function unconvertible(instruments: readonly CurrencyInstrument[]): string[] {
  return instruments
    .filter(
      (i) =>
        i.denomination !== ACCOUNT_CURRENCY && findConversionPair(i.denomination, instruments) === undefined,
    )
    .map((i) => i.symbol)
    .sort();
}

/**
 * One message per instrument whose P&L cannot be converted to USD (decision 1): a scenario with such an
 * instrument is refused at start.
 */
export function conversionProblems(instruments: readonly CurrencyInstrument[]): string[] {
  const bySymbolName = new Map(instruments.map((i) => [i.symbol, i]));
  return unconvertible(instruments).map((symbol) => {
    const currency = bySymbolName.get(symbol)?.denomination as string;
    return `${symbol} is quoted in ${currency}, which cannot be converted to ${ACCOUNT_CURRENCY}: the scenario needs a ${ACCOUNT_CURRENCY}${currency} or ${currency}${ACCOUNT_CURRENCY} instrument for the rate.`;
  });
}

const IDENTITY: ConversionPair = { currency: ACCOUNT_CURRENCY, symbol: '', operation: 'multiply' };

export class CurrencyConverter {
  /** Conversion pair per non-USD currency that has one. */
  private readonly pairs = new Map<string, ConversionPair>();
  /** Latest mid per conversion-pair symbol. */
  private readonly mids = new Map<string, TickQuote>();
  /** Currency per conversion-pair symbol (a symbol converts one currency). */
  private readonly currencyOfSymbol = new Map<string, string[]>();

  constructor(instruments: readonly CurrencyInstrument[]) {
    const currencies = new Set(instruments.map((i) => i.denomination));
    for (const currency of [...currencies].sort()) {
      if (currency === ACCOUNT_CURRENCY) continue;
      const pair = findConversionPair(currency, instruments);
      if (!pair) continue;
      this.pairs.set(currency, pair);
      this.currencyOfSymbol.set(pair.symbol, [...(this.currencyOfSymbol.get(pair.symbol) ?? []), currency]);
    }
  }

  static unconvertible = unconvertible;

  /** The pair used for `currency` (undefined for USD and for a currency without one). */
  pairFor(currency: string): ConversionPair | undefined {
    return this.pairs.get(currency);
  }

  /** Symbols whose quotes the converter needs, sorted. */
  conversionSymbols(): string[] {
    return [...this.currencyOfSymbol.keys()].sort();
  }

  /** Whether `currency` can be converted now (USD always; otherwise once its pair has a quote). */
  canConvert(currency: string): boolean {
    if (currency === ACCOUNT_CURRENCY) return true;
    const pair = this.pairs.get(currency);
    return pair !== undefined && this.mids.has(pair.symbol);
  }

  /**
   * Records the quote of `symbol` at this moment. Returns whether the symbol is a conversion pair
   * (quotes of other symbols are ignored, so the engine may pass every quote).
   */
  updateQuote(symbol: string, bid: Dec, ask: Dec): boolean {
    if (!this.currencyOfSymbol.has(symbol)) return false;
    const quote = TickQuote.fromDecimals(new Dec(bid), new Dec(ask));
    return this.attachQuote(symbol, quote);
  }

  /**
   * Follows a live quote of `symbol` (the position book's, updated in place with every bar): its mid is
   * read when a conversion needs it. Returns whether the symbol is a conversion pair.
   */
  attachQuote(symbol: string, quote: TickQuote): boolean {
    if (!this.currencyOfSymbol.has(symbol)) return false;
    if (quote.bidTicks + quote.askTicks <= 0) {
      throw new RangeError(
        `conversion quote of ${symbol} must have a positive mid (bid ${quote.bid}, ask ${quote.ask})`,
      );
    }
    this.mids.set(symbol, quote);
    return true;
  }

  /** The float rate of `currency` (USD per unit), for approximations only; NaN before a quote. */
  usdPerUnitApprox(currency: string): number {
    if (currency === ACCOUNT_CURRENCY) return 1;
    const pair = this.pairs.get(currency);
    const quote = pair && this.mids.get(pair.symbol);
    if (!pair || !quote) return Number.NaN;
    const mid = quote.midApprox();
    return pair.operation === 'divide' ? 1 / mid : mid;
  }

  /** Latest mid of the pair converting `currency` (undefined before its first quote). */
  midFor(currency: string): Dec | undefined {
    const pair = this.pairs.get(currency);
    return pair ? this.mids.get(pair.symbol)?.mid : undefined;
  }

  /** Throws `CurrencyConversionError`, saying why, unless `currency` can be converted now. */
  assertCanConvert(currency: string): void {
    this.rateOf(currency);
  }

  /** `amount` in `currency` converted to USD at the current mid of its pair (60 significant digits). */
  toUsd(amount: Dec, currency: string): Dec {
    if (currency === ACCOUNT_CURRENCY) return amount;
    const { pair, mid } = this.rateOf(currency);
    // A fresh 60-digit Dec: decimal.js takes the precision of the left operand.
    const value = new Dec(amount);
    return pair.operation === 'divide' ? value.div(mid) : value.times(mid);
  }

  /**
   * `toUsd` at the rate of this moment, captured as the pair's ticks (no decimals made now): for
   * valuing a captured moment later.
   */
  captureRate(currency: string): (amount: Dec) => Dec {
    if (currency === ACCOUNT_CURRENCY) return (amount) => amount;
    const pair = this.pairs.get(currency);
    const quote = pair && this.mids.get(pair.symbol);
    if (!pair || !quote) return (amount) => this.toUsd(amount, currency);
    const frozen = new TickQuote(quote.bidTicks, quote.askTicks, quote.decimals);
    return (amount) =>
      pair.operation === 'divide' ? new Dec(amount).div(frozen.mid) : new Dec(amount).times(frozen.mid);
  }

  private rateOf(currency: string): { pair: ConversionPair; mid: Dec } {
    const pair = this.pairs.get(currency);
    if (!pair) {
      if (currency === ACCOUNT_CURRENCY) return { pair: IDENTITY, mid: new Dec(1) };
      throw new CurrencyConversionError(
        currency,
        `cannot convert ${currency} to ${ACCOUNT_CURRENCY}: no ${ACCOUNT_CURRENCY}${currency} or ${currency}${ACCOUNT_CURRENCY} instrument in the scenario`,
      );
    }
    const mid = this.mids.get(pair.symbol)?.mid;
    if (!mid) {
      throw new CurrencyConversionError(
        currency,
        `cannot convert ${currency} to ${ACCOUNT_CURRENCY}: no quote of ${pair.symbol} yet`,
      );
    }
    return { pair, mid };
  }
}
