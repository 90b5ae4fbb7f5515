import { DEC_ZERO, Dec, isDecimalString, toDecimalString } from '@hindsight/core';
import type { OrderStatus } from './order-states.ts';
import {
  isOneOf,
  MARGIN_MODES,
  type MarginMode,
  ORDER_TYPES,
  type OrderRequest,
  type OrderType,
  REJECT_REASONS,
  type RejectReason,
  SIDES,
  type Side,
  TIME_IN_FORCES,
  type TimeInForce,
  TRAILING_TYPES,
  type TrailingType,
} from './order-types.ts';
import { requestDecimal } from './request-decimals.ts';

/**
 * Validation of `POST /v1/orders` and `PATCH /v1/orders/{id}` bodies (spec trading-gateway.md:
 * OrderRequest, Errors; docs/fills.md "Orders, time in force, margin"). Checks run in three stages and
 * the first failing stage answers:
 * 1. shape: the body is a JSON object and holds every required field -> `INVALID_REQUEST`;
 * 2. each field alone, in the spec's table order -> `INVALID_VALUE` with `details.field` and
 *    `details.provided` (the value exactly as sent);
 * 3. fields together -> `VALIDATION_ERROR` with `details.errors`, every contradiction found.
 * A valid request for a symbol the provider does not trade is not a 400: it parses, and
 * `rejectReason` says the engine rejects it (SYMBOL_NOT_TRADEABLE, REST 422 `INVALID_SYMBOL`).
 * A field sent as `null` counts as omitted; unknown fields are ignored.
 */

export interface OrderRequestRules {
  /** The instrument's tick size: every price must be a whole multiple of it. Unchecked when absent. */
  tickSize?: string;
  knownSymbol(symbol: string): boolean;
  /** The capability's `max_leverage`: a larger `leverage` is an INVALID_VALUE. */
  maxLeverage: string;
}

/** An OrderRequest with decimals parsed and defaults applied (time_in_force GTC; trailing ABSOLUTE). */
export interface ParsedOrderRequest {
  symbol: string;
  side: Side;
  quantity: Dec;
  order_type: OrderType;
  time_in_force: TimeInForce;
  limit_price?: Dec;
  stop_price?: Dec;
  client_order_id?: string;
  stop_loss?: Dec;
  take_profit?: Dec;
  reduce_only?: boolean;
  post_only?: boolean;
  oco_group_id?: string;
  hidden?: boolean;
  display_quantity?: Dec;
  leverage?: Dec;
  margin_mode?: MarginMode;
  position_id?: string;
  trailing_distance?: Dec;
  /** Present (default ABSOLUTE) exactly when order_type is TRAILING_STOP. */
  trailing_type?: TrailingType;
}

/** One entry of a VALIDATION_ERROR report. */
export interface ValidationIssue {
  field: string;
  message: string;
}

export type OrderRequestErrorCode = 'INVALID_REQUEST' | 'INVALID_VALUE' | 'VALIDATION_ERROR';

/** A gateway ApiError body (HTTP 400) with `ok: false`. */
export interface OrderRequestError {
  ok: false;
  code: OrderRequestErrorCode;
  message: string;
  details: Record<string, unknown>;
}

export type OrderRequestValidation =
  | {
      ok: true;
      order: ParsedOrderRequest;
      /** Set when the request is valid but the engine must reject it (unknown symbol). */
      rejectReason: RejectReason | null;
    }
  | OrderRequestError;

/** Longest accepted `client_order_id`, `oco_group_id` and `position_id`. */
export const MAX_ID_LENGTH = 128;

const REQUIRED = ['symbol', 'side', 'quantity', 'order_type'] as const;
const PRICE_FIELDS = ['limit_price', 'stop_price', 'stop_loss', 'take_profit'] as const;
const USES_LIMIT: readonly OrderType[] = ['LIMIT', 'STOP_LIMIT'];
const USES_STOP: readonly OrderType[] = ['STOP', 'STOP_LIMIT'];
/** post_only needs an order that can rest; the others always take liquidity. */
const CAN_POST: readonly OrderType[] = ['LIMIT', 'STOP_LIMIT'];

type Body = Record<string, unknown>;

