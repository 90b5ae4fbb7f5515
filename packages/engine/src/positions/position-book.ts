/**
 * Positions and their trade lots, per `positionMode` (management-api.md: `netting` collapses every
 * fill on a symbol into one position; `hedging` keeps separate positions).
 *
 * - Netting: one position per symbol. A fill on the position's side adds a lot; an opposite fill
 *   closes lots FIFO; a fill larger than the position closes it entirely (POSITION_CLOSED) and opens
 *   a new position, with a new id, in the other direction with the excess (POSITION_OPENED). The close
 *   part and the open part are separate lots. `positionId` on a fill is ignored (the gateway field is
 *   for hedging accounts; under netting orders are plain buys and sells).
 * - Hedging: every fill without `positionId` opens a new position (one position per entry fill, even
 *   when a position on the same symbol and side exists). A fill with `positionId` reduces that position:
 *   it must exist, be on the fill's symbol, be on the opposite side, and hold at least the fill's
 *   units (the caller clamps or rejects before the fill; a violation throws `PositionBookError`).
 *
 * Lots (trade-lot.ts): each opening fill opens one lot. Reductions close the oldest lots first
 * (FIFO); a lot closed in part is split with `splitLot`: the closed units become a new lot (a new id,
 * created now) that is closed at once, the rest stays open under the original id, so open lots stay in
 * id order and FIFO is id order. A closed lot's `realized_pnl` is units x (close - open) for Long and
 * units x (open - close) for Short, in the quote currency, converted to USD at the close (decision 1).
 * The fill's commission (USD) is shared pro rata by units over its parts (each closed lot's
 * `exit_commission`, then the opened lot's `entry_commission` on a reversal); the last part takes the
 * remainder, so the parts add up to the fill's commission exactly.
 *
 * End of the backtest: nothing is closed here. Lots still open at the end stay `Open` in the trades
 * file, which omits their close-side fields (management-api.md: "A trade still open at the end of the
 * run omits every close-side field"); their result shows in NAV through unrealized P&L. `EndOfBacktest`
 * is only the `closeReason` of fills a scenario makes to flatten at the end, supplied by the caller.
 *
 * Position view (trading-gateway.md, Position):
 * - `average_entry_price` is the unit-weighted average of the open lots' prices. A partial close of a
 *   lot leaves it unchanged, as the spec says; when FIFO closes the whole of an older lot with a
 *   different price, the average follows the lots that remain (as OANDA's position average does), so
 *   realized (by lot) plus unrealized (by position) always add up to the lots' true P&L.
 * - `current_price` is the bid for a long and the ask for a short (decision 4), from `mark`; before
 *   the symbol's first mark, the last fill's pre-slippage price.
 * - `unrealized_pnl` is (current - average) x quantity for a long, (average - current) x quantity for a
 *   short, in the quote currency (the spec's formula); `unrealizedPnlUsd` on the snapshot is the same
 *   converted at the current rate, which is what the account's equity uses. It is computed as
 *   current x quantity - sum(lot units x lot price), equal to the formula but exact (no rounded average).
 * - `realized_pnl` is the sum of the position's closed lots' `realized_pnl` (USD).
 * - `updated_at` moves with fills, not with marks.
 */
import { Dec } from '@hindsight/core';
import { ACCOUNT_CURRENCY, CurrencyConverter, type CurrencyInstrument } from '../numbers/currency.ts';
import { Exact } from '../numbers/exact.ts';
import { flatText } from '../numbers/flat-text.ts';
import {
  add,
  compare,
  multiply,
  RecentText,
  type Scaled,
  scaledOf,
  scaledOfText,
  scaledText,
  shareOf,
  subtract,
} from '../numbers/scaled-decimal.ts';
import { TickQuote } from '../numbers/tick-quote.ts';
import type { PositionSide } from '../orders/order-types.ts';
import { CapturedPositions } from './captured-positions.ts';
import { type FillFigures, figuresOf } from './fill-figures.ts';
import { type BookFill, type FillOrder, type FillOutcome, Outcome } from './fill-outcome.ts';
import { LotTotals } from './lot-totals.ts';
import { Position, type PositionSnapshot, Snapshot, unrealizedInQuote } from './position.ts';
import {
  type ClosedTradeLot,
  formatTradeId,
  type OpenTradeLot,
  splitLot,
  type TradeDirection,
  type TradeLot,
  writeClosedLot,
  writeOpenLot,
} from './trade-lot.ts';

