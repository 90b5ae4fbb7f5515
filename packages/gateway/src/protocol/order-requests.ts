import { Dec, toDecimalString } from '@hindsight/core';
import {
  MARGIN_MODES,
  MODIFIABLE_FIELDS,
  type ModifyOrder,
  ORDER_TYPES,
  orderFieldIssues,
  SIDES,
  type SubmitOrder,
  TIME_IN_FORCES,
  TRAILING_TYPES,
  type TrailingType,
} from '@hindsight/engine';
import { modifyOrderRequestSchema, type OrderRequest, orderRequestSchema } from '../http/schemas.ts';
import {
  type Body,
  FieldReader,
  invalidRequest,
  invalidValue,
  isError,
  isPlainObject,
  jsonType,
  type Parsed,
  read,
  unknownField,
  type WireError,
} from './wire-fields.ts';

/**
 * `POST /v1/orders` and `PATCH /v1/orders/{id}` bodies into the engine's typed commands (spec
 * trading-gateway.md: OrderRequest, Errors; docs/fills.md "Orders, time in force, margin"), in the
 * stages of `wire-fields.ts`: the shape here (strict: a field the schema lacks is a 400), then each
 * field alone here, in the spec's table order. The rules between fields are the engine's
 * (`orderFieldIssues`): it denies a command that breaks them (ORDER_FIELDS_CONFLICT, answered as
 * VALIDATION_ERROR), after every field has passed here, so the stages answer in the same order as
 * when one function checked all three. An unknown symbol is not a 400 either: the engine records the
 * order as REJECTED (SYMBOL_NOT_TRADEABLE, REST 422 `INVALID_SYMBOL`).
 */

export interface OrderRequestRules {
  /** The instrument's tick size: every price must be a whole multiple of it. Unchecked when absent. */
  tickSize?: string;
  /** The capability's `max_leverage`: a larger `leverage` is an INVALID_VALUE. */
  maxLeverage: string;
}

const REQUIRED = ['symbol', 'side', 'quantity', 'order_type'] as const;
/** The OrderRequest's fields, as its schema (which also writes the OpenAPI document) lists them. */
const ORDER_FIELDS: ReadonlySet<string> = new Set(Object.keys(orderRequestSchema.shape));
const MODIFY_FIELD_NAMES: ReadonlySet<string> = new Set(Object.keys(modifyOrderRequestSchema.shape));

/** Parses a `POST /v1/orders` body into a submission (stages 1 and 2). */
export function parseOrderRequest(body: unknown, rules: OrderRequestRules): Parsed<SubmitOrder> {
  if (!isPlainObject(body)) {
    return invalidRequest('The order request must be a JSON object.', { provided: jsonType(body) });
  }
  const names = Object.getOwnPropertyNames(body);
  const unknown = unknownField(names, ORDER_FIELDS, 'An OrderRequest');
  if (unknown) return unknown;
  for (const field of REQUIRED) {
    if (read(body, field) === undefined) return invalidRequest(`${field} is required.`, { field });
  }
  const fields = FieldReader.of(body, rules.tickSize);

  const symbol = read(body, 'symbol');
  if (typeof symbol !== 'string' || symbol.trim() === '') {
    return invalidValue('symbol', symbol, 'symbol must be a non-empty string.');
  }
  const side = fields.enumValue('side', SIDES);
  if (isError(side)) return side;
  const quantity = fields.positive('quantity');
  if (isError(quantity)) return quantity;
  const orderType = fields.enumValue('order_type', ORDER_TYPES);
  if (isError(orderType)) return orderType;
  // Required fields were checked for presence above, so these are set.
  if (side === undefined || quantity === undefined || orderType === undefined) {
    return invalidRequest('side, quantity and order_type are required.', {});
  }

  const order: SubmitOrder = {
    symbol,
    side,
    quantity,
    order_type: orderType,
    time_in_force: 'GTC',
  };
  if (!hasRequiredFieldsOnly(body, names)) {
    const optional = readOptionalFields(body, fields, rules, order);
    if (optional) return optional;
  }
  if (orderType === 'TRAILING_STOP') order.trailing_type ??= 'ABSOLUTE';
  return { ok: true, value: order };
}

