import {
  type Denial,
  type DenialCode,
  type OrderHandle,
  REJECT_REASONS,
  type RejectReason,
} from '@hindsight/engine';
import { GatewayError, type GatewayErrorCode } from '../errors.ts';
import { isPlainObject, type WireError } from './wire-fields.ts';

/**
 * The one table from the engine's answers to the spec's (trading-gateway.md: Errors, States and
 * transitions): each denial code to its ApiError code and details, each RejectReason of a REJECTED
 * order to its 422 `details.reject_code` and message. The HTTP status of each ApiError code is the
 * registry's (`errors.ts`); nothing else in the gateway translates an engine answer.
 */

type Details = (denial: Denial, sent: unknown) => Record<string, unknown>;

/**
 * INVALID_VALUE: the field, the value exactly as the client sent it (the command holds it parsed),
 * and the facts (the limit it broke).
 */
const value: Details = (denial, sent) => {
  const field = denial.field as string;
  const asSent = isPlainObject(sent) ? sent[field] : undefined;
  return { field, provided: asSent ?? denial.provided ?? null, ...denial.facts };
};
/** VALIDATION_ERROR: every contradiction, each naming its field. */
const report: Details = (denial) => ({
  errors: denial.issues ?? [{ field: denial.field as string, message: denial.message }],
});
/** 404/409 about a resource: its id. */
const named =
  (key: string): Details =>
  (denial) => ({ [key]: denial.provided });
/** 409 about an exit leg: which leg, and the price refused with the market it is through. */
const leg: Details = (denial) => ({
  ...denial.facts,
  ...(denial.provided !== undefined && { provided: denial.provided }),
});

export const DENIAL_ERRORS: Readonly<Record<DenialCode, { code: GatewayErrorCode; details: Details }>> = {
  UNKNOWN_ORDER: { code: 'ORDER_NOT_FOUND', details: named('order_id') },
  ORDER_NOT_MODIFIABLE: { code: 'ORDER_NOT_MODIFIABLE', details: named('order_id') },
  POSITION_NOT_FOUND: { code: 'POSITION_NOT_FOUND', details: named('position_id') },
  ORDER_FIELDS_CONFLICT: { code: 'VALIDATION_ERROR', details: report },
  TRAILING_DISTANCE_TOO_LARGE: { code: 'INVALID_VALUE', details: value },
  POSITION_TARGET_MISMATCH: { code: 'INVALID_VALUE', details: value },
  BRACKET_ON_POSITION_TARGET: { code: 'VALIDATION_ERROR', details: report },
  // Decision 38: PATCH /v1/positions answers a leg through the market with 409, but 409 does not fit
  // a create; a new order's bracket through the market is a 400 VALIDATION_ERROR naming the field.
  BRACKET_THROUGH_MARKET: { code: 'VALIDATION_ERROR', details: report },
  QUANTITY_BELOW_FILLED: { code: 'INVALID_VALUE', details: value },
  LEG_EXCEEDS_POSITION: { code: 'INVALID_VALUE', details: value },
  POST_ONLY_WOULD_TRADE: { code: 'INVALID_VALUE', details: value },
  CLOSE_EXCEEDS_POSITION: { code: 'INVALID_VALUE', details: value },
  // Exit-leg move rules: a leg not tracked, or a move rejected (the original kept), is a 409.
  EXIT_LEG_NOT_FOUND: { code: 'ORDER_NOT_MODIFIABLE', details: leg },
  EXIT_LEG_THROUGH_MARKET: { code: 'ORDER_NOT_MODIFIABLE', details: leg },
};

/** The ApiError of a denied command; `sent` is the request body, for `details.provided`. */
export function denialError(denial: Denial, sent?: unknown): GatewayError {
  const { code, details } = DENIAL_ERRORS[denial.code];
  return new GatewayError(code, denial.message, details(denial, sent));
}

/** The ApiError of a body that did not parse. */
export const wireError = (error: WireError): GatewayError =>
  new GatewayError(error.code, error.message, error.details);

/** A command's accepted value, or its denial thrown as the ApiError. */
export function accepted<T>(outcome: { ok: true; value: T } | Denial, sent?: unknown): T {
  if (!outcome.ok) throw denialError(outcome, sent);
  return outcome.value;
}

/** A parsed body's value, or its 400 thrown as the ApiError. */
export function parsedOrThrow<T>(parsed: { ok: true; value: T } | WireError): T {
  if (!parsed.ok) throw wireError(parsed);
  return parsed.value;
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

const REJECT_MESSAGES: Partial<Record<RejectReason, string>> = {
  INSUFFICIENT_MARGIN: 'the free margin does not cover the order',
  INSUFFICIENT_BALANCE: 'the balance does not cover the order',
  MARKET_CLOSED: 'there is no quote for the symbol yet (the replay has not reached its data)',
  SYMBOL_NOT_TRADEABLE: 'the symbol is not part of this scenario',
  REDUCE_ONLY_VIOLATED: 'a reduce-only order must reduce an open position on the other side',
  POST_ONLY_VIOLATED: 'a post-only order would have traded at once',
};

/** 422 ORDER_REJECTED for an order the provider recorded as REJECTED (the order is kept). */
export function rejectedError(reason: RejectReason, orderId: string): GatewayError {
  const why = REJECT_MESSAGES[reason] ?? 'the simulated venue refused it';
  return new GatewayError('ORDER_REJECTED', `The order was rejected (${reason}): ${why}.`, {
    reject_code: rejectCodeFor(reason),
    reject_reason: reason,
    order_id: orderId,
  });
}

/**
 * The handle `POST /v1/orders` answers 201 with: status PENDING, as the spec's state table gives it
 * for the create response ("The handle is returned with status PENDING"), whatever the order became
 * within the same call (a market order is usually FILLED already; its events say so).
 */
export const createdHandle = (handle: OrderHandle): OrderHandle => ({
  id: handle.id,
  status: 'PENDING',
  client_order_id: handle.client_order_id,
});