export type PositionMode = 'netting' | 'hedging';

export type PositionBookErrorCode =
  | 'UNKNOWN_SYMBOL'
  | 'INVALID_FILL'
  | 'POSITION_NOT_FOUND'
  | 'POSITION_SYMBOL_MISMATCH'
  | 'POSITION_SAME_SIDE'
  | 'EXCEEDS_POSITION';

export class PositionBookError extends Error {
  readonly code: PositionBookErrorCode;
  constructor(code: PositionBookErrorCode, message: string) {
    super(message);
    this.name = 'PositionBookError';
    this.code = code;
  }
}

/** Position ids: `pos-` and the creation sequence zero-padded (string order is creation order). */
export function formatPositionId(sequence: number): string {
  return flatText('pos-', formatTradeId(sequence));
}

export interface PositionBookOptions {
  mode: PositionMode;
  /** Every instrument the scenario trades (and the conversion pairs). */
  instruments: readonly CurrencyInstrument[];
  /** Shared converter; by default one built from `instruments`. `mark` feeds it every quote. */
  converter?: CurrencyConverter;
}

const ZERO = new Exact(0);
const SCALED_ZERO: Scaled = { value: 0n, scale: 0 };
const sameAmount = (amount: Dec): Dec => amount;
const directionOf = (side: PositionSide): TradeDirection => (side === 'LONG' ? 'Long' : 'Short');

export class PositionBook {
  readonly mode: PositionMode;
  readonly converter: CurrencyConverter;
  private readonly currencies = new Map<string, string>();
  /** Open positions by id, in creation (= id) order. */
  private readonly open = new Map<string, Position>();
  /** Netting: the open position of each symbol. */
  private readonly bySymbol = new Map<string, Position>();
  /**
   * Every lot at its sequence - 1 (a lot's id is its sequence number), so in id order and a lot
   * replaced in its place: a Map keyed by each new id string cost more than the rest of the lot's
   * bookkeeping.
   */
  private readonly allLots: TradeLot[] = [];
  /** What the metrics read from the lots, added as the lots are written. */
  readonly lotTotals = new LotTotals();
  private readonly quotes = new Map<string, TickQuote>();
  /** The last fill's pre-slippage price of each symbol, as text (a mark only before the first quote). */
  private readonly lastFillBase = new Map<string, string>();
  private lotSequence = 0;
  private positionSequence = 0;
  /** The lots' commission and part-units texts, an equal amount sharing the last one's string. */
  private readonly commissionText = new RecentText();
  private readonly partUnitsText = new RecentText();

  constructor(options: PositionBookOptions) {
    this.mode = options.mode;
    for (const i of options.instruments) this.currencies.set(i.symbol, i.denomination);
    this.converter = options.converter ?? new CurrencyConverter(options.instruments);
  }

  /** Latest bid/ask of `symbol` (the last completed base bar); also a conversion quote when it is a pair. */
  mark(symbol: string, bid: Dec, ask: Dec): void {
    const quote = TickQuote.fromDecimals(new Dec(bid), new Dec(ask));
    this.markTicks(symbol, quote.bidTicks, quote.askTicks, quote.decimals);
  }

  /** `mark` with the bar's integer ticks: stores three numbers, no decimal arithmetic. */
  markTicks(symbol: string, bidTicks: number, askTicks: number, decimals: number): TickQuote {
    const quote = this.quotes.get(symbol);
    if (quote) {
      quote.set(bidTicks, askTicks, decimals);
      return quote;
    }
    const created = new TickQuote(bidTicks, askTicks, decimals);
    this.quotes.set(symbol, created);
    this.converter.attachQuote(symbol, created);
    return created;
  }

