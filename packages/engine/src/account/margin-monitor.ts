import { Dec } from '@hindsight/core';
import {
  exposureDelta,
  MARGIN_LEVELS,
  type MarginState,
  marginEvent,
  marginLevelPct,
  marginState,
  releasedMargin,
  requiredMargin,
  stopOutPlan,
  wouldExceedMargin,
} from '../models/margin.ts';
import type { CurrencyConverter } from '../numbers/currency.ts';
import { Exact } from '../numbers/exact.ts';
import {
  absolute,
  add,
  fitsDec,
  multiply,
  type Scaled,
  scaledOf,
  scaledText,
} from '../numbers/scaled-decimal.ts';
import type { TickQuote } from '../numbers/tick-quote.ts';
import type { Side } from '../orders/order-types.ts';
import type { ScaledValuation, Valuation } from '../positions/captured-positions.ts';
import type { PositionSnapshot } from '../positions/position.ts';
import type { PositionBook } from '../positions/position-book.ts';
import type { Account } from './account.ts';

/**
 * The account's margin (docs/fills.md "Leverage and margin"): margin used, the free-margin check of a
 * new order, and the margin level watched at every minute with its events and stop-out plan. Floats
 * decide when the answer is clear by more than a relative 1e-9; otherwise the exact books do.
 */
export interface MarginMonitorOptions {
  book: PositionBook;
  account: Account;
  converter: CurrencyConverter;
  /** The default leverage of each instrument (positions are margined at it). */
  leverageOf: (symbol: string) => Dec;
  /** The balance as a float, kept by the engine as the balance changes. */
  balanceApprox: () => number;
}

/** An order's margin question: does adding it exceed the free margin? */
export interface MarginRequest {
  symbol: string;
  side: Side;
  quantity: Dec;
  /** Its own price; undefined for the current quote on its side (`quote`). */
  price: Dec | undefined;
  /** The instrument's current quote (its decimals are made only if the exact check runs). */
  quote: TickQuote;
  /** The order's effective leverage. */
  leverage: Dec;
  denomination: string;
  /** Netting: opposite units close the position first and free its margin. */
  netting: boolean;
}

export interface MarginChange {
  state: MarginState;
  /** The account event for a move to a worse state, if any. */
  event: 'MARGIN_WARNING' | 'MARGIN_CALL' | null;
  marginUsed: Dec;
}

const LEVELS_APPROX = [MARGIN_LEVELS.stopOutPct, MARGIN_LEVELS.callPct, MARGIN_LEVELS.warningPct].map(
  Number,
) as [number, number, number];

const nearLevel = (level: number, threshold: number): boolean =>
  Math.abs(level - threshold) <= 1e-9 * threshold;

/** The margin state from floats, or undefined within a relative 1e-9 of a threshold (or not a number). */
export function marginStateApprox(nav: number, margin: number): MarginState | undefined {
  if (!Number.isFinite(nav) || !Number.isFinite(margin)) return undefined;
  if (margin <= 0) return 'ok';
  const level = (nav / margin) * 100;
  const [stopOut, call, warning] = LEVELS_APPROX;
  // Runs every bar with a position open: plain comparisons, no closure.
  if (nearLevel(level, stopOut) || nearLevel(level, call) || nearLevel(level, warning)) return undefined;
  if (level <= stopOut) return 'stop_out';
  if (level <= call) return 'call';
  if (level <= warning) return 'warning';
  return 'ok';
}

const FLAT = { unrealizedUsd: 0, marginUsd: 0 };

export class MarginMonitor {
  private level: MarginState = 'ok';
  private readonly leverageApprox = new Map<string, number>();

  constructor(private readonly options: MarginMonitorOptions) {}

  /** The state at the last check. */
  get state(): MarginState {
    return this.level;
  }

  /** Margin locked by open positions: notional in USD at the current price over the leverage. */
  marginUsed(): Dec {
    return this.marginOf(this.options.book.capture().exact());
  }

