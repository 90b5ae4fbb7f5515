import { DEC_ZERO, Dec, toDecimalString } from '@hindsight/core';
import { isoTime } from '../numbers/iso-time.ts';
import type { SubmitOrder } from './commands.ts';
import { type EveryKey, lazyView } from './lazy-view.ts';
import { assertTransition, type OrderStatus } from './order-states.ts';
import type {
  Order,
  OrderHandle,
  OrderType,
  RejectReason,
  Side,
  TimeInForce,
  TrailingType,
} from './order-types.ts';

/**
 * The engine's record of one order (exact decimals, epoch-ms timestamps) and its wire view (spec
 * trading-gateway.md: Order, OrderHandle). Field names follow the wire so the mapping stays obvious.
 * Status changes go through the state table (`order-states.ts`).
 */
export interface OrderRecord {
  id: string;
  symbol: string;
  side: Side;
  order_type: OrderType;
  time_in_force: TimeInForce;
  status: OrderStatus;
  quantity: Dec;
  filled_quantity: Dec;
  /**
   * Volume-weighted over the fills, as canonical text (what the wire shows; a decimal only for a later
   * partial fill's average); null while unfilled.
   */
  average_fill_price: string | null;
  limit_price: Dec | null;
  stop_price: Dec | null;
  stop_loss: Dec | null;
  take_profit: Dec | null;
  trailing_distance: Dec | null;
  trailing_type: TrailingType | null;
  display_quantity: Dec | null;
  client_order_id: string | null;
  correlation_id: string | null;
  reject_reason: RejectReason | null;
  oco_group_id: string | null;
  position_id: string | null;
  parent_order_id: string | null;
  reduce_only: boolean | null;
  post_only: boolean | null;
  hidden: boolean | null;
  /** The leverage the client asked for (the engine applies `effectiveLeverage`); not on the wire Order. */
  leverage: Dec | null;
  /** Epoch ms. */
  created_at: number;
  updated_at: number;
}

export interface NewOrderOptions {
  id: string;
  /** Epoch ms of submission (simulated time). */
  at: number;
  correlationId?: string | null;
  parentOrderId?: string | null;
  /** PENDING (accepted, the default) or REJECTED (with `rejectReason`). */
  status?: 'PENDING' | 'REJECTED';
  rejectReason?: RejectReason | null;
}

/** A new order from a submission: PENDING (or REJECTED with its reason), nothing filled. */
export function newOrderRecord(request: SubmitOrder, options: NewOrderOptions): OrderRecord {
  const status = options.status ?? 'PENDING';
  assertTransition(options.id, null, status);
  return {
    id: options.id,
    symbol: request.symbol,
    side: request.side,
    order_type: request.order_type,
    time_in_force: request.time_in_force,
    status,
    quantity: request.quantity,
    filled_quantity: DEC_ZERO,
    average_fill_price: null,
    limit_price: request.limit_price ?? null,
    stop_price: request.stop_price ?? null,
    stop_loss: request.stop_loss ?? null,
    take_profit: request.take_profit ?? null,
    trailing_distance: request.trailing_distance ?? null,
    trailing_type: request.trailing_type ?? null,
    display_quantity: request.display_quantity ?? null,
    client_order_id: request.client_order_id ?? null,
    correlation_id: options.correlationId ?? null,
    reject_reason: status === 'REJECTED' ? (options.rejectReason ?? 'UNKNOWN') : null,
    oco_group_id: request.oco_group_id ?? null,
    position_id: request.position_id ?? null,
    parent_order_id: options.parentOrderId ?? null,
    reduce_only: request.reduce_only ?? null,
    post_only: request.post_only ?? null,
    hidden: request.hidden ?? null,
    leverage: request.leverage ?? null,
    created_at: options.at,
    updated_at: options.at,
  };
}

/**
 * A field-by-field copy of a record: the per-fill path copies records on every status change, and a
 * spread of this many fields makes slow objects in V8.
 */
