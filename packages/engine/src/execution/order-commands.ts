import { type Dec, toDecimalString } from '@hindsight/core';
import type { ContingentOrders } from '../contingent/contingent-orders.ts';
import { marketablePrice } from '../matching/marketable-price.ts';
import {
  type CancelOutcome,
  type ClosePosition,
  type Denial,
  deny,
  MODIFIABLE_FIELDS,
  type ModifyOrder,
  type ModifyOutcome,
  type SubmitOrder,
  type SubmitOutcome,
} from '../orders/commands.ts';
import { isTerminal } from '../orders/order-states.ts';
import { type OrderRecord, remainingQuantity, withStatus } from '../orders/order-view.ts';
import type { PositionSnapshot } from '../positions/position.ts';
import type { PositionBook } from '../positions/position-book.ts';
import type { CloseReason } from '../positions/trade-lot.ts';
import type { PreTradeRisk } from '../risk/pre-trade-risk.ts';
import type { EngineEvents } from '../venue/engine-events.ts';
import type { InstrumentState } from '../venue/instrument-state.ts';
import type { SimTime } from '../venue/sim-time.ts';
import type { VenueOrders } from '../venue/venue-orders.ts';
import type { OrderExecution } from './order-execution.ts';

/**
 * The order commands (`orders/commands.ts`): submit, modify, cancel and position closes. Each passes
 * pre-trade risk first; a denial changes nothing, anything else is placed or applied at once at the
 * current simulated time.
 */
export class OrderCommands {
  private readonly hedging: boolean;

  constructor(
    private readonly orders: VenueOrders,
    private readonly execution: OrderExecution,
    private readonly risk: PreTradeRisk,
    private readonly contingent: ContingentOrders,
    private readonly events: EngineEvents,
    private readonly time: SimTime,
    private readonly book: PositionBook,
  ) {
    this.hedging = book.mode === 'hedging';
  }

  /**
   * A new order. Denied (nothing recorded) when its fields conflict, when a hedging order's
   * `position_id` cannot take it, or when an entry that fills at once has a bracket price already
   * through the market. Otherwise the order is recorded: REJECTED with its reason (an unknown symbol,
   * the margin, reduce-only, post-only, no quote for a market order), filled at once, or resting.
   */
  submit(command: SubmitOrder): SubmitOutcome {
    const invalid = this.risk.fieldDenial(command);
    if (invalid) return invalid;
    const state = this.orders.instruments.get(command.symbol);
    if (!state) return this.execution.place(command, 'SYMBOL_NOT_TRADEABLE');
    const denied = this.risk.placementDenial(state, command);
    if (denied) return denied;
    return this.execution.place(command, null);
  }

  /** Cancels a live order; an unknown or terminal one is denied. */
  cancel(orderId: string): CancelOutcome {
    const live = this.liveOrder(orderId, 'cancelled');
    return live.ok ? { ok: true, order: this.orders.cancelLive(orderId) } : live;
  }

  /**
   * Changes the quantity (at least the filled quantity), prices, bracket prices or trailing distance
   * of a live order, in place (docs/fills.md "Modifying orders"); the modified order must pass the
   * rules between its fields. A change that makes a resting order marketable trades it at once at the
   * current quote, as a new order would; a post-only order is denied that change instead. New bracket
   * prices on an entry whose legs are already placed move the legs too. No change: the order as it is.
   */
  modify(orderId: string, changes: ModifyOrder): ModifyOutcome {
    const live = this.liveOrder(orderId, 'modified');
    if (!live.ok) return live;
    const order = live.order;
    const refused = this.risk.modificationProblem(order, changes);
    if (refused) return refused;
    if (!changesAnything(changes)) return { ok: true, order };
    const state = this.orders.instruments.get(order.symbol) as InstrumentState;
    const resting = state.matcher.get(orderId);
    let next: OrderRecord = {
      ...order,
      ...(changes.quantity && { quantity: changes.quantity }),
      ...(changes.limit_price && { limit_price: changes.limit_price }),
      ...(changes.stop_price && { stop_price: changes.stop_price }),
      ...(changes.stop_loss && { stop_loss: changes.stop_loss }),
      ...(changes.take_profit && { take_profit: changes.take_profit }),
      ...(changes.trailing_distance && { trailing_distance: changes.trailing_distance }),
      updated_at: this.time.stamp,
    };
    const quote = resting
      ? marketablePrice(state, {
          side: next.side,
          order_type: resting.triggered ? 'LIMIT' : next.order_type,
          limit_price: next.limit_price,
          stop_price: next.stop_price,
        })
      : undefined;
    if (quote && next.post_only) return this.risk.postOnlyWouldTrade(changes, next);
    if (remainingQuantity(next).isZero()) next = withStatus(next, 'FILLED', this.time.stamp);
    this.orders.records.set(orderId, next);
    if (resting) {
      if (next.status === 'FILLED') {
        this.orders.removeFilled(state, orderId);
      } else {
        state.matcher.update(orderId, {
          ...(next.limit_price && { limit: next.limit_price }),
          ...(next.stop_price && { stop: next.stop_price }),
          ...(resting.trailing &&
            next.trailing_distance && {
              trailing: { ...resting.trailing, distance: next.trailing_distance },
            }),
        });
      }
    }
    this.events.order(this.orders.links.isLeg(orderId) ? 'BRACKET_ORDER_MODIFIED' : 'ORDER_MODIFIED', next);
    if (next.status === 'FILLED') this.contingent.settleGroup(orderId);
    if (changes.stop_loss || changes.take_profit) this.contingent.moveBracketOf(orderId, changes);
    if (quote && resting)
      this.execution.fillNow(state, this.orders.records.get(orderId) as OrderRecord, quote);
    return { ok: true, order: this.orders.records.get(orderId) as OrderRecord };
  }

