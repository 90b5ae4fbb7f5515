import { DEC_ZERO, type Dec, toDecimalString } from '@hindsight/core';
import type { MarginMonitor, MarginRequest } from '../account/margin-monitor.ts';
import { legThroughMarket, marketablePrice } from '../matching/marketable-price.ts';
import { effectiveLeverage } from '../models/margin.ts';
import {
  type Denial,
  deny,
  type FieldIssue,
  type ModifyOrder,
  type SubmitOrder,
} from '../orders/commands.ts';
import type { OrderLinks } from '../orders/order-links.ts';
import {
  type OrderShape,
  orderFieldIssues,
  TRAILING_PERCENT_MESSAGE,
  trailingDistanceTooLarge,
} from '../orders/order-rules.ts';
import { assetClassOf, type RejectReason, type Side } from '../orders/order-types.ts';
import type { OrderRecord } from '../orders/order-view.ts';
import type { PositionBook } from '../positions/position-book.ts';
import { positionReducedBy, protectedUnits } from '../positions/reduced-position.ts';
import type { InstrumentState } from '../venue/instrument-state.ts';

/**
 * Pre-trade risk (docs/engine.md "Parts"): the checks a command passes before anything is placed or
 * changed. A denial leaves nothing recorded (conflicting fields, a hedging `position_id` that cannot
 * take the order, a bracket already through the market, a modification the order cannot take); a
 * refusal records the order REJECTED (reduce-only with nothing to reduce, insufficient margin, a
 * market order without a quote, post-only that would trade at once).
 */
export class PreTradeRisk {
  private readonly hedging: boolean;

  constructor(
    private readonly book: PositionBook,
    private readonly margin: Pick<MarginMonitor, 'exceeds'>,
    private readonly links: Pick<OrderLinks, 'isLeg' | 'leg'>,
  ) {
    this.hedging = book.mode === 'hedging';
  }

  /** A new order's own fields: a PERCENT trailing distance of 100 or more, fields in conflict. */
  fieldDenial(command: SubmitOrder): Denial | undefined {
    if (trailingDistanceTooLarge(command.trailing_type, command.trailing_distance)) {
      return deny('TRAILING_DISTANCE_TOO_LARGE', TRAILING_PERCENT_MESSAGE, {
        field: 'trailing_distance',
        provided: toDecimalString(command.trailing_distance as Dec),
      });
    }
    const issues = orderFieldIssues(command);
    return issues.length > 0 ? conflict(issues) : undefined;
  }

  /**
   * A new order on a known instrument against the books and the market: a hedging `position_id` that
   * cannot take it, or a bracket of an entry that fills at once already through the market.
   */
  placementDenial(state: InstrumentState, command: SubmitOrder): Denial | undefined {
    if (this.hedging && command.position_id !== undefined) {
      const bracket = this.bracketOnPositionTarget(command.position_id, command);
      if (bracket) return bracket;
      const problem = this.positionTargetProblem(command);
      if (problem) {
        return deny('POSITION_TARGET_MISMATCH', problem, {
          field: 'position_id',
          provided: command.position_id,
        });
      }
    }
    if (command.stop_loss !== undefined || command.take_profit !== undefined) {
      const through = this.bracketThroughMarket(state, command);
      if (through) return through;
    }
    return undefined;
  }

  /**
   * Why a recorded order is refused before it rests or fills, checked in this order: reduce-only with
   * nothing to reduce, the margin it adds beyond what is free, a market order without a quote,
   * post-only when it would trade at once (`marketable`: the price it would trade at now).
   */
  refusal(
    state: InstrumentState,
    order: OrderRecord,
    request: SubmitOrder,
    marketable: Dec | undefined,
  ): RejectReason | null {
    if (request.reduce_only && this.reduction(order).units.isZero()) return 'REDUCE_ONLY_VIOLATED';
    if (state.hasQuote && !this.isReducing(order) && this.margin.exceeds(this.marginRequest(state, request)))
      return 'INSUFFICIENT_MARGIN';
    if (request.order_type === 'MARKET' && !state.hasQuote) return 'MARKET_CLOSED';
    if (marketable && request.post_only) return 'POST_ONLY_VIOLATED';
    return null;
  }