export function copyOrderRecord(o: OrderRecord): OrderRecord {
  return {
    id: o.id,
    symbol: o.symbol,
    side: o.side,
    order_type: o.order_type,
    time_in_force: o.time_in_force,
    status: o.status,
    quantity: o.quantity,
    filled_quantity: o.filled_quantity,
    average_fill_price: o.average_fill_price,
    limit_price: o.limit_price,
    stop_price: o.stop_price,
    stop_loss: o.stop_loss,
    take_profit: o.take_profit,
    trailing_distance: o.trailing_distance,
    trailing_type: o.trailing_type,
    display_quantity: o.display_quantity,
    client_order_id: o.client_order_id,
    correlation_id: o.correlation_id,
    reject_reason: o.reject_reason,
    oco_group_id: o.oco_group_id,
    position_id: o.position_id,
    parent_order_id: o.parent_order_id,
    reduce_only: o.reduce_only,
    post_only: o.post_only,
    hidden: o.hidden,
    leverage: o.leverage,
    created_at: o.created_at,
    updated_at: o.updated_at,
  };
}

/** quantity - filled_quantity (the quantity's own decimal while nothing is filled: no arithmetic). */
export const remainingQuantity = (order: Pick<OrderRecord, 'quantity' | 'filled_quantity'>): Dec =>
  order.filled_quantity.isZero() ? order.quantity : order.quantity.minus(order.filled_quantity);

/**
 * A status change through the state table (throws `OrderStateError` on an illegal move). A move to
 * REJECTED records its reason (UNKNOWN when none is given).
 */
export function withStatus(
  order: OrderRecord,
  status: OrderStatus,
  at: number,
  rejectReason?: RejectReason,
): OrderRecord {
  assertTransition(order.id, order.status, status);
  const next = copyOrderRecord(order);
  next.status = status;
  if (status === 'REJECTED') next.reject_reason = rejectReason ?? 'UNKNOWN';
  next.updated_at = at;
  return next;
}

/**
 * One fill of `quantity` at `price` (canonical text, as the fill's figures write it): the filled
 * quantity grows, the average fill price is the quantity-weighted mean of all fills, and the status
 * becomes FILLED when nothing remains, else PARTIALLY_FILLED. Throws on an illegal move or a fill
 * larger than what remains.
 */
export function withFill(order: OrderRecord, quantity: Dec, price: string, at: number): OrderRecord {
  const remaining = remainingQuantity(order);
  if (!quantity.gt(DEC_ZERO) || (quantity !== remaining && quantity.gt(remaining))) {
    throw new RangeError(
      `order ${order.id}: fill of ${toDecimalString(quantity)} with ${toDecimalString(remaining)} remaining`,
    );
  }
  // Filled in one go (the usual case) or in parts, a filled order keeps its quantity's decimal as the
  // filled quantity: one decimal fewer kept per order, and no sum made for a whole fill.
  const whole = quantity === remaining;
  const sum = whole ? order.quantity : order.filled_quantity.plus(quantity);
  const complete = whole || sum.eq(order.quantity);
  const filled = complete ? order.quantity : sum;
  const status: OrderStatus = complete ? 'FILLED' : 'PARTIALLY_FILLED';
  assertTransition(order.id, order.status, status);
  const next = copyOrderRecord(order);
  next.status = status;
  next.filled_quantity = filled;
  next.average_fill_price = averageAfterFill(order, quantity, price, filled);
  next.updated_at = at;
  return next;
}

/**
 * The quantity-weighted mean price after a fill, as canonical text. The first fill's mean is its
 * price: (price x q) / q is exactly the price whenever the product is exact, that is when the two have
 * at most the 60 significant digits `Dec` keeps between them (otherwise the product rounds, and so may
 * the mean). The price's digits are counted on its text (at least its significant digits), so no
 * decimal is made for a first fill.
 */