export const isPlainObject = (value: unknown): value is Body =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const jsonType = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

export const invalidRequest = (message: string, details: Record<string, unknown>): OrderRequestError => ({
  ok: false,
  code: 'INVALID_REQUEST',
  message,
  details,
});

export const invalidValue = (
  field: string,
  provided: unknown,
  message: string,
  extra: Record<string, unknown> = {},
): OrderRequestError => ({
  ok: false,
  code: 'INVALID_VALUE',
  message,
  details: { field, provided, ...extra },
});

export const validationError = (errors: ValidationIssue[]): OrderRequestError => ({
  ok: false,
  code: 'VALIDATION_ERROR',
  message: errors.map((e) => e.message).join('; '),
  details: { errors },
});

/** A field's value, `undefined` when omitted or `null`. */
const read = (body: Body, field: string): unknown => (body[field] === null ? undefined : body[field]);

/** Field-by-field checks; each returns the parsed value or an INVALID_VALUE error. */
export class FieldReader {
  constructor(
    private readonly body: Body,
    private readonly tickSize: Dec | undefined,
  ) {}

  /** A reader checking prices against `tickSize` (a text: its decimal is shared from request to request). */
  static of(body: Body, tickSize: string | undefined): FieldReader {
    return new FieldReader(body, tickSize === undefined ? undefined : requestDecimal(tickSize));
  }

  enumValue<T extends string>(field: string, values: readonly T[]): T | undefined | OrderRequestError {
    const value = read(this.body, field);
    if (value === undefined) return undefined;
    if (!isOneOf(values, value)) {
      return invalidValue(field, value, `${field} must be one of ${values.join(', ')}.`, { allowed: values });
    }
    return value;
  }

  boolean(field: string): boolean | undefined | OrderRequestError {
    const value = read(this.body, field);
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') return invalidValue(field, value, `${field} must be true or false.`);
    return value;
  }

  id(field: string): string | undefined | OrderRequestError {
    const value = read(this.body, field);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_ID_LENGTH) {
      return invalidValue(
        field,
        value,
        `${field} must be a non-empty string of at most ${MAX_ID_LENGTH} characters.`,
      );
    }
    return value;
  }

  /** A decimal string (decision 23) greater than 0, on the tick size when `onTick`. */
  positive(field: string, onTick = false): Dec | undefined | OrderRequestError {
    const value = read(this.body, field);
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !isDecimalString(value)) {
      return invalidValue(
        field,
        value,
        `${field} must be a decimal string such as "1.5" (not a JSON number).`,
      );
    }
    const parsed = requestDecimal(value);
    if (!parsed.gt(DEC_ZERO)) return invalidValue(field, value, `${field} must be greater than 0.`);
    if (onTick && this.tickSize && !parsed.mod(this.tickSize).isZero()) {
      const tick = toDecimalString(this.tickSize);
      return invalidValue(field, value, `${field} must be a multiple of the tick size ${tick}.`, {
        tick_size: tick,
      });
    }
    return parsed;
  }
}

export const isError = (value: unknown): value is OrderRequestError =>
  isPlainObject(value) && value.ok === false && typeof value.code === 'string';

