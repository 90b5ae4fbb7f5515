import { type Dec, toDecimalString } from '@hindsight/core';
import type { FieldIssue } from './commands.ts';
import type { OrderType, Side, TimeInForce, TrailingType } from './order-types.ts';

/**
 * The rules between an order's fields (docs/fills.md "Orders, time in force, margin"): which prices an
 * order type uses, what post-only and reduce-only combine with, and on which side of the entry a
 * bracket's stop-loss and take-profit lie. The engine applies them to every new order and to an order
 * after a modification (`SimulationEngine.submit` / `modify`: ORDER_FIELDS_CONFLICT); the gateway
 * applies them to a repeated client_order_id before comparing it with the first request.
 */

/** The fields the rules look at, for a new order or an order after a modification. */
export interface OrderShape {
  side: Side;
  order_type: OrderType;
  time_in_force: TimeInForce;
  quantity: Dec;
  limit_price?: Dec | undefined;
  stop_price?: Dec | undefined;
  stop_loss?: Dec | undefined;
  take_profit?: Dec | undefined;
  trailing_distance?: Dec | undefined;
  trailing_type?: TrailingType | undefined;
  display_quantity?: Dec | undefined;
  reduce_only?: boolean | undefined;
  post_only?: boolean | undefined;
}

const USES_LIMIT: readonly OrderType[] = ['LIMIT', 'STOP_LIMIT'];
const USES_STOP: readonly OrderType[] = ['STOP', 'STOP_LIMIT'];
/** post_only needs an order that can rest; the others always take liquidity. */
const CAN_POST: readonly OrderType[] = ['LIMIT', 'STOP_LIMIT'];

/**
 * Every conflict between the fields of `order`, in the order of the rules. `changed` limits "not used
 * by" conflicts to the fields a modification changes (a field the order already holds was accepted
 * with it); without it every field set counts.
 */
export function orderFieldIssues(order: OrderShape, changed?: object): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const type = order.order_type;
  needs(issues, order, changed, 'limit_price', USES_LIMIT.includes(type), type);
  needs(issues, order, changed, 'stop_price', USES_STOP.includes(type), type);
  needs(issues, order, changed, 'trailing_distance', type === 'TRAILING_STOP', 'TRAILING_STOP');
  if (type !== 'TRAILING_STOP' && order.trailing_type !== undefined && given(changed, 'trailing_type')) {
    issues.push({ field: 'trailing_type', message: `trailing_type is not used by ${type} orders.` });
  }

  if (order.post_only) {
    if (!CAN_POST.includes(type)) {
      issues.push({
        field: 'post_only',
        message: `post_only needs a LIMIT or STOP_LIMIT order: a ${type} order always takes liquidity.`,
      });
    }
    if (order.time_in_force === 'IOC' || order.time_in_force === 'FOK') {
      issues.push({
        field: 'post_only',
        message: `post_only cannot be combined with ${order.time_in_force}, which must fill at once.`,
      });
    }
  }

  if (order.display_quantity?.gt(order.quantity)) {
    issues.push({ field: 'display_quantity', message: 'display_quantity must not exceed quantity.' });
  }

  if (order.reduce_only && (order.stop_loss !== undefined || order.take_profit !== undefined)) {
    issues.push({
      field: 'reduce_only',
      message: 'A reduce_only order opens no position for stop_loss or take_profit to protect.',
    });
  }

  // Brackets: for a BUY the stop-loss is below the entry and the take-profit above; a SELL mirrors it.
  const buy = order.side === 'BUY';
  const entryField = order.limit_price !== undefined ? 'limit_price' : 'stop_price';
  const entry = order.limit_price ?? order.stop_price;
  const below = buy ? 'below' : 'above';
  const above = buy ? 'above' : 'below';
  if (entry !== undefined && order.stop_loss !== undefined && wrongSide(order.stop_loss, entry, buy)) {
    issues.push({
      field: 'stop_loss',
      message: `stop_loss of a ${order.side} order must be ${below} its ${entryField} (${toDecimalString(entry)}).`,
    });
  }
  if (entry !== undefined && order.take_profit !== undefined && wrongSide(order.take_profit, entry, !buy)) {
    issues.push({
      field: 'take_profit',
      message: `take_profit of a ${order.side} order must be ${above} its ${entryField} (${toDecimalString(entry)}).`,
    });
  }
  if (
    entry === undefined &&
    order.stop_loss !== undefined &&
    order.take_profit !== undefined &&
    wrongSide(order.stop_loss, order.take_profit, buy)
  ) {
    issues.push({
      field: 'stop_loss',
      message: `stop_loss of a ${order.side} order must be ${below} its take_profit.`,
    });
  }
  return issues;
}

/** Whether a modification changed `field` (every field counts for a new order). */
const given = (changed: object | undefined, field: string): boolean =>
  changed === undefined || (changed as Record<string, unknown>)[field] !== undefined;

/**
 * `field` is required when the order type uses it (`what` names the orders that need it) and, when the
 * client gave it, refused otherwise. (Module functions rather than closures: this runs for every order.)
 */
function needs(
  issues: FieldIssue[],
  order: OrderShape,
  changed: object | undefined,
  field: keyof OrderShape,
  when: boolean,
  what: string,
): void {
  if (when && order[field] === undefined)
    issues.push({ field, message: `${field} is required for ${what} orders.` });
  if (!when && order[field] !== undefined && given(changed, field)) {
    issues.push({ field, message: `${field} is not used by ${order.order_type} orders.` });
  }
}

/** A bracket price on the wrong side of its reference (below it when it must be below, or the reverse). */
function wrongSide(price: Dec, reference: Dec, mustBeBelow: boolean): boolean {
  return mustBeBelow ? !price.lt(reference) : !price.gt(reference);
}

/** A PERCENT trailing distance is a share of the price: below 100. */
export function trailingDistanceTooLarge(type: TrailingType | null | undefined, distance: Dec | undefined) {
  return type === 'PERCENT' && distance !== undefined && distance.gte(100);
}

export const TRAILING_PERCENT_MESSAGE = 'A PERCENT trailing_distance must be below 100.';
