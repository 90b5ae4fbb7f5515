import type { Dec } from '@hindsight/core';
import type { Account } from '../account/account.ts';
import type { ContingentOrders } from '../contingent/contingent-orders.ts';
import { marketablePrice, quoteOn } from '../matching/marketable-price.ts';
import { type CommissionSettings, commissionFor } from '../models/commission.ts';
import { applySlippage, type SlippageSettings } from '../models/slippage.ts';
import { ACCOUNT_CURRENCY, type CurrencyConverter } from '../numbers/currency.ts';
import { flatText } from '../numbers/flat-text.ts';
import { isoTime } from '../numbers/iso-time.ts';
import { scaledOf } from '../numbers/scaled-decimal.ts';
import { TickQuote } from '../numbers/tick-quote.ts';
import type { SubmitOrder, SubmitOutcome } from '../orders/commands.ts';
import { isTerminal } from '../orders/order-states.ts';
import type { RejectReason, Side, Trade } from '../orders/order-types.ts';
import { newOrderRecord, type OrderRecord, remainingQuantity, withFill } from '../orders/order-view.ts';
import { isImmediate } from '../orders/time-in-force.ts';
import { lazyWireTrade } from '../orders/trade-view.ts';
import {
  type FillFigures,
  figuresOf,
  fillAmountOf,
  fillUnitsOf,
  pricedInUsd,
} from '../positions/fill-figures.ts';
import type { FillOutcome } from '../positions/fill-outcome.ts';
import type { PositionBook } from '../positions/position-book.ts';
import type { CloseReason } from '../positions/trade-lot.ts';
import type { AccountTimeseries } from '../results/account-timeseries.ts';
import type { PreTradeRisk } from '../risk/pre-trade-risk.ts';
import type { EngineEvents } from '../venue/engine-events.ts';
import { availableUnits, type InstrumentState } from '../venue/instrument-state.ts';
import type { SimTime } from '../venue/sim-time.ts';
import type { VenueOrders } from '../venue/venue-orders.ts';

/**
 * The price a fill starts from: a decimal, or the instrument's current quote on the order's side (a
 * market order), read as its ticks so that a USD fill makes no decimal of it.
 */
export type BasePrice = Dec | TickQuote;

/** What the execution is built from: the venue's orders, the checks and legs it applies, the books. */
export interface OrderExecutionParts {
  orders: VenueOrders;
  events: EngineEvents;
  time: SimTime;
  risk: PreTradeRisk;
  contingent: ContingentOrders;
  book: PositionBook;
  account: Account;
  timeseries: AccountTimeseries;
  converter: CurrencyConverter;
  commission: CommissionSettings;
  slippage: SlippageSettings;
  participation: Dec | undefined;
  /** Symbols whose quote converts a currency: marked every bar whether or not a position is open. */
  conversionPairs: ReadonlySet<string>;
}

/**
 * Placing orders and executing fills: an order passes pre-trade risk, then fills at once, rests, or is
 * cancelled (IOC/FOK); a fill is priced (slippage, commission), booked in the positions and the
 * account, written to the trade log and the events, and its contingent orders follow.
 */
export class OrderExecution {
  private readonly tradeLog: Trade[] = [];
  private tradeSeq = 0;
  private readonly orders: VenueOrders;
  private readonly events: EngineEvents;
  private readonly time: SimTime;
  private readonly risk: PreTradeRisk;
  private readonly contingent: ContingentOrders;
  private readonly book: PositionBook;
  private readonly account: Account;
  private readonly timeseries: AccountTimeseries;
  private readonly converter: CurrencyConverter;
  private readonly commission: CommissionSettings;
  private readonly slippage: SlippageSettings;
  private readonly participation: Dec | undefined;
  private readonly conversionPairs: ReadonlySet<string>;
  private readonly hedging: boolean;

  constructor(parts: OrderExecutionParts) {
    this.orders = parts.orders;
    this.events = parts.events;
    this.time = parts.time;
    this.risk = parts.risk;
    this.contingent = parts.contingent;
    this.book = parts.book;
    this.account = parts.account;
    this.timeseries = parts.timeseries;
    this.converter = parts.converter;
    this.commission = parts.commission;
    this.slippage = parts.slippage;
    this.participation = parts.participation;
    this.conversionPairs = parts.conversionPairs;
    this.hedging = parts.book.mode === 'hedging';
  }