function averageAfterFill(order: OrderRecord, quantity: Dec, price: string, filled: Dec): string {
  if (order.filled_quantity.isZero() && digitCount(price) + quantity.sd() <= DEC_PRECISION) return price;
  const average = order.average_fill_price === null ? DEC_ZERO : new Dec(order.average_fill_price);
  const value = average.times(order.filled_quantity).plus(new Dec(price).times(quantity));
  return toDecimalString(value.div(filled));
}

/** Digits of a plain decimal text, leading zeros excluded: never fewer than its significant digits. */
function digitCount(text: string): number {
  let count = 0;
  let leading = true;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 48 || code > 57) continue;
    if (leading && code === 48) continue;
    leading = false;
    count += 1;
  }
  return count;
}

const DEC_PRECISION = Dec.precision;

const dec = (value: Dec | null): string | null => (value === null ? null : toDecimalString(value));

export { isoTime };

/** The wire Order: canonical decimal strings (decision 37), ISO-8601 UTC times, null when unset. */
export function toWireOrder(order: OrderRecord): Order {
  const filled = order.filled_quantity;
  const quantity = toDecimalString(order.quantity);
  // Most orders are unfilled or wholly filled: their remainder needs no subtraction.
  const unfilled = filled.isZero();
  const whole = !unfilled && filled.eq(order.quantity);
  return {
    id: order.id,
    symbol: order.symbol,
    side: order.side,
    order_type: order.order_type,
    quantity,
    filled_quantity: unfilled ? '0' : whole ? quantity : toDecimalString(filled),
    remaining_quantity: unfilled ? quantity : whole ? '0' : toDecimalString(remainingQuantity(order)),
    average_fill_price: unfilled ? null : order.average_fill_price,
    status: order.status,
    time_in_force: order.time_in_force,
    limit_price: dec(order.limit_price),
    stop_price: dec(order.stop_price),
    stop_loss: dec(order.stop_loss),
    take_profit: dec(order.take_profit),
    client_order_id: order.client_order_id,
    correlation_id: order.correlation_id,
    reject_reason: order.status === 'REJECTED' ? (order.reject_reason ?? 'UNKNOWN') : null,
    trailing_distance: dec(order.trailing_distance),
    trailing_type: order.trailing_type,
    display_quantity: dec(order.display_quantity),
    oco_group_id: order.oco_group_id,
    position_id: order.position_id,
    parent_order_id: order.parent_order_id,
    reduce_only: order.reduce_only,
    post_only: order.post_only,
    hidden: order.hidden,
    created_at: isoTime(order.created_at),
    updated_at: isoTime(order.updated_at),
  };
}

/** Every field of the wire Order, in `toWireOrder`'s order (the compiler checks none is missing). */
const WIRE_ORDER_KEYS = [
  'id',
  'symbol',
  'side',
  'order_type',
  'quantity',
  'filled_quantity',
  'remaining_quantity',
  'average_fill_price',
  'status',
  'time_in_force',
  'limit_price',
  'stop_price',
  'stop_loss',
  'take_profit',
  'client_order_id',
  'correlation_id',
  'reject_reason',
  'trailing_distance',
  'trailing_type',
  'display_quantity',
  'oco_group_id',
  'position_id',
  'parent_order_id',
  'reduce_only',
  'post_only',
  'hidden',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof Order)[];
export const WIRE_ORDER_KEYS_COMPLETE: EveryKey<Order, typeof WIRE_ORDER_KEYS> = true;

/** The wire Order of a record, written when first read or serialised (what order events carry). */
export const lazyWireOrder: (order: OrderRecord) => Order = lazyView(WIRE_ORDER_KEYS, toWireOrder, [
  'id',
  'symbol',
  'side',
  'order_type',
  'status',
  'time_in_force',
  'client_order_id',
  'correlation_id',
  'oco_group_id',
  'position_id',
  'parent_order_id',
]);

/** The handle `POST /v1/orders` and position closes answer with. */
export function toOrderHandle(order: Pick<OrderRecord, 'id' | 'status' | 'client_order_id'>): OrderHandle {
  return { id: order.id, status: order.status, client_order_id: order.client_order_id };
}