  marginOf(valuation: Valuation): Dec {
    let used = new Dec(0);
    for (const { symbol, notionalUsd } of valuation.notionals) {
      used = used.plus(requiredMargin(notionalUsd, this.options.leverageOf(symbol)));
    }
    return used;
  }

  /**
   * `marginOf` as canonical text from a scaled valuation: |notional| x (1 / leverage) per position,
   * summed, when 1 / leverage is a finite decimal and every amount fits the 60 digits `Dec` would keep
   * (then both give the same exact number); undefined otherwise, for the caller to take `marginOf`.
   */
  marginTextOf(valuation: ScaledValuation): string | undefined {
    let used: Scaled | undefined;
    for (const { symbol, notionalUsd } of valuation.notionals) {
      const reciprocal = this.leverageReciprocal(symbol);
      if (!reciprocal || !fitsDec(notionalUsd)) return undefined;
      // Leverage 1 (the default of several asset classes) needs no product.
      const margin =
        reciprocal.value === 1n && reciprocal.scale === 0
          ? absolute(notionalUsd)
          : multiply(absolute(notionalUsd), reciprocal);
      used = used === undefined ? margin : add(used, margin);
      if (!fitsDec(margin) || !fitsDec(used)) return undefined;
    }
    return used === undefined ? '0' : scaledText(used);
  }

  /** 1 / the symbol's leverage as a scaled integer when it is a finite decimal (2 -> 0.5), else null. */
  private leverageReciprocal(symbol: string): Scaled | null {
    let reciprocal = this.reciprocals.get(symbol);
    if (reciprocal === undefined) {
      const leverage = this.options.leverageOf(symbol);
      const quotient = new Dec(1).div(leverage);
      reciprocal = new Exact(quotient).times(leverage).eq(1) ? scaledOf(quotient) : null;
      this.reciprocals.set(symbol, reciprocal);
    }
    return reciprocal;
  }

  private readonly reciprocals = new Map<string, Scaled | null>();

  /**
   * Float NAV and margin used of the open positions (pre-checks and sampling decisions): one object,
   * rewritten by the next call (it runs every bar while a position is open).
   */
  approx(): { nav: number; marginUsd: number } {
    const { book } = this.options;
    const totals = book.size > 0 ? book.approxTotals(this.approxLeverage) : FLAT;
    this.approxAnswer.nav = this.options.balanceApprox() + totals.unrealizedUsd;
    this.approxAnswer.marginUsd = totals.marginUsd;
    return this.approxAnswer;
  }

  private readonly approxAnswer = { nav: 0, marginUsd: 0 };

  /**
   * An order that would add exposure beyond the free margin is refused (INSUFFICIENT_MARGIN), judged at
   * submission at its own price or the current quote. Closing exposure (netting) frees its margin first.
   */
  exceeds(request: MarginRequest): boolean {
    if (this.clearlyFits(request)) return false;
    const { book, converter, account } = this.options;
    const orderUnits = request.side === 'BUY' ? request.quantity : request.quantity.neg();
    let current = new Dec(0);
    let held = new Dec(0);
    if (request.netting) {
      for (const p of book.positions(request.symbol)) {
        current = current.plus(p.side === 'LONG' ? p.quantity : p.quantity.neg());
        held = held.plus(this.positionMargin(p));
      }
    }
    const delta = exposureDelta(current, orderUnits);
    const price = request.price ?? (request.side === 'BUY' ? request.quote.ask : request.quote.bid);
    const additionalMargin = requiredMargin(
      converter.toUsd(delta.times(price), request.denomination),
      request.leverage,
    );
    const marginUsed = this.marginUsed().minus(releasedMargin(current, orderUnits, held));
    return wouldExceedMargin({ equity: account.equity, marginUsed, additionalMargin });
  }