/** The fields the cross-field rules look at, for a new order or an order after a modification. */
interface OrderShape {
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

/** Cross-field rules (stage 3); `given` limits "not used by" errors to fields the client sent. */
function crossFieldIssues(order: OrderShape, given: (field: string) => boolean): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const type = order.order_type;
  needs(issues, order, given, 'limit_price', USES_LIMIT.includes(type), type);
  needs(issues, order, given, 'stop_price', USES_STOP.includes(type), type);
  needs(issues, order, given, 'trailing_distance', type === 'TRAILING_STOP', 'TRAILING_STOP');
  if (type !== 'TRAILING_STOP' && given('trailing_type')) {
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

/**
 * `field` is required when the order type uses it (`what` names the orders that need it) and, when the
 * client sent it, refused otherwise. (Module functions rather than closures: this runs for every order.)
 */
function needs(
  issues: ValidationIssue[],
  order: OrderShape,
  given: (field: string) => boolean,
  field: keyof OrderShape,
  when: boolean,
  what: string,
): void {
  if (when && order[field] === undefined)
    issues.push({ field, message: `${field} is required for ${what} orders.` });
  if (!when && order[field] !== undefined && given(field)) {
    issues.push({ field, message: `${field} is not used by ${order.order_type} orders.` });
  }
}

/** A bracket price on the wrong side of its reference (below it when it must be below, or the reverse). */
function wrongSide(price: Dec, reference: Dec, mustBeBelow: boolean): boolean {
  return mustBeBelow ? !price.lt(reference) : !price.gt(reference);
}

/** Validates and parses a `POST /v1/orders` body. */
export function validateOrderRequest(body: unknown, rules: OrderRequestRules): OrderRequestValidation {
  if (!isPlainObject(body)) {
    return invalidRequest('The order request must be a JSON object.', { provided: jsonType(body) });
  }
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

  const order: ParsedOrderRequest = {
    symbol,
    side,
    quantity,
    order_type: orderType,
    time_in_force: 'GTC',
  };
  const requiredOnly = hasRequiredFieldsOnly(body);
  const optional = requiredOnly ? undefined : readOptionalFields(body, fields, rules, order);
  if (optional && 'ok' in optional) return optional;

  const issues = crossFieldIssues(order, (field) => !requiredOnly && read(body, field) !== undefined);
  if (issues.length > 0) return validationError(issues);
  if (orderType === 'TRAILING_STOP') order.trailing_type = optional?.trailingType ?? 'ABSOLUTE';

  const rejectReason: RejectReason | null = rules.knownSymbol(symbol) ? null : 'SYMBOL_NOT_TRADEABLE';
  return { ok: true, order, rejectReason };
}

/**
 * Whether the body has no field but the required ones (the common market order): then every optional
 * field is absent and none is read. Reading some twenty absent fields one by one (a property lookup by
 * a name that changes from call to call) was a third of validating such an order. Own fields are all
 * counted, enumerable or not; an object whose prototype is not Object's may inherit fields, so it
 * takes the field-by-field path.
 */
function hasRequiredFieldsOnly(body: Body): boolean {
  if (Object.getPrototypeOf(body) !== Object.prototype) return false;
  const names = Object.getOwnPropertyNames(body);
  if (names.length > REQUIRED.length) return false;
  for (const name of names) if (!(REQUIRED as readonly string[]).includes(name)) return false;
  return true;
}

/**
 * The optional fields of a new order, checked in the order the errors are reported and set on `order`;
 * `trailing_type` is returned (the caller sets it on TRAILING_STOP orders only, once the cross-field
 * rules have passed). Returns the first field's error, if any.
 */
function readOptionalFields(
  body: Body,
  fields: FieldReader,
  rules: OrderRequestRules,
  order: ParsedOrderRequest,
): OrderRequestError | { trailingType: TrailingType | undefined } {
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
  if (trailingType === 'PERCENT' && trailingDistance?.gte(100)) {
    return invalidValue(
      'trailing_distance',
      body.trailing_distance,
      'A PERCENT trailing_distance must be below 100.',
    );
  }

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
  return { trailingType };
}

/** The order a PATCH applies to, as the engine holds it. */
export interface ModifiableOrder {
  side: Side;
  order_type: OrderType;
  time_in_force: TimeInForce;
  status: OrderStatus;
  quantity: Dec;
  filled_quantity: Dec;
  limit_price?: Dec | null;
  stop_price?: Dec | null;
  stop_loss?: Dec | null;
  take_profit?: Dec | null;
  trailing_distance?: Dec | null;
  trailing_type?: TrailingType | null;
  display_quantity?: Dec | null;
  reduce_only?: boolean | null;
  post_only?: boolean | null;
}

/** The changes of a valid PATCH: only fields sent non-null. */
export interface ParsedOrderModification {
  quantity?: Dec;
  limit_price?: Dec;
  stop_price?: Dec;
  stop_loss?: Dec;
  take_profit?: Dec;
  trailing_distance?: Dec;
}

export type ModifyOrderValidation = { ok: true; changes: ParsedOrderModification } | OrderRequestError;

const MODIFY_FIELDS = ['quantity', ...PRICE_FIELDS, 'trailing_distance'] as const;

/**
 * Validates a `PATCH /v1/orders/{id}` body against the order it modifies. Same stages and codes as
 * `validateOrderRequest`; `quantity` below the filled quantity is an INVALID_VALUE; the modified order
 * must pass the cross-field rules (a price its type does not use, a bracket on the wrong side).
 * Whether the order is still modifiable (409) is the caller's check.
 */
export function validateModifyOrderRequest(
  body: unknown,
  current: ModifiableOrder,
  rules: Pick<OrderRequestRules, 'tickSize'> = {},
): ModifyOrderValidation {
  if (!isPlainObject(body)) {
    return invalidRequest('The modify request must be a JSON object.', { provided: jsonType(body) });
  }
  const fields = FieldReader.of(body, rules.tickSize);
  const changes: ParsedOrderModification = {};
  for (const field of MODIFY_FIELDS) {
    const onTick =
      field !== 'quantity' &&
      (field !== 'trailing_distance' || (current.trailing_type ?? 'ABSOLUTE') === 'ABSOLUTE');
    const value = fields.positive(field, onTick);
    if (isError(value)) return value;
    if (value !== undefined) changes[field] = value;
  }
  if (changes.quantity?.lt(current.filled_quantity)) {
    const filled = toDecimalString(current.filled_quantity);
    return invalidValue(
      'quantity',
      body.quantity,
      `quantity must be at least the filled quantity ${filled}.`,
      {
        filled_quantity: filled,
      },
    );
  }
  if (current.trailing_type === 'PERCENT' && changes.trailing_distance?.gte(100)) {
    return invalidValue(
      'trailing_distance',
      body.trailing_distance,
      'A PERCENT trailing_distance must be below 100.',
    );
  }
  const orNull = (d: Dec | null | undefined) => d ?? undefined;
  const merged: OrderShape = {
    side: current.side,
    order_type: current.order_type,
    time_in_force: current.time_in_force,
    quantity: changes.quantity ?? current.quantity,
    limit_price: changes.limit_price ?? orNull(current.limit_price),
    stop_price: changes.stop_price ?? orNull(current.stop_price),
    stop_loss: changes.stop_loss ?? orNull(current.stop_loss),
    take_profit: changes.take_profit ?? orNull(current.take_profit),
    trailing_distance: changes.trailing_distance ?? orNull(current.trailing_distance),
    trailing_type: current.trailing_type ?? undefined,
    display_quantity: orNull(current.display_quantity),
    reduce_only: current.reduce_only ?? undefined,
    post_only: current.post_only ?? undefined,
  };
  const issues = crossFieldIssues(merged, (field) => field in changes);
  if (issues.length > 0) return validationError(issues);
  return { ok: true, changes };
}

/**
 * The REST `details.reject_code` of a rejection (spec: ORDER_REJECTED details): the canonical hints
 * INSUFFICIENT_FUNDS, MARKET_CLOSED, INVALID_QUANTITY and INVALID_SYMBOL where one fits, otherwise the
 * RejectReason's own name.
 */
export function rejectCodeFor(reason: RejectReason): string {
  switch (reason) {
    case 'INSUFFICIENT_MARGIN':
    case 'INSUFFICIENT_BALANCE':
      return 'INSUFFICIENT_FUNDS';
    case 'SYMBOL_NOT_TRADEABLE':
      return 'INVALID_SYMBOL';
    default:
      return reason;
  }
}

/** Every RejectReason with its REST reject_code, for documentation. */
export const REJECT_CODES: Readonly<Record<RejectReason, string>> = Object.fromEntries(
  REJECT_REASONS.map((r) => [r, rejectCodeFor(r)]),
) as Record<RejectReason, string>;

/**
 * The canonical wire form of a parsed request: canonical decimals (decision 37), time_in_force and
 * the booleans spelled out (GTC, false), trailing_type spelled out on trailing stops, keys in the
 * spec's order.
 */
export function canonicalOrderRequest(order: ParsedOrderRequest): OrderRequest {
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
export function sameOrderRequest(a: ParsedOrderRequest, b: ParsedOrderRequest): boolean {
  return JSON.stringify(canonicalOrderRequest(a)) === JSON.stringify(canonicalOrderRequest(b));
}
