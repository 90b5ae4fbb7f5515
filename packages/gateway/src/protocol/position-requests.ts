import type { ClosePosition, SetExitLegs } from '@hindsight/engine';
import { closePositionRequestSchema, exitLegsRequestSchema } from '../http/schemas.ts';
import {
  FieldReader,
  invalidRequest,
  isError,
  isPlainObject,
  jsonType,
  type Parsed,
  unknownField,
  validationError,
} from './wire-fields.ts';

/**
 * The position endpoints' bodies (trading-gateway.md, Positions) into the engine's typed commands:
 * `DELETE /v1/positions/{id}` (close) and `PATCH /v1/positions/{id}` (move exit legs). Same stages
 * and codes as order requests (`wire-fields.ts`), strict alike. Whether the position holds the
 * quantity to close is the engine's to say.
 */

const CLOSE_FIELDS: ReadonlySet<string> = new Set(Object.keys(closePositionRequestSchema.shape));
const EXIT_LEG_FIELDS: ReadonlySet<string> = new Set(Object.keys(exitLegsRequestSchema.shape));

/** The close body is optional: `undefined`/`null` is a full close at market. */
export function parseClosePositionRequest(body: unknown): Parsed<ClosePosition> {
  if (body === undefined || body === null) {
    return { ok: true, value: { order_type: 'MARKET', cancel_associated_orders: true } };
  }
  if (!isPlainObject(body)) {
    return invalidRequest('The close request must be a JSON object (or no body for a full close).', {
      provided: jsonType(body),
    });
  }
  const unknown = unknownField(Object.getOwnPropertyNames(body), CLOSE_FIELDS, 'A ClosePositionRequest');
  if (unknown) return unknown;
  const fields = new FieldReader(body, undefined);
  const quantity = fields.positive('quantity');
  if (isError(quantity)) return quantity;
  const orderType = fields.enumValue('order_type', ['MARKET', 'LIMIT'] as const);
  if (isError(orderType)) return orderType;
  const limitPrice = fields.positive('limit_price');
  if (isError(limitPrice)) return limitPrice;
  const cancelAssociated = fields.boolean('cancel_associated_orders');
  if (isError(cancelAssociated)) return cancelAssociated;
  const type = orderType ?? 'MARKET';
  if (type === 'LIMIT' && limitPrice === undefined) {
    return validationError([{ field: 'limit_price', message: 'limit_price is required for a LIMIT close.' }]);
  }
  if (type === 'MARKET' && limitPrice !== undefined) {
    return validationError([
      { field: 'limit_price', message: 'limit_price is not used by a MARKET close; send order_type LIMIT.' },
    ]);
  }
  const cancel_associated_orders = cancelAssociated ?? true;
  const close: ClosePosition =
    limitPrice === undefined
      ? { order_type: 'MARKET', cancel_associated_orders }
      : { order_type: 'LIMIT', limit_price: limitPrice, cancel_associated_orders };
  if (quantity) close.quantity = quantity;
  return { ok: true, value: close };
}

/** `{ stop_loss?, take_profit? }`, at least one. */
export function parseExitLegsRequest(body: unknown): Parsed<SetExitLegs> {
  if (!isPlainObject(body)) {
    return invalidRequest('The request must be a JSON object with stop_loss and/or take_profit.', {
      provided: jsonType(body),
    });
  }
  const unknown = unknownField(Object.getOwnPropertyNames(body), EXIT_LEG_FIELDS, 'A MoveExitLegsRequest');
  if (unknown) return unknown;
  const fields = new FieldReader(body, undefined);
  const stopLoss = fields.positive('stop_loss');
  if (isError(stopLoss)) return stopLoss;
  const takeProfit = fields.positive('take_profit');
  if (isError(takeProfit)) return takeProfit;
  if (!stopLoss && !takeProfit) {
    return invalidRequest('Name at least one leg to move: stop_loss and/or take_profit.', {
      missing: ['stop_loss', 'take_profit'],
    });
  }
  const legs: SetExitLegs = {};
  if (stopLoss) legs.stop_loss = stopLoss;
  if (takeProfit) legs.take_profit = takeProfit;
  return { ok: true, value: legs };
}