  /** A position's quote (the symbol's, which is made once and then only updated). */
  private quoteOf(p: Position): TickQuote | undefined {
    if (p.quote === undefined) p.quote = this.quotes.get(p.symbol);
    return p.quote;
  }

  /**
   * Unrealized P&L and margin of the open positions as floats (USD), for deciding cheaply whether a
   * margin level or a sampling decision needs the exact books. Never shown to a user. The answer is
   * one object, rewritten by the next call (this runs every bar while a position is open).
   */
  approxTotals(leverageOf: (symbol: string) => number): { unrealizedUsd: number; marginUsd: number } {
    let unrealizedUsd = 0;
    let marginUsd = 0;
    for (const p of this.open.values()) {
      const totals = p.approxTotals();
      const value = totals.quantity * this.approxMark(p);
      const rate = this.converter.usdPerUnitApprox(p.currency);
      unrealizedUsd += (p.side === 'LONG' ? value - totals.cost : totals.cost - value) * rate;
      marginUsd += (Math.abs(value) * rate) / leverageOf(p.symbol);
    }
    this.totalsApprox.unrealizedUsd = unrealizedUsd;
    this.totalsApprox.marginUsd = marginUsd;
    return this.totalsApprox;
  }

  private readonly totalsApprox = { unrealizedUsd: 0, marginUsd: 0 };

  /**
   * The signed units (+ long) and the margin (USD) of `symbol`'s open positions as floats, for the
   * order margin pre-check (netting frees a position's margin before a reversal adds exposure).
   */
  approxHolding(symbol: string, leverage: number): { units: number; marginUsd: number } {
    let units = 0;
    let marginUsd = 0;
    for (const p of this.open.values()) {
      if (p.symbol !== symbol) continue;
      const quantity = p.approxTotals().quantity;
      const value = quantity * this.approxMark(p);
      units += p.side === 'LONG' ? quantity : -quantity;
      marginUsd += (Math.abs(value) * this.converter.usdPerUnitApprox(p.currency)) / leverage;
    }
    return { units, marginUsd };
  }

  /** A position's mark (bid long, ask short; the last fill's base price before a quote) as a float. */
  private approxMark(p: Position): number {
    const quote = this.quoteOf(p);
    if (!quote) return Number(this.lastFillBase.get(p.symbol));
    return p.side === 'LONG' ? quote.bidApprox() : quote.askApprox();
  }

  applyFill(fill: BookFill): FillOutcome {
    if (!fill.units.isFinite()) {
      throw new PositionBookError('INVALID_FILL', `fill of order ${fill.orderId} must have positive units`);
    }
    return this.applyPriced(fill, figuresOf(fill));
  }