  /**
   * Orders that may only reduce: reduce-only orders, the exit legs the engine placed, and (hedging)
   * orders aimed at a position with `position_id`. Their fills are trimmed to what the position holds.
   */
  isReducing(order: OrderRecord): boolean {
    return (
      order.reduce_only === true || this.links.isLeg(order.id) || (this.hedging && order.position_id !== null)
    );
  }

  /**
   * What a reducing order may fill now: netting, the symbol's position when it is on the other side;
   * hedging, its `position_id` (or, for a reduce-only order without one, the oldest position on the
   * other side). Zero when there is nothing to reduce.
   */
  reduction(order: OrderRecord): { units: Dec; positionId?: string } {
    const target = positionReducedBy(this.book, order.symbol, order.side, order.position_id);
    if (!target) return { units: DEC_ZERO };
    return this.hedging ? { units: target.quantity, positionId: target.id } : { units: target.quantity };
  }

  /**
   * Why a live order cannot take `changes`, checked in this order: a quantity below the filled
   * quantity, a PERCENT trailing distance of 100 or more, the modified order's fields in conflict, a
   * bracket on an order aimed at a position, an exit leg grown beyond its position.
   */
  modificationProblem(order: OrderRecord, changes: ModifyOrder): Denial | undefined {
    if (changes.quantity?.lt(order.filled_quantity)) {
      const filled = toDecimalString(order.filled_quantity);
      return deny('QUANTITY_BELOW_FILLED', `quantity must be at least the filled quantity ${filled}.`, {
        field: 'quantity',
        provided: toDecimalString(changes.quantity),
        facts: { filled_quantity: filled },
      });
    }
    if (trailingDistanceTooLarge(order.trailing_type, changes.trailing_distance)) {
      return deny('TRAILING_DISTANCE_TOO_LARGE', TRAILING_PERCENT_MESSAGE, {
        field: 'trailing_distance',
        provided: toDecimalString(changes.trailing_distance as Dec),
      });
    }
    const orNull = (d: Dec | null | undefined) => d ?? undefined;
    const merged: OrderShape = {
      side: order.side,
      order_type: order.order_type,
      time_in_force: order.time_in_force,
      quantity: changes.quantity ?? order.quantity,
      limit_price: changes.limit_price ?? orNull(order.limit_price),
      stop_price: changes.stop_price ?? orNull(order.stop_price),
      stop_loss: changes.stop_loss ?? orNull(order.stop_loss),
      take_profit: changes.take_profit ?? orNull(order.take_profit),
      trailing_distance: changes.trailing_distance ?? orNull(order.trailing_distance),
      trailing_type: order.trailing_type ?? undefined,
      display_quantity: orNull(order.display_quantity),
      reduce_only: order.reduce_only ?? undefined,
      post_only: order.post_only ?? undefined,
    };
    const issues = orderFieldIssues(merged, changes);
    if (issues.length > 0) return conflict(issues);
    const bracket = this.bracketOnPositionTarget(order.position_id, changes);
    if (bracket) return bracket;
    const leg = this.links.leg(order.id);
    if (leg && changes.quantity) {
      const held = protectedUnits(this.book, order.symbol, order.side, leg.positionId);
      const most = order.filled_quantity.plus(held);
      if (changes.quantity.gt(most)) {
        const max = toDecimalString(most);
        return deny(
          'LEG_EXCEEDS_POSITION',
          `An exit leg cannot exceed the position it protects: quantity may be at most ${max}.`,
          { field: 'quantity', provided: toDecimalString(changes.quantity), facts: { max_quantity: max } },
        );
      }
    }
    return undefined;
  }

  /** A post-only order's modification that would make it trade at once: denied, the order unchanged. */
  postOnlyWouldTrade(changes: ModifyOrder, next: OrderRecord): Denial {
    const field = changes.limit_price ? 'limit_price' : 'stop_price';
    return deny(
      'POST_ONLY_WOULD_TRADE',
      `${field} would make this post-only order trade at once; it was left unchanged.`,
      { field, provided: toDecimalString((changes[field] ?? next[field]) as Dec) },
    );
  }