/**
 * Whether the body has no field but the required ones (the common market order): then every optional
 * field is absent and none is read. Reading some twenty absent fields one by one (a property lookup by
 * a name that changes from call to call) was a third of validating such an order. Own fields are all
 * counted, enumerable or not; an object whose prototype is not Object's may inherit fields, so it
 * takes the field-by-field path.
 */
function hasRequiredFieldsOnly(body: Body, names: readonly string[]): boolean {
  if (Object.getPrototypeOf(body) !== Object.prototype) return false;
  if (names.length > REQUIRED.length) return false;
  for (const name of names) if (!(REQUIRED as readonly string[]).includes(name)) return false;
  return true;
}

/**
 * The optional fields of a new order, checked in the order the errors are reported and set on `order`.
 * Returns the first field's error, if any. (A PERCENT trailing distance of 100 or more is the engine's
 * to deny: it is the last field checked here, so its INVALID_VALUE still comes before any
 * VALIDATION_ERROR.)
 */
function readOptionalFields(
  body: Body,
  fields: FieldReader,
  rules: OrderRequestRules,
  order: SubmitOrder,
): WireError | undefined {
  const limitPrice = fields.positive('limit_price', true);
  if (isError(limitPrice)) return limitPrice;
  const stopPrice = fields.positive('stop_price', true);
  if (isError(stopPrice)) return stopPrice;
  const timeInForce = fields.enumValue('time_in_force', TIME_IN_FORCES);
  if (isError(timeInForce)) return timeInForce;
  const clientOrderId = fields.id('client_order_id');
  if (isError(clientOrderId)) return clientOrderId;
  const stopLoss = fields.positive('stop_loss', true);
  if (isError(stopLoss)) return stopLoss;
  const takeProfit = fields.positive('take_profit', true);
  if (isError(takeProfit)) return takeProfit;
  const reduceOnly = fields.boolean('reduce_only');
  if (isError(reduceOnly)) return reduceOnly;
  const postOnly = fields.boolean('post_only');
  if (isError(postOnly)) return postOnly;
  const ocoGroupId = fields.id('oco_group_id');
  if (isError(ocoGroupId)) return ocoGroupId;
  const hidden = fields.boolean('hidden');
  if (isError(hidden)) return hidden;
  const displayQuantity = fields.positive('display_quantity');
  if (isError(displayQuantity)) return displayQuantity;
  const leverage = fields.positive('leverage');
  if (isError(leverage)) return leverage;
  if (leverage !== undefined && (leverage.lt(1) || leverage.gt(rules.maxLeverage))) {
    const max = toDecimalString(new Dec(rules.maxLeverage));
    return invalidValue('leverage', body.leverage, `leverage must be between 1 and max_leverage (${max}).`, {
      max_leverage: max,
    });
  }
  const marginMode = fields.enumValue('margin_mode', MARGIN_MODES);
  if (isError(marginMode)) return marginMode;
  const positionId = fields.id('position_id');
  if (isError(positionId)) return positionId;
  const trailingType = fields.enumValue('trailing_type', TRAILING_TYPES);
  if (isError(trailingType)) return trailingType;
  const trailingDistance = fields.positive('trailing_distance', (trailingType ?? 'ABSOLUTE') === 'ABSOLUTE');
  if (isError(trailingDistance)) return trailingDistance;

  if (timeInForce !== undefined) order.time_in_force = timeInForce;
  if (limitPrice !== undefined) order.limit_price = limitPrice;
  if (stopPrice !== undefined) order.stop_price = stopPrice;
  if (clientOrderId !== undefined) order.client_order_id = clientOrderId;
  if (stopLoss !== undefined) order.stop_loss = stopLoss;
  if (takeProfit !== undefined) order.take_profit = takeProfit;
  if (reduceOnly !== undefined) order.reduce_only = reduceOnly;
  if (postOnly !== undefined) order.post_only = postOnly;
  if (ocoGroupId !== undefined) order.oco_group_id = ocoGroupId;
  if (hidden !== undefined) order.hidden = hidden;
  if (displayQuantity !== undefined) order.display_quantity = displayQuantity;
  if (leverage !== undefined) order.leverage = leverage;
  if (marginMode !== undefined) order.margin_mode = marginMode;
  if (positionId !== undefined) order.position_id = positionId;
  if (trailingDistance !== undefined) order.trailing_distance = trailingDistance;
  if (trailingType !== undefined) order.trailing_type = trailingType;
  return undefined;
}

