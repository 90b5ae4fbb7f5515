import type { Dec } from '@hindsight/core';
import type { MarginMode, OrderType, RejectReason, Side, TimeInForce, TrailingType } from './order-types.ts';
import type { OrderRecord } from './order-view.ts';

/**
 * What a caller asks of the engine, already parsed, and what the engine answers. Values are typed
 * (decimals as `Dec`, enums as their unions) and defaults are applied: the engine never sees wire JSON.
 * The gateway's protocol module (`packages/gateway/src/protocol/`) turns request bodies into these
 * commands and the engine's answers into the spec's statuses and ApiError bodies.
 *
 * An answer is either accepted (with the order or the data asked for) or denied: the engine refused
 * the command and changed nothing. A denial is not an order rejection: a REJECTED order exists (its
 * RejectReason, e.g. INSUFFICIENT_MARGIN, is part of the order's lifecycle); a denied command made
 * no order at all.
 */

/** A new order. Field names follow the order record (and the wire) so the mapping stays obvious. */
export interface SubmitOrder {
  symbol: string;
  side: Side;
  quantity: Dec;
  order_type: OrderType;
  /** GTC when the client gave none. */
  time_in_force: TimeInForce;
  /** Required for LIMIT and STOP_LIMIT, not used by the others. */
  limit_price?: Dec;
  /** Required for STOP and STOP_LIMIT, not used by the others. */
  stop_price?: Dec;
  client_order_id?: string;
  /** Bracket: exit legs placed when the entry fills. */
  stop_loss?: Dec;
  take_profit?: Dec;
  reduce_only?: boolean;
  post_only?: boolean;
  oco_group_id?: string;
  hidden?: boolean;
  display_quantity?: Dec;
  leverage?: Dec;
  margin_mode?: MarginMode;
  /** Hedging: the open position the order reduces. */
  position_id?: string;
  /** Required for TRAILING_STOP. */
  trailing_distance?: Dec;
  /** Set (ABSOLUTE by default) on TRAILING_STOP orders; on any other order it is a conflict. */
  trailing_type?: TrailingType;
}

/** The changes to a live order: only the fields given change. */
export interface ModifyOrder {
  /** At least the filled quantity. */
  quantity?: Dec;
  limit_price?: Dec;
  stop_price?: Dec;
  stop_loss?: Dec;
  take_profit?: Dec;
  trailing_distance?: Dec;
}

/** The fields a modification may change, in the wire's order. */
export const MODIFIABLE_FIELDS = [
  'quantity',
  'limit_price',
  'stop_price',
  'stop_loss',
  'take_profit',
  'trailing_distance',
] as const satisfies readonly (keyof ModifyOrder)[];

/** A close of an open position by a reduce-only order (by default the whole position at market). */
export type ClosePosition = {
  /** Omitted: the whole position. */
  quantity?: Dec;
  /** The position's exit legs and the orders aimed at it are cancelled first (default true). */
  cancel_associated_orders: boolean;
} & ({ order_type: 'MARKET' } | { order_type: 'LIMIT'; limit_price: Dec });

/** New triggers for the exit legs the engine placed for a position: either or both. */
export interface SetExitLegs {
  stop_loss?: Dec;
  take_profit?: Dec;
}

/**
 * Why the engine refused a command (nothing changed). One list for every command; the gateway's
 * protocol module maps each code to the spec's ApiError code and status.
 */
export const DENIAL_CODES = [
  /** No order has this id. */
  'UNKNOWN_ORDER',
  /** The order is terminal (filled, cancelled, rejected, expired): it can no longer change. */
  'ORDER_NOT_MODIFIABLE',
  /** No open position has this id. */
  'POSITION_NOT_FOUND',
  /** The order's fields contradict each other (every conflict is listed in `issues`). */
  'ORDER_FIELDS_CONFLICT',
  /** A PERCENT trailing distance of 100 or more. */
  'TRAILING_DISTANCE_TOO_LARGE',
  /** Hedging: `position_id` is not an open position of the order's symbol on the other side. */
  'POSITION_TARGET_MISMATCH',
  /** Hedging: an order aimed at a position (`position_id`) carries a stop-loss or take-profit. */
  'BRACKET_ON_POSITION_TARGET',
  /** An entry that fills at once has a stop-loss or take-profit already through the market. */
  'BRACKET_THROUGH_MARKET',
  /** A modified quantity below what has already filled. */
  'QUANTITY_BELOW_FILLED',
  /** An exit leg resized beyond the position it protects. */
  'LEG_EXCEEDS_POSITION',
  /** A new price would make a post-only order trade at once. */
  'POST_ONLY_WOULD_TRADE',
  /** A close of more than the position holds. */
  'CLOSE_EXCEEDS_POSITION',
  /** The position has no exit leg of that kind placed by the engine. */
  'EXIT_LEG_NOT_FOUND',
  /** The new trigger of an exit leg is already through the market (it would fill at once). */
  'EXIT_LEG_THROUGH_MARKET',
] as const;
export type DenialCode = (typeof DENIAL_CODES)[number];

/** One contradiction between an order's fields. */
export interface FieldIssue {
  field: string;
  message: string;
}

export interface Denial {
  ok: false;
  code: DenialCode;
  /** For a person: what was refused and what to change. */
  message: string;
  /** The command's field at fault, when one is. */
  field?: string;
  /** That field's value as the command gave it (canonical text), or the id that named nothing. */
  provided?: string;
  /** ORDER_FIELDS_CONFLICT: every conflict found, in the order of the rules. */
  issues?: readonly FieldIssue[];
  /** Further facts, as canonical text (the limit broken, the market price, the leg). */
  facts?: Readonly<Record<string, string>>;
}

/** An accepted order command: the order as it stands now (it may already be filled, or REJECTED). */
export type SubmitOutcome = { ok: true; order: OrderRecord; rejected?: RejectReason } | Denial;

export type CancelOutcome = { ok: true; order: OrderRecord } | Denial;

/** Modified in place (the id is kept, so no `previousOrderId`). */
export type ModifyOutcome = { ok: true; order: OrderRecord; previousOrderId?: string } | Denial;

export interface ExitLegView {
  order_ids: string[];
  trigger_price: string;
}

export type ExitLegsOutcome =
  | { ok: true; position_id: string; stop_loss: ExitLegView | null; take_profit: ExitLegView | null }
  | Denial;

/** A denial (a module function: the engine's refusals are built in one shape). */
export function deny(
  code: DenialCode,
  message: string,
  detail: Omit<Denial, 'ok' | 'code' | 'message'> = {},
): Denial {
  return { ok: false, code, message, ...detail };
}