  /**
   * The check of the minute: undefined when the state is clearly unchanged (floats), else the new
   * state with the event a worse state emits.
   */
  check(navApprox: number, marginApprox: number): MarginChange | undefined {
    const approxState = marginStateApprox(navApprox, marginApprox);
    if (approxState !== undefined && approxState === this.level && approxState !== 'stop_out')
      return undefined;
    const marginUsed = this.marginUsed();
    const state = marginState(this.options.account.equity, marginUsed);
    const event = marginEvent(this.level, state);
    this.level = state;
    return { state, event, marginUsed };
  }

  /** At stop-out: the position to liquidate next (largest loss first) and the level now; none once above. */
  nextLiquidation(): { position: PositionSnapshot; levelPct: Dec } | undefined {
    const used = this.marginUsed();
    const equity = this.options.account.equity;
    const candidates = this.options.book.positions().map((position) => ({
      id: position.id,
      unrealizedPnl: position.unrealizedPnlUsd,
      margin: this.positionMargin(position),
      position,
    }));
    const [first] = stopOutPlan(equity, used, candidates);
    return first ? { position: first.position, levelPct: marginLevelPct(equity, used) as Dec } : undefined;
  }

  /** After liquidations: the state is read again (re-arming the events it has left). */
  recheck(): void {
    this.level = marginState(this.options.account.equity, this.marginUsed());
  }

  private positionMargin(position: PositionSnapshot): Dec {
    const notional = this.options.converter.toUsd(
      position.quantity.times(position.currentPrice),
      position.currency,
    );
    return requiredMargin(notional, this.options.leverageOf(position.symbol));
  }

  /**
   * When the order fits in floats by a margin of 1e-9 of the amounts involved, it fits: the float terms
   * are the exact check's (under netting an opposite order frees its position's margin pro rata and
   * adds only the exposure beyond it), each within ~1e-15 of its exact value. Else the exact check runs.
   */
  private clearlyFits(request: MarginRequest): boolean {
    const { nav, marginUsd } = this.approx();
    const rate = this.options.converter.usdPerUnitApprox(request.denomination);
    const leverage = this.floatOf(request.leverage);
    const orderUnits = this.floatOf(request.quantity);
    let exposure = orderUnits;
    let released = 0;
    if (request.netting) {
      const held = this.options.book.approxHolding(request.symbol, this.approxLeverage(request.symbol));
      const current = Math.abs(held.units);
      if (current > 0 && held.units > 0 !== (request.side === 'BUY')) {
        released = (held.marginUsd * Math.min(orderUnits, current)) / current;
        exposure = Math.max(orderUnits - current, 0);
      }
    }
    const price =
      request.price?.toNumber() ??
      (request.side === 'BUY' ? request.quote.askApprox() : request.quote.bidApprox());
    const additional = (Math.abs(exposure * price) * rate) / leverage;
    const needed = marginUsd - released + additional;
    const slack = 1e-9 * (marginUsd + additional + Math.abs(nav));
    return Number.isFinite(needed) && Number.isFinite(slack) && needed + slack < nav;
  }

  /**
   * A decimal as a float, once per decimal: an order's leverage is usually the asset class's constant,
   * and orders of one quantity share its decimal (the gateway's parser gives one decimal per request
   * text, its `protocol/request-decimals.ts`; an in-process strategy keeps its own).
   */
  private floatOf(decimal: Dec): number {
    let float = this.floats.get(decimal);
    if (float === undefined) {
      float = decimal.toNumber();
      this.floats.set(decimal, float);
    }
    return float;
  }

  private readonly floats = new WeakMap<Dec, number>();

  private readonly approxLeverage = (symbol: string): number => {
    let leverage = this.leverageApprox.get(symbol);
    if (leverage === undefined) {
      leverage = this.options.leverageOf(symbol).toNumber();
      this.leverageApprox.set(symbol, leverage);
    }
    return leverage;
  };
}
