import { Dec, ticksToDecimalString, toDecimalString } from '@hindsight/core';
import { ACCOUNT_CURRENCY } from '../numbers/currency.ts';
import { Exact } from '../numbers/exact.ts';
import { isoTime } from '../numbers/iso-time.ts';
import {
  add,
  multiply,
  type Scaled,
  scaledApprox,
  scaledOf,
  scaledText,
  subtract,
} from '../numbers/scaled-decimal.ts';
import type { TickQuote } from '../numbers/tick-quote.ts';
import type { PositionSide } from '../orders/order-types.ts';
import type { OpenTradeLot } from './trade-lot.ts';

/**
 * One position: the live record the book changes fill by fill (`Position`), and the snapshot of it the
 * book hands out (`Snapshot`, the `PositionSnapshot` its events and queries carry). The rules are in
 * the module comment of position-book.ts.
 */

/** The gateway's Position resource (trading-gateway.md), decimals as canonical strings. */
export interface PositionView {
  id: string;
  symbol: string;
  side: PositionSide;
  quantity: string;
  average_entry_price: string;
  current_price: string;
  /** Quote currency (the spec's formula). */
  unrealized_pnl: string;
  /** USD, from closed parts. */
  realized_pnl: string;
  /** ISO-8601 UTC. */
  opened_at: string;
  updated_at: string;
}

/** A position in numbers, for the engine (margin, funding, equity). */
export interface PositionSnapshot {
  id: string;
  symbol: string;
  /** Quote currency (the instrument's denomination). */
  currency: string;
  side: PositionSide;
  /** 0 once closed. */
  quantity: Dec;
  averageEntryPrice: Dec;
  currentPrice: Dec;
  /** Quote currency. */
  unrealizedPnl: Dec;
  unrealizedPnlUsd: Dec;
  realizedPnlUsd: Dec;
  openedAt: number;
  updatedAt: number;
  /** Open lots, oldest (FIFO first) first. */
  openLots: readonly OpenTradeLot[];
  view: PositionView;
}

const ZERO = new Exact(0);
const SCALED_ZERO: Scaled = { value: 0n, scale: 0 };

export class Position {
  readonly lots: OpenTradeLot[] = [];
  /**
   * Sums over the open lots of units and of units x open_price, exact, as scaled integers read from the
   * lots' own texts: a fill changes them with a few BigInt additions and no decimal arithmetic.
   */
  quantity: Scaled = SCALED_ZERO;
  cost: Scaled = SCALED_ZERO;
  realizedUsd: Scaled = SCALED_ZERO;
  /**
   * Cost and quantity before the last reduction: the average shown once the position is closed (the
   * last one it had), divided only when a closed position's view is read.
   */
  lastCost: Scaled = SCALED_ZERO;
  lastQuantity: Scaled = SCALED_ZERO;
  updatedAt: number;
  /** The book's quote of the symbol once there is one (never replaced): no Map lookup every bar. */
  quote: TickQuote | undefined;
  private approx: { quantity: number; cost: number } | undefined;

  constructor(
    readonly id: string,
    readonly symbol: string,
    readonly currency: string,
    readonly side: PositionSide,
    readonly openedAt: number,
  ) {
    this.updatedAt = openedAt;
  }

  get isFlat(): boolean {
    return this.quantity.value === 0n;
  }

  /** Remembers the average before a reduction (see `lastCost`). */
  rememberAverage(): void {
    this.lastCost = this.cost;
    this.lastQuantity = this.quantity;
  }

  /** Adds a lot of `units` at `price` (the numbers its texts were written from). */
  addLot(lot: OpenTradeLot, units: Scaled, price: Scaled): void {
    this.lots.push(lot);
    this.quantity = add(this.quantity, units);
    this.cost = add(this.cost, multiply(units, price));
    this.approx = undefined;
  }

  /** Takes `units` at `price` closed out of the first lot (all of it, or a split-off part) off the totals. */
  takeClosed(units: Scaled, price: Scaled): void {
    this.quantity = subtract(this.quantity, units);
    this.cost = subtract(this.cost, multiply(units, price));
    this.approx = undefined;
  }

  /** Quantity and cost as floats, for approximations (margin and sampling pre-checks) only. */
  approxTotals(): { quantity: number; cost: number } {
    this.approx ??= { quantity: scaledApprox(this.quantity), cost: scaledApprox(this.cost) };
    return this.approx;
  }
}

/**
 * Unrealized P&L in the quote currency, exactly: current x quantity - cost for a long, cost - current x
 * quantity for a short (the spec's formula without the rounded average, see the module comment).
 */