/**
 * Parses a `PATCH /v1/orders/{id}` body: only fields sent non-null change, and at least one must.
 * `trailingType` is the order's own (a PERCENT distance is not on the tick). Whether the modified
 * order holds together (its fields, its filled quantity, its legs) and is still modifiable is the
 * engine's to say.
 */
export function parseModifyOrderRequest(
  body: unknown,
  rules: { tickSize?: string; trailingType?: TrailingType | null } = {},
): Parsed<ModifyOrder> {
  if (!isPlainObject(body)) {
    return invalidRequest('The modify request must be a JSON object.', { provided: jsonType(body) });
  }
  const unknown = unknownField(Object.getOwnPropertyNames(body), MODIFY_FIELD_NAMES, 'A ModifyOrderRequest');
  if (unknown) return unknown;
  const fields = FieldReader.of(body, rules.tickSize);
  const changes: ModifyOrder = {};
  let any = false;
  for (const field of MODIFIABLE_FIELDS) {
    const onTick =
      field !== 'quantity' &&
      (field !== 'trailing_distance' || (rules.trailingType ?? 'ABSOLUTE') === 'ABSOLUTE');
    const value = fields.positive(field, onTick);
    if (isError(value)) return value;
    if (value !== undefined) {
      changes[field] = value;
      any = true;
    }
  }
  if (!any) {
    return invalidRequest(
      'Send at least one of quantity, limit_price, stop_price, stop_loss, take_profit, trailing_distance.',
      { provided: body },
    );
  }
  return { ok: true, value: changes };
}

/**
 * The canonical wire form of a parsed request: canonical decimals (decision 37), time_in_force and
 * the booleans spelled out (GTC, false), trailing_type spelled out on trailing stops, keys in the
 * spec's order.
 */
export function canonicalOrderRequest(order: SubmitOrder): OrderRequest {
  const dec = (d: Dec | undefined) => (d === undefined ? undefined : toDecimalString(d));
  const wire: OrderRequest = {
    symbol: order.symbol,
    side: order.side,
    quantity: toDecimalString(order.quantity),
    order_type: order.order_type,
    limit_price: dec(order.limit_price),
    stop_price: dec(order.stop_price),
    time_in_force: order.time_in_force,
    client_order_id: order.client_order_id,
    stop_loss: dec(order.stop_loss),
    take_profit: dec(order.take_profit),
    reduce_only: order.reduce_only ?? false,
    post_only: order.post_only ?? false,
    oco_group_id: order.oco_group_id,
    hidden: order.hidden ?? false,
    display_quantity: dec(order.display_quantity),
    leverage: dec(order.leverage),
    margin_mode: order.margin_mode,
    position_id: order.position_id,
    trailing_distance: dec(order.trailing_distance),
    trailing_type: order.order_type === 'TRAILING_STOP' ? (order.trailing_type ?? 'ABSOLUTE') : undefined,
  };
  for (const key of Object.keys(wire) as (keyof OrderRequest)[]) {
    if (wire[key] === undefined) delete wire[key];
  }
  return wire;
}

/**
 * Decision 19: a repeated client_order_id with an identical body returns the existing order. Two
 * requests are identical when their canonical forms are equal: decimals compare by value ("1.50" is
 * "1.5"), an omitted time_in_force is GTC, an omitted reduce_only/post_only/hidden is false, an
 * omitted trailing_type of a trailing stop is ABSOLUTE. Omitted leverage and margin_mode differ from
 * any explicit value (they mean "the default", which depends on the instrument).
 */
export function sameOrderRequest(a: SubmitOrder, b: SubmitOrder): boolean {
  return JSON.stringify(canonicalOrderRequest(a)) === JSON.stringify(canonicalOrderRequest(b));
}

/** Whether the engine would deny a submission for its fields (a repeat is then left to it). */
export const fieldsConflict = (order: SubmitOrder): boolean => orderFieldIssues(order).length > 0;