  /** `applyFill` with the fill's amounts as figures (the engine prices fills in scaled integers). */
  applyPriced(fill: FillOrder, figures: FillFigures): FillOutcome {
    const currency = this.currencyOf(fill.symbol);
    const units = figures.units;
    if (units.value <= 0n) {
      throw new PositionBookError('INVALID_FILL', `fill of order ${fill.orderId} must have positive units`);
    }
    if (!Number.isSafeInteger(fill.time)) {
      throw new PositionBookError('INVALID_FILL', `fill of order ${fill.orderId} must have an integer time`);
    }
    // Checked before any change, so a refused fill leaves the book as it was.
    this.converter.assertCanConvert(currency);
    const fillSide: PositionSide = fill.side === 'BUY' ? 'LONG' : 'SHORT';
    const target = this.targetOf(fill, fillSide, units);

    // Plan the parts: closing slices of the target's lots (FIFO), then the opening part.
    const closing: Scaled[] = [];
    const closingLots: Scaled[] = [];
    let openUnits: Scaled = units;
    if (target && target.side !== fillSide) {
      let left = units;
      for (const lot of target.lots) {
        if (left.value === 0n) break;
        if (lot.opened_at > fill.time) {
          throw new PositionBookError(
            'INVALID_FILL',
            `fill of order ${fill.orderId} is before lot ${lot.id} opened`,
          );
        }
        const lotUnits = scaledOfText(lot.units);
        const take = compare(left, lotUnits) < 0 ? left : lotUnits;
        closing.push(take);
        closingLots.push(lotUnits);
        left = subtract(left, take);
      }
      openUnits = left;
    }
    const weights = openUnits.value === 0n ? closing : [...closing, openUnits];
    const shares = proRata(figures.commission, weights);

    // Nothing below throws for a valid fill: the book changes only from here on.
    this.lastFillBase.set(fill.symbol, figures.basePriceText);
    const outcome = new Outcome(fill.orderId, fill.symbol, fill.time, figures.commission);

    const events = fill.events !== false;
    if (target && closing.length > 0) {
      target.rememberAverage();
      for (let index = 0; index < closing.length; index++) {
        const part = closing[index] as Scaled;
        const exitCommission = shares[index] as Scaled;
        const lotUnits = closingLots[index] as Scaled;
        const { closed, realizedUsd } = this.closeFirst(
          target,
          part,
          lotUnits,
          fill,
          figures,
          exitCommission,
          currency,
        );
        outcome.closedLots.push(closed);
        outcome.realizedUsd = add(outcome.realizedUsd, realizedUsd);
      }
      target.updatedAt = fill.time;
      if (target.isFlat) {
        this.open.delete(target.id);
        if (this.bySymbol.get(target.symbol) === target) this.bySymbol.delete(target.symbol);
        if (events)
          outcome.events.push({ type: 'POSITION_CLOSED', time: fill.time, position: this.snapshot(target) });
      } else if (events) {
        outcome.events.push({ type: 'POSITION_MODIFIED', time: fill.time, position: this.snapshot(target) });
      }
    }

    if (openUnits.value !== 0n) {
      const adding = target !== undefined && target.side === fillSide;
      const position = adding ? target : this.newPosition(fill, fillSide, currency);
      const entryCommission = shares[shares.length - 1] as Scaled;
      const lot = writeOpenLot({
        id: this.nextLotId(),
        instrumentSymbol: fill.symbol,
        direction: directionOf(fillSide),
        units: openUnits === units ? figures.unitsText : this.partUnitsText.of(openUnits),
        openPrice: figures.priceText,
        baseOpenPrice: figures.basePriceText,
        openSlippageBps: figures.slippageBpsText,
        entryCommission: this.commissionText.of(entryCommission),
        openedAt: fill.time,
        openedByOrderId: fill.orderId,
      });
      position.addLot(lot, openUnits, figures.price);
      position.updatedAt = fill.time;
      this.keepLot(lot);
      if (lot.entry_commission !== undefined) this.lotTotals.addCommission(entryCommission);
      outcome.openedLots.push(lot);
      if (events)
        outcome.events.push({
          type: adding ? 'POSITION_MODIFIED' : 'POSITION_OPENED',
          time: fill.time,
          position: this.snapshot(position),
        });
    }
    return outcome;
  }

  /** Whether a position of `symbol` is open (no snapshot made). */
  holds(symbol: string): boolean {
    for (const p of this.open.values()) if (p.symbol === symbol) return true;
    return false;
  }

  /** How many positions are open. */
  get size(): number {
    return this.open.size;
  }

  /** Open positions in id order, optionally of one symbol. */
  positions(symbol?: string): PositionSnapshot[] {
    const out: PositionSnapshot[] = [];
    for (const p of this.open.values())
      if (symbol === undefined || p.symbol === symbol) out.push(this.snapshot(p));
    return out;
  }

  /** An open position by id (a closed one is gone). */
  position(id: string): PositionSnapshot | undefined {
    const p = this.open.get(id);
    return p ? this.snapshot(p) : undefined;
  }

