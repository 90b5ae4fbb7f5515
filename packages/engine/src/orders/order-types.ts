/**
 * The trading gateway's order vocabulary (spec trading-gateway.md: Enums, OrderHandle, Order,
 * ModifyOrderResult, Capabilities, Trade, Bar), as the JSON the engine's views and events are written
 * in: snake_case keys, decimals as strings. OrderStatus and its state table live in `order-states.ts`;
 * the commands the engine takes, in `commands.ts`; request bodies are the gateway's (its protocol
 * module parses them into those commands).
 */
import type { MarketId, Timeframe } from '@hindsight/core';
import type { OrderStatus } from './order-states.ts';

export { TIMEFRAMES, type Timeframe } from '@hindsight/core';

export const ORDER_TYPES = ['MARKET', 'LIMIT', 'STOP', 'STOP_LIMIT', 'TRAILING_STOP'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const SIDES = ['BUY', 'SELL'] as const;
export type Side = (typeof SIDES)[number];

/** `GTC` is the default. */
export const TIME_IN_FORCES = ['GTC', 'DAY', 'IOC', 'FOK'] as const;
export type TimeInForce = (typeof TIME_IN_FORCES)[number];

export const REJECT_REASONS = [
  'INSUFFICIENT_MARGIN',
  'INSUFFICIENT_BALANCE',
  'INVALID_QUANTITY',
  'INVALID_PRICE',
  'SYMBOL_NOT_TRADEABLE',
  'MARKET_CLOSED',
  'REDUCE_ONLY_VIOLATED',
  'POST_ONLY_VIOLATED',
  'RATE_LIMITED',
  'UNKNOWN',
] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

export const MARGIN_MODES = ['CROSS', 'ISOLATED'] as const;
export type MarginMode = (typeof MARGIN_MODES)[number];

/** `ABSOLUTE`: a price offset; `PERCENT`: a percentage of the reference price. */
export const TRAILING_TYPES = ['ABSOLUTE', 'PERCENT'] as const;
export type TrailingType = (typeof TRAILING_TYPES)[number];

export const POSITION_SIDES = ['LONG', 'SHORT'] as const;
export type PositionSide = (typeof POSITION_SIDES)[number];

export const ASSET_CLASSES = ['STOCK', 'FOREX', 'CRYPTO', 'FUTURES'] as const;
export type AssetClass = (typeof ASSET_CLASSES)[number];

/** The catalog's market of an instrument as the gateway's AssetClass (`STOCKS` is `STOCK`). */
export function assetClassOf(market: MarketId): AssetClass {
  return market === 'STOCKS' ? 'STOCK' : market;
}

/** True when `value` is one of `values` (a type guard for the enum arrays above). */
export function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

/** Response of order creation and position close. */
export interface OrderHandle {
  id: string;
  status: OrderStatus;
  client_order_id: string | null;
}

/** An order as the gateway serves it; every nullable field is `null` when unset. */
export interface Order {
  id: string;
  symbol: string;
  side: Side;
  order_type: OrderType;
  quantity: string;
  filled_quantity: string;
  remaining_quantity: string;
  /** Null if unfilled. */
  average_fill_price: string | null;
  status: OrderStatus;
  time_in_force: TimeInForce;
  limit_price: string | null;
  stop_price: string | null;
  stop_loss: string | null;
  take_profit: string | null;
  client_order_id: string | null;
  /** Gateway-assigned tracing id. */
  correlation_id: string | null;
  /** Set when `status` is REJECTED. */
  reject_reason: RejectReason | null;
  trailing_distance: string | null;
  trailing_type: TrailingType | null;
  display_quantity: string | null;
  oco_group_id: string | null;
  /** Hedging accounts. */
  position_id: string | null;
  /** The entry order that a gateway-placed exit leg exits; null on entries and client orders. */
  parent_order_id: string | null;
  reduce_only: boolean | null;
  post_only: boolean | null;
  hidden: boolean | null;
  /** ISO-8601 UTC. */
  created_at: string;
  updated_at: string;
}

export interface ModifyOrderResult {
  /** The modified or replacement order. */
  order: Order;
  /** Set when the provider used cancel-replace; null (or absent) when modified in place. */
  previous_order_id?: string | null;
}

export interface Capabilities {
  supported_asset_classes: AssetClass[];
  supported_order_types: OrderType[];
  position_mode: string;
  features: string[];
  max_leverage: string;
  rate_limits: Record<string, unknown>;
}

/** The wire Trade (trading-gateway.md, Trade): one fill. */
export interface Trade {
  id: string;
  order_id: string;
  symbol: string;
  side: Side;
  quantity: string;
  price: string;
  commission: string;
  commission_currency: string;
  is_maker?: boolean;
  /** ISO-8601 UTC. */
  timestamp: string;
}

/** The wire Bar (trading-gateway.md, Bar). */
export interface Bar {
  symbol: string;
  provider: string;
  timeframe: Timeframe;
  /** Bar start, ISO-8601 UTC. */
  timestamp: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
}