  /**
   * Closes an open position with a reduce-only MARKET (default) or LIMIT order for the whole position
   * or `quantity` of it. With `cancel_associated_orders` (default true) the position's exit legs and
   * the orders aimed at it are cancelled first; otherwise legs stay and shrink with the position.
   */
  closePosition(positionId: string, close: ClosePosition = FULL_CLOSE): SubmitOutcome {
    const position = this.book.position(positionId);
    if (!position) {
      return deny('POSITION_NOT_FOUND', `There is no open position ${positionId}.`, { provided: positionId });
    }
    if (close.quantity?.gt(position.quantity)) {
      const held = toDecimalString(position.quantity);
      return deny('CLOSE_EXCEEDS_POSITION', `quantity must not exceed the position's ${held}.`, {
        field: 'quantity',
        provided: toDecimalString(close.quantity),
        facts: { position_quantity: held },
      });
    }
    if (close.cancel_associated_orders) this.contingent.cancelAssociatedOrders(position);
    const limitPrice = close.order_type === 'LIMIT' ? close.limit_price : undefined;
    return this.execution.place(
      this.closingRequest(position, close.quantity, close.order_type, limitPrice),
      null,
    );
  }

  /** Closes every open position (of `symbol`) at market, in id order. */
  closeAllPositions(symbol?: string): SubmitOutcome[] {
    return this.book.positions(symbol).map((p) => this.closePosition(p.id));
  }

  /** The whole position at market, its associated orders cancelled first (a stop-out's close). */
  closeAtMarket(position: PositionSnapshot, closeReason: CloseReason): SubmitOutcome {
    this.contingent.cancelAssociatedOrders(position);
    return this.execution.place(this.closingRequest(position, undefined, 'MARKET'), null, closeReason);
  }

  /** The order behind a cancel or modify: denied when unknown or terminal. */
  private liveOrder(
    orderId: string,
    verb: 'cancelled' | 'modified',
  ): { ok: true; order: OrderRecord } | Denial {
    const order = this.orders.records.get(orderId);
    if (!order) return deny('UNKNOWN_ORDER', `There is no order ${orderId}.`, { provided: orderId });
    if (isTerminal(order.status)) {
      return deny(
        'ORDER_NOT_MODIFIABLE',
        `Order ${orderId} is ${order.status}: a terminal order cannot be ${verb}.`,
        { provided: orderId },
      );
    }
    return { ok: true, order };
  }

  private closingRequest(
    position: PositionSnapshot,
    quantity: Dec | undefined,
    orderType: 'MARKET' | 'LIMIT',
    limitPrice?: Dec,
  ): SubmitOrder {
    return {
      symbol: position.symbol,
      side: position.side === 'LONG' ? 'SELL' : 'BUY',
      quantity: quantity ?? position.quantity,
      order_type: orderType,
      time_in_force: 'GTC',
      reduce_only: true,
      ...(limitPrice && { limit_price: limitPrice }),
      ...(this.hedging && { position_id: position.id }),
    };
  }
}

/** The default close: the whole position at market, its associated orders cancelled first. */
const FULL_CLOSE: ClosePosition = { order_type: 'MARKET', cancel_associated_orders: true };

/** Whether a modification changes any field. */
function changesAnything(changes: ModifyOrder): boolean {
  for (const field of MODIFIABLE_FIELDS) if (changes[field] !== undefined) return true;
  return false;
}
