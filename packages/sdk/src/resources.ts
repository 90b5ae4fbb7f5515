/**
 * What a strategy reads: the protocol's resources (docs/protocol.md, Resources), money and
 * quantities as decimal strings, and the updates the handlers receive.
 */
import type { AccountView, Order, PositionView, Trade } from '@hindsight/engine';

export type { Order, Trade };
export type Position = PositionView;
export type Account = AccountView;

export type CandleField = 'open' | 'high' | 'low' | 'close' | 'volume';

/** A completed candle: prices are the mid of bid and ask, `timestamp` is the candle's start. */
export interface Candle {
  readonly symbol: string;
  readonly timeframe: string;
  readonly timestamp: string;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
  readonly volume: string;
  /** The field as a float, for indicators: exactly `Number(candle[field])`. */
  number(field: CandleField): number;
}

export interface OrderUpdate {
  /** `ORDER_CREATED`, `ORDER_FILLED`, `BRACKET_ORDER_CREATED`... (docs/protocol.md, The event stream). */
  event: string;
  order: Order;
  /** On an exit leg the gateway placed for a bracket: the entry. */
  parent_order_id?: string;
}

export interface PositionUpdate {
  /** `POSITION_OPENED`, `POSITION_MODIFIED`, `POSITION_CLOSED`. */
  event: string;
  position: Position;
}

export interface AccountUpdate {
  /** `BALANCE_UPDATED`, `MARGIN_WARNING`, `MARGIN_CALL`. */
  event: string;
  account: Account;
}

/** An `error` event: `LIQUIDATION`, `POSITION_UNPROTECTED`, `OCO_DOUBLE_EXIT`, `INVALID_MESSAGE`... */
export interface ErrorEvent {
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** A decimal the SDK sends: a decimal string, a bigint or a Decimal; never a float. */
export type DecimalInput = string | bigint | { toFixed(): string; toNumber(): number };

/** Options of `buy` and `sell`: the order request's fields (docs/protocol.md, OrderRequest). */
export interface OrderOptions {
  order_type?: 'MARKET' | 'LIMIT' | 'STOP' | 'STOP_LIMIT' | 'TRAILING_STOP';
  limit_price?: DecimalInput;
  stop_price?: DecimalInput;
  trailing_distance?: DecimalInput;
  trailing_type?: 'ABSOLUTE' | 'PERCENT';
  time_in_force?: 'GTC' | 'DAY' | 'IOC' | 'FOK';
  reduce_only?: boolean;
  post_only?: boolean;
  stop_loss?: DecimalInput;
  take_profit?: DecimalInput;
  oco_group_id?: string;
  position_id?: string;
  leverage?: DecimalInput;
  client_order_id?: string;
}

/** PATCH /v1/orders/{id}: the fields to change. */
export interface OrderChanges {
  quantity?: DecimalInput;
  limit_price?: DecimalInput;
  stop_price?: DecimalInput;
  stop_loss?: DecimalInput;
  take_profit?: DecimalInput;
  trailing_distance?: DecimalInput;
}

/** DELETE /v1/positions/{id}: the whole position at market unless said otherwise. */
export interface CloseOptions {
  quantity?: DecimalInput;
  order_type?: 'MARKET' | 'LIMIT';
  limit_price?: DecimalInput;
  cancel_associated_orders?: boolean;
}

/** PATCH /v1/positions/{id}: new trigger prices of a bracket's exit legs. */
export interface ExitMoves {
  stop_loss?: DecimalInput;
  take_profit?: DecimalInput;
}

export interface ExitLeg {
  order_ids: string[];
  trigger_price: string;
}

export interface ExitLegsMoved {
  position_id: string;
  stop_loss: ExitLeg | null;
  take_profit: ExitLeg | null;
}

export interface CancelAllResult {
  cancelled_count: number;
  failed_count: number;
  failed_order_ids: string[] | null;
}