export function unrealizedInQuote(long: boolean, quantity: Scaled, cost: Scaled, current: Dec): Dec {
  const value = multiply(quantity, scaledOf(current));
  return new Exact(scaledText(long ? subtract(value, cost) : subtract(cost, value)));
}

/** cost / quantity in 60 digits (0 for no quantity: a position never reduced has no last average). */
function averageOf(cost: Scaled, quantity: Scaled): Dec {
  return quantity.value === 0n ? ZERO : new Dec(scaledText(cost)).div(new Dec(scaledText(quantity)));
}

/**
 * A position as it was when taken: the immutable numbers are captured at once (decimal values are
 * never mutated, so keeping references is a copy), and what is derived from them (P&L, the wire view)
 * is computed when first read. Most snapshots a fill makes are never read.
 */
export class Snapshot implements PositionSnapshot {
  readonly id: string;
  readonly symbol: string;
  readonly currency: string;
  readonly side: PositionSide;
  readonly openedAt: number;
  readonly updatedAt: number;
  readonly openLots: readonly OpenTradeLot[];
  private readonly exactQuantity: Scaled;
  private readonly cost: Scaled;
  private readonly realized: Scaled;
  private readonly lastCost: Scaled;
  private readonly lastQuantity: Scaled;
  private cache: Partial<
    Pick<
      PositionSnapshot,
      'quantity' | 'averageEntryPrice' | 'unrealizedPnl' | 'unrealizedPnlUsd' | 'realizedPnlUsd' | 'view'
    >
  > = {};

  /**
   * The mark as it was: its ticks (a decimal is made only if read: most snapshots a fill makes never
   * are), or a fallback price before the symbol's first quote.
   */
  constructor(
    p: Position,
    private readonly markTicks: number,
    private readonly markDecimals: number,
    private mark: Dec | undefined,
    private readonly toUsd: (amount: Dec) => Dec,
  ) {
    this.id = p.id;
    this.symbol = p.symbol;
    this.currency = p.currency;
    this.side = p.side;
    this.openedAt = p.openedAt;
    this.updatedAt = p.updatedAt;
    this.openLots = [...p.lots];
    this.exactQuantity = p.quantity;
    this.cost = p.cost;
    this.realized = p.realizedUsd;
    this.lastCost = p.lastCost;
    this.lastQuantity = p.lastQuantity;
  }

  /** Bid for a long, ask for a short, when the snapshot was taken (decision 4). */
  get currentPrice(): Dec {
    this.mark ??= new Dec(ticksToDecimalString(this.markTicks, this.markDecimals));
    return this.mark;
  }

  private get isClosed(): boolean {
    return this.exactQuantity.value === 0n;
  }

  get quantity(): Dec {
    this.cache.quantity ??= new Dec(scaledText(this.exactQuantity));
    return this.cache.quantity;
  }

  get averageEntryPrice(): Dec {
    this.cache.averageEntryPrice ??= this.isClosed
      ? averageOf(this.lastCost, this.lastQuantity)
      : averageOf(this.cost, this.exactQuantity);
    return this.cache.averageEntryPrice;
  }

  /** Quote currency: current x quantity - cost (long), exact. */
  get unrealizedPnl(): Dec {
    if (!this.cache.unrealizedPnl) {
      if (this.isClosed) this.cache.unrealizedPnl = ZERO;
      else {
        const long = this.side === 'LONG';
        this.cache.unrealizedPnl = new Dec(
          unrealizedInQuote(long, this.exactQuantity, this.cost, this.currentPrice),
        );
      }
    }
    return this.cache.unrealizedPnl;
  }

  get unrealizedPnlUsd(): Dec {
    if (!this.cache.unrealizedPnlUsd) {
      const quote = this.unrealizedPnl;
      this.cache.unrealizedPnlUsd =
        this.currency === ACCOUNT_CURRENCY || quote.isZero() ? quote : new Dec(this.toUsd(quote));
    }
    return this.cache.unrealizedPnlUsd;
  }

  get realizedPnlUsd(): Dec {
    this.cache.realizedPnlUsd ??= new Dec(scaledText(this.realized));
    return this.cache.realizedPnlUsd;
  }

  get view(): PositionView {
    this.cache.view ??= {
      id: this.id,
      symbol: this.symbol,
      side: this.side,
      quantity: scaledText(this.exactQuantity),
      average_entry_price: toDecimalString(this.averageEntryPrice),
      current_price: toDecimalString(this.currentPrice),
      unrealized_pnl: toDecimalString(this.unrealizedPnl),
      realized_pnl: scaledText(this.realized),
      opened_at: isoTime(this.openedAt),
      updated_at: isoTime(this.updatedAt),
    };
    return this.cache.view;
  }
}