  /**
   * Hedging: `position_id` names the open position an order reduces (docs/fills.md). It must be open, on
   * the order's symbol and on the other side; otherwise the command is denied.
   */
  private positionTargetProblem(request: SubmitOrder): string | undefined {
    const target = this.book.position(request.position_id as string);
    if (!target) return `position_id ${request.position_id} is not an open position.`;
    if (target.symbol !== request.symbol)
      return `position_id ${target.id} is a ${target.symbol} position, not ${request.symbol}.`;
    if ((target.side === 'LONG') === (request.side === 'BUY'))
      return `position_id ${target.id} is ${target.side}: a ${request.side} cannot reduce it (omit position_id to open a new position).`;
    return undefined;
  }

  /**
   * The one home of the rule that a hedging order with `position_id` carries no `stop_loss` or
   * `take_profit`, at submission and in a modification alike: it only reduces the position it names
   * and opens none for legs to protect (its legs would be live with nothing on their exit side).
   * Under netting `position_id` is ignored, so brackets are allowed.
   */
  private bracketOnPositionTarget(
    positionId: string | null | undefined,
    prices: { stop_loss?: Dec | undefined; take_profit?: Dec | undefined },
  ): Denial | undefined {
    if (!this.hedging || positionId === null || positionId === undefined) return undefined;
    if (!prices.stop_loss && !prices.take_profit) return undefined;
    const field = prices.stop_loss ? 'stop_loss' : 'take_profit';
    const message = `An order with position_id reduces that position and opens none for ${field} to protect.`;
    return deny('BRACKET_ON_POSITION_TARGET', message, {
      field,
      provided: toDecimalString((prices.stop_loss ?? prices.take_profit) as Dec),
    });
  }

  /**
   * The rule `setExitLegs` applies to a moved leg, applied to a new bracket: an entry that fills at
   * once (a market order, or one marketable at the current quote) places its exit legs at once, so a
   * stop-loss or take-profit already through the market would exit as soon as the position opens.
   * A resting entry's legs are placed when it fills, on the entry's side of the price
   * (`orderFieldIssues` checks them against the entry's limit or stop).
   */
  private bracketThroughMarket(state: InstrumentState, command: SubmitOrder): Denial | undefined {
    if (!state.hasQuote) return undefined;
    if (command.order_type !== 'MARKET' && !marketablePrice(state, command)) return undefined;
    const exitSide: Side = command.side === 'BUY' ? 'SELL' : 'BUY';
    for (const [leg, price] of [
      ['stop', command.stop_loss],
      ['take', command.take_profit],
    ] as const) {
      if (!price) continue;
      const through = legThroughMarket(state, exitSide, leg, price);
      if (!through) continue;
      const field = leg === 'stop' ? 'stop_loss' : 'take_profit';
      const quote = toDecimalString(through);
      return deny(
        'BRACKET_THROUGH_MARKET',
        `${field} ${toDecimalString(price)} of a ${command.side} order that fills at once is already through the market (${exitSide === 'SELL' ? 'bid' : 'ask'} ${quote}): its exit would fill at once.`,
        { field, provided: toDecimalString(price), facts: { market: quote } },
      );
    }
    return undefined;
  }

  /** A new order's margin question, at its own price or the current quote. */
  private marginRequest(state: InstrumentState, request: SubmitOrder): MarginRequest {
    return {
      symbol: request.symbol,
      side: request.side,
      quantity: request.quantity,
      price: request.limit_price ?? request.stop_price ?? undefined,
      quote: state.quote,
      leverage: effectiveLeverage(assetClassOf(state.spec.market), request.leverage ?? null),
      denomination: state.spec.denomination,
      netting: !this.hedging,
    };
  }
}

const conflict = (issues: FieldIssue[]): Denial =>
  deny('ORDER_FIELDS_CONFLICT', issues.map((issue) => issue.message).join('; '), { issues });