  /** Every fill so far, in order. */
  trades(): readonly Trade[] {
    return this.tradeLog;
  }

  /** Places a validated request: refusals, immediate fills, or a resting order. */
  place(request: SubmitOrder, rejectReason: RejectReason | null, closeReason?: CloseReason): SubmitOutcome {
    const records = this.orders.records;
    const id = records.nextId();
    const correlationId = correlationOf(id);
    if (rejectReason) {
      const rejected = newOrderRecord(request, {
        id,
        at: this.time.stamp,
        correlationId,
        status: 'REJECTED',
        rejectReason,
      });
      records.set(id, rejected);
      this.events.order('ORDER_REJECTED', rejected);
      return { ok: true, order: rejected, rejected: rejectReason };
    }
    const state = this.orders.instruments.get(request.symbol) as InstrumentState;
    let order = newOrderRecord(request, { id, at: this.time.stamp, correlationId });
    records.set(id, order);
    this.events.order('ORDER_CREATED', order);
    const quote = marketablePrice(state, request);
    const refusal = this.risk.refusal(state, order, request, quote);
    if (refusal) return this.orders.reject(order, refusal);
    // In its group before it can fill: a fill at once cancels the group's other members.
    if (request.oco_group_id) this.orders.links.joinClientGroup(request.oco_group_id, id);
    if (request.order_type === 'MARKET') {
      this.fillNow(state, order, state.quote, closeReason);
      return { ok: true, order: records.get(id) as OrderRecord };
    }
    if (quote) {
      // Marketable at submission: it trades now at the current quote (a limit gets the better price).
      this.fillNow(state, order, quote);
      return { ok: true, order: records.get(id) as OrderRecord };
    }
    if (isImmediate(request.time_in_force)) {
      // IOC/FOK get one attempt, at once: nothing is marketable, so nothing fills.
      return { ok: true, order: this.orders.cancelLive(id) };
    }
    order = this.orders.addResting(state, order);
    return { ok: true, order };
  }

  /**
   * An order that trades at once at `price`. Without a volume limit it fills whole. With one, it fills
   * what the current bar's volume allows: FOK only when all of it fits (else it is cancelled), IOC
   * cancels the rest, any other order rests with the rest (a market order or a triggered stop as a
   * market order filling at the next bars' opens).
   */
  fillNow(state: InstrumentState, order: OrderRecord, price: BasePrice, closeReason?: CloseReason): void {
    const available = availableUnits(state, this.participation);
    if (order.time_in_force === 'FOK' && available?.lt(remainingQuantity(order))) {
      this.orders.cancelLive(order.id);
      return;
    }
    this.execute(state, order, price, this.time.stamp, closeReason);
    const after = this.orders.records.get(order.id) as OrderRecord;
    if (isTerminal(after.status)) return;
    if (isImmediate(after.time_in_force)) this.orders.cancelLive(after.id);
    else this.orders.addResting(state, after, true);
  }