  /** Netting: the open position of a symbol. */
  positionOf(symbol: string): PositionSnapshot | undefined {
    for (const p of this.open.values()) if (p.symbol === symbol) return this.snapshot(p);
    return undefined;
  }

  /** Every lot, open and closed, sorted by id (the trades file). */
  lots(): TradeLot[] {
    return this.allLots.filter((lot) => lot !== undefined);
  }

  /** Open lots of every position, sorted by id. */
  openLots(): OpenTradeLot[] {
    return this.lots().filter((l): l is OpenTradeLot => l.state === 'Open');
  }

  /** Sum of the open positions' unrealized P&L in USD (the account's unrealized). */
  unrealizedPnlUsd(): Dec {
    let sum: Dec = ZERO;
    for (const p of this.open.values()) sum = sum.plus(this.unrealizedUsd(p));
    return new Dec(sum);
  }

  /** The current mark of a position: bid for a long, ask for a short (decision 4). */
  currentPrice(symbol: string, side: PositionSide): Dec {
    const quote = this.quotes.get(symbol);
    if (quote) return side === 'LONG' ? quote.bid : quote.ask;
    const base = this.lastFillBase.get(symbol);
    if (base !== undefined) return new Dec(base);
    throw new PositionBookError('UNKNOWN_SYMBOL', `no price for ${symbol} yet`);
  }

  private currencyOf(symbol: string): string {
    const currency = this.currencies.get(symbol);
    if (currency === undefined) {
      throw new PositionBookError('UNKNOWN_SYMBOL', `${symbol} is not an instrument of this book`);
    }
    return currency;
  }

  private targetOf(fill: FillOrder, fillSide: PositionSide, units: Scaled): Position | undefined {
    if (this.mode === 'netting') return this.bySymbol.get(fill.symbol);
    if (fill.positionId === undefined) return undefined;
    const target = this.open.get(fill.positionId);
    if (!target) {
      throw new PositionBookError('POSITION_NOT_FOUND', `position ${fill.positionId} is not open`);
    }
    if (target.symbol !== fill.symbol) {
      throw new PositionBookError(
        'POSITION_SYMBOL_MISMATCH',
        `position ${target.id} is on ${target.symbol}, not ${fill.symbol}`,
      );
    }
    if (target.side === fillSide) {
      throw new PositionBookError(
        'POSITION_SAME_SIDE',
        `a ${fill.side} fill cannot reduce ${target.side} position ${target.id}`,
      );
    }
    if (compare(units, target.quantity) > 0) {
      throw new PositionBookError(
        'EXCEEDS_POSITION',
        `fill of ${scaledText(units)} exceeds position ${target.id} of ${scaledText(target.quantity)}`,
      );
    }
    return target;
  }

  private newPosition(fill: FillOrder, side: PositionSide, currency: string): Position {
    this.positionSequence += 1;
    const position = new Position(
      formatPositionId(this.positionSequence),
      fill.symbol,
      currency,
      side,
      fill.time,
    );
    this.open.set(position.id, position);
    if (this.mode === 'netting') this.bySymbol.set(fill.symbol, position);
    return position;
  }

  private keepLot(lot: TradeLot): void {
    this.allLots[Number(lot.id) - 1] = lot;
  }

  private nextLotId(): string {
    this.lotSequence += 1;
    return formatTradeId(this.lotSequence);
  }

