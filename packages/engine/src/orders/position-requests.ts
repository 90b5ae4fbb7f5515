import { type Dec, toDecimalString } from '@hindsight/core';
import {
  FieldReader,
  invalidRequest,
  invalidValue,
  isError,
  isPlainObject,
  jsonType,
  type OrderRequestError,
  validationError,
} from './order-request.ts';

/**
 * Validation of the position endpoints' bodies (trading-gateway.md, Positions): `DELETE
 * /v1/positions/{id}` (close) and `PATCH /v1/positions/{id}` (move exit legs). Same codes and stages as
 * order requests: INVALID_REQUEST for the shape, INVALID_VALUE per field, VALIDATION_ERROR across fields.
 */

export interface ParsedClosePosition {
  /** Omitted: the whole position. */
  quantity?: Dec;
  order_type: 'MARKET' | 'LIMIT';
  limit_price?: Dec;
  /** Default true: the position's exit legs and the orders aimed at it are cancelled first. */
  cancel_associated_orders: boolean;
}

export type ClosePositionValidation = { ok: true; close: ParsedClosePosition } | OrderRequestError;

/** The close body is optional: `undefined`/`null` is a full close at market. */
export function validateClosePositionRequest(body: unknown, positionQuantity: Dec): ClosePositionValidation {
  if (body === undefined || body === null) {
    return { ok: true, close: { order_type: 'MARKET', cancel_associated_orders: true } };
  }
  if (!isPlainObject(body)) {
    return invalidRequest('The close request must be a JSON object (or no body for a full close).', {
      provided: jsonType(body),
    });
  }
  const fields = new FieldReader(body, undefined);
  const quantity = fields.positive('quantity');
  if (isError(quantity)) return quantity;
  if (quantity?.gt(positionQuantity)) {
    const held = toDecimalString(positionQuantity);
    return invalidValue('quantity', body.quantity, `quantity must not exceed the position's ${held}.`, {
      position_quantity: held,
    });
  }
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
  return {
    ok: true,
    close: {
      ...(quantity && { quantity }),
      order_type: type,
      ...(limitPrice && { limit_price: limitPrice }),
      cancel_associated_orders: cancelAssociated ?? true,
    },
  };
}

export interface ParsedLegMove {
  stop_loss?: Dec;
  take_profit?: Dec;
}

export type LegMoveValidation = { ok: true; move: ParsedLegMove } | OrderRequestError;

/** `{ stop_loss?, take_profit? }`, at least one. */
export function validateLegMoveRequest(body: unknown): LegMoveValidation {
  if (!isPlainObject(body)) {
    return invalidRequest('The request must be a JSON object with stop_loss and/or take_profit.', {
      provided: jsonType(body),
    });
  }
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
  return {
    ok: true,
    move: { ...(stopLoss && { stop_loss: stopLoss }), ...(takeProfit && { take_profit: takeProfit }) },
  };
}