  /**
   * Fills the remaining quantity at `basePrice` plus slippage, and books it. A reducing order is
   * trimmed to what its position holds (the rest is cancelled), and cancelled when there is nothing
   * left to reduce.
   */
  execute(
    state: InstrumentState,
    order: OrderRecord,
    basePrice: BasePrice,
    at: number,
    closeReason?: CloseReason,
  ): void {
    let units = remainingQuantity(order);
    let positionId: string | undefined;
    /** Trimmed to its position: the rest can never fill and is cancelled. */
    let trimmed = false;
    if (this.risk.isReducing(order)) {
      const reduction = this.risk.reduction(order);
      if (reduction.units.isZero()) {
        this.orders.cancelLive(order.id);
        return;
      }
      if (reduction.units.lt(units)) {
        units = reduction.units;
        trimmed = true;
      }
      positionId = reduction.positionId;
    }
    const available = availableUnits(state, this.participation);
    if (available !== undefined) {
      // Volume-limited: the rest waits for the next bars.
      if (available.isZero()) return;
      if (available.lt(units)) {
        units = available;
        trimmed = false;
      }
      state.consumed = state.consumed.plus(units);
    }
    const figures = this.priceFill(state, order.side, units, basePrice);
    const outcome: FillOutcome = this.book.applyPriced(
      {
        // One literal with every field (absent ones undefined): conditional spreads copied the object
        // through the runtime and gave the book a shape per combination.
        positionId,
        orderId: order.id,
        symbol: order.symbol,
        side: order.side,
        time: at,
        closeReason,
        // Read only for position_update events, and by a hedging bracket for its position's id.
        events:
          state.updates.has('position_update') || (this.hedging && !!(order.stop_loss || order.take_profit)),
      },
      figures,
    );
    this.account.bookAmounts(outcome.realizedUsd, outcome.commission);
    this.timeseries.afterBalanceChange();
    // Decision 4: positions are marked at the last completed bar's bid (long) or ask (short) at once.
    if (state.hasQuote) {
      state.mark = this.book.markTicks(order.symbol, state.bid, state.ask, state.priceDecimals);
    }
    state.marked = this.book.holds(order.symbol) || this.conversionPairs.has(order.symbol);
    const isLeg = this.orders.links.isLeg(order.id);
    const filled = withFill(order, units, figures.priceText, at);
    this.orders.records.set(order.id, filled);
    this.timeseries.changed = true;
    this.events.order(filled.status === 'FILLED' ? 'ORDER_FILLED' : 'ORDER_PARTIALLY_FILLED', filled);
    const trade = lazyWireTrade({
      sequence: ++this.tradeSeq,
      orderId: order.id,
      symbol: order.symbol,
      side: order.side,
      unitsText: figures.unitsText,
      priceText: figures.priceText,
      commission: figures.commission,
      at,
    });
    this.tradeLog.push(trade);
    if (state.updates.has('trade_update'))
      this.events.push({ type: 'trade', event: 'TRADE_FILLED', trade, timestamp: isoTime(at) });
    if (state.updates.has('position_update')) {
      for (const event of outcome.events) {
        this.events.push({
          type: 'position',
          event: event.type,
          position: event.position.view,
          timestamp: isoTime(at),
        });
      }
    }
    this.events.account(at);
    if (filled.status === 'FILLED') this.orders.removeFilled(state, order.id);
    // A partly filled exit leg shrinks its sibling (below) instead of cancelling it.
    if (!isLeg || filled.status === 'FILLED') this.contingent.settleGroup(order.id);
    // A trimmed reducing order has nothing left to do: its remainder is cancelled.
    if (trimmed) this.orders.cancelLive(order.id);
    if (!isLeg && (filled.stop_loss || filled.take_profit))
      this.contingent.bracketOnFill(state, filled, units, outcome);
    this.contingent.reconcileLegs(order.symbol, at);
  }

  /**
   * A fill's price after slippage and its commission (docs/fills.md), as the figures the books, the
   * trade and the order's average take. A USD-quoted fill is priced in scaled integers when no step of
   * the decimal formulas rounds (the same numbers), any other in decimals.
   */
  private priceFill(state: InstrumentState, side: Side, units: Dec, base: BasePrice): FillFigures {
    const currency = state.spec.denomination;
    if (currency === ACCOUNT_CURRENCY) {
      const baseAmount = base instanceof TickQuote ? base.amountOn(side) : fillAmountOf(scaledOf(base));
      const figures = pricedInUsd(fillUnitsOf(units), baseAmount, side, this.slippage, this.commission);
      if (figures) return figures;
    }
    const basePrice = base instanceof TickQuote ? quoteOn(base, side) : base;
    const notionalUsd = this.converter.toUsd(units.times(basePrice), currency);
    const slipped = applySlippage(this.slippage, side, basePrice, notionalUsd);
    const commissionUsd = commissionFor(
      this.commission,
      this.converter.toUsd(units.times(slipped.price), currency),
    );
    return figuresOf({
      units,
      price: slipped.price,
      basePrice,
      slippageBps: slipped.bps,
      commissionUsd,
    });
  }
}

/**
 * The tracing id of an order the engine records (the spec's Gateway-assigned `correlation_id`): made
 * from its sequence, so a rerun stamps the same ids (`ord-000000042` -> `corr-000000042`). Exit legs
 * carry their entry's: the request that placed the entry placed them.
 */
function correlationOf(orderId: string): string {
  return flatText('corr-', orderId.slice(4));
}