  /**
   * Closes `units` of the position's first lot (of `lotUnits`: all of it, or a split-off part) and
   * returns the closed lot with its realized P&L in USD (the number its `realized_pnl` is written from).
   */
  private closeFirst(
    position: Position,
    units: Scaled,
    lotUnits: Scaled,
    fill: FillOrder,
    figures: FillFigures,
    exitCommission: Scaled,
    currency: string,
  ): { closed: ClosedTradeLot; realizedUsd: Scaled } {
    const first = position.lots[0];
    if (!first) throw new Error(`position ${position.id} has no lot to close`);
    let toClose: OpenTradeLot = first;
    if (compare(units, lotUnits) < 0) {
      const { detached, remainder } = splitLot(first, scaledText(units), this.nextLotId());
      position.lots[0] = remainder;
      this.keepLot(remainder);
      toClose = detached;
    } else {
      position.lots.shift();
    }
    const open = scaledOfText(toClose.open_price);
    position.takeClosed(units, open);
    const close = figures.price;
    const realizedQuote = multiply(
      units,
      position.side === 'LONG' ? subtract(close, open) : subtract(open, close),
    );
    const realizedUsd =
      currency === ACCOUNT_CURRENCY
        ? realizedQuote
        : scaledOf(this.converter.toUsd(new Dec(scaledText(realizedQuote)), currency));
    const closed = writeClosedLot(toClose, {
      closePrice: figures.priceText,
      baseClosePrice: figures.basePriceText,
      closeSlippageBps: figures.slippageBpsText,
      exitCommission: this.commissionText.of(exitCommission),
      closedAt: fill.time,
      closedByOrderId: fill.orderId,
      realizedPnl: scaledText(realizedUsd),
      closeReason: fill.closeReason ?? 'Normal',
    });
    position.realizedUsd = add(position.realizedUsd, realizedUsd);
    this.keepLot(closed);
    if (closed.exit_commission !== undefined) this.lotTotals.addCommission(exitCommission);
    this.lotTotals.addClosed(realizedUsd, closed.closed_at - closed.opened_at);
    return { closed, realizedUsd };
  }

  private unrealizedUsd(p: Position): Dec {
    if (p.isFlat) return ZERO;
    const pnl = unrealizedInQuote(p.side === 'LONG', p.quantity, p.cost, this.currentPrice(p.symbol, p.side));
    return this.converter.toUsd(pnl, p.currency);
  }

  private snapshot(p: Position): PositionSnapshot {
    const quote = this.quoteOf(p);
    const toUsd = p.currency === ACCOUNT_CURRENCY ? sameAmount : this.converter.captureRate(p.currency);
    if (!quote) return new Snapshot(p, 0, -1, this.currentPrice(p.symbol, p.side), toUsd);
    const ticks = p.side === 'LONG' ? quote.bidTicks : quote.askTicks;
    return new Snapshot(p, ticks, quote.decimals, undefined, toUsd);
  }

  /**
   * The open positions' numbers and marks as they are now, to value them exactly later; written into
   * `into` (a capture nothing reads any more) when given.
   */
  capture(into = new CapturedPositions()): CapturedPositions {
    into.clear();
    for (const p of this.open.values()) {
      const quote = this.quoteOf(p);
      const usd = p.currency === ACCOUNT_CURRENCY;
      const part = into.next();
      part.symbol = p.symbol;
      part.long = p.side === 'LONG';
      part.quantity = p.quantity;
      part.cost = p.cost;
      part.ticks = quote ? (p.side === 'LONG' ? quote.bidTicks : quote.askTicks) : 0;
      part.decimals = quote ? quote.decimals : -1;
      part.fallback = quote ? undefined : this.currentPrice(p.symbol, p.side);
      part.toUsd = usd ? sameAmount : this.converter.captureRate(p.currency);
      part.scalable = usd && quote !== undefined;
    }
    return into;
  }
}

/**
 * `total` shared pro rata by `weights`: every share but the last is total x weight / sum as `Dec`
 * computes it (60 digits, `shareOf`), the last is total minus the others, exactly, so the shares add up
 * to `total` exactly.
 */
export function proRata(total: Scaled, weights: readonly Scaled[]): Scaled[] {
  if (weights.length === 0) return [];
  if (weights.length === 1) return [total];
  let sum = SCALED_ZERO;
  for (const weight of weights) sum = add(sum, weight);
  const shares: Scaled[] = [];
  let allocated = SCALED_ZERO;
  for (let index = 0; index < weights.length - 1; index++) {
    const share = shareOf(total, weights[index] as Scaled, sum);
    shares.push(share);
    allocated = add(allocated, share);
  }
  shares.push(subtract(total, allocated));
  return shares;
}
