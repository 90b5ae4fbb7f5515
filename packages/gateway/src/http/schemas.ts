import {
  ASSET_CLASSES,
  MARGIN_MODES,
  ORDER_STATUSES,
  ORDER_TYPES,
  POSITION_SIDES,
  REJECT_REASONS,
  SIDES,
  TIME_IN_FORCES,
  TIMEFRAMES,
  TRAILING_TYPES,
} from '@hindsight/engine';
import { z } from 'zod';
import { GATEWAY_ERROR_CODES, type GatewayErrorCode, gatewayErrors } from '../errors.ts';

/**
 * The gateway's resources as zod schemas (trading-gateway.md: Resources and their fields), written
 * once: they serialise responses and document them in openapi.json. Request bodies are strict
 * objects (decision 38: `additionalProperties: false` in the document): the protocol module
 * (`protocol/`) takes each body's field names from its schema here, refuses any other field, and
 * parses the values into the engine's commands with the spec's codes (INVALID_REQUEST /
 * INVALID_VALUE / VALIDATION_ERROR with details).
 */
const decimal = (description?: string) =>
  z
    .string()
    .regex(/^-?[0-9]+(\.[0-9]+)?$/)
    .meta({ description: description ?? 'Decimal string (never a JSON number).', examples: ['1.5'] });
const datetime = (description?: string) =>
  z.string().meta({ description: description ?? 'ISO-8601 UTC.', format: 'date-time' });

export const sideSchema = z.enum(SIDES).meta({ id: 'Side' });
export const orderTypeSchema = z.enum(ORDER_TYPES).meta({ id: 'OrderType' });
export const orderStatusSchema = z.enum(ORDER_STATUSES).meta({ id: 'OrderStatus' });
export const timeInForceSchema = z.enum(TIME_IN_FORCES).meta({ id: 'TimeInForce' });
export const rejectReasonSchema = z.enum(REJECT_REASONS).meta({ id: 'RejectReason' });
export const marginModeSchema = z.enum(MARGIN_MODES).meta({ id: 'MarginMode' });
export const trailingTypeSchema = z.enum(TRAILING_TYPES).meta({ id: 'TrailingType' });
export const positionSideSchema = z.enum(POSITION_SIDES).meta({ id: 'PositionSide' });
export const assetClassSchema = z.enum(ASSET_CLASSES).meta({ id: 'AssetClass' });
export const timeframeSchema = z.enum(TIMEFRAMES).meta({ id: 'Timeframe' });

export const apiErrorSchema = z
  .object({
    code: z.enum(GATEWAY_ERROR_CODES).meta({ description: 'Branch on this, never on message.' }),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional().meta({ description: 'Per-code context.' }),
  })
  .meta({ id: 'ApiError' });

export const orderRequestSchema = z
  .strictObject({
    symbol: z.string().meta({ description: 'Provider-native, verbatim.' }),
    side: sideSchema,
    quantity: decimal('Base units, > 0.'),
    order_type: orderTypeSchema,
    limit_price: decimal('Required for LIMIT and STOP_LIMIT.').optional(),
    stop_price: decimal('Required for STOP and STOP_LIMIT.').optional(),
    time_in_force: timeInForceSchema.optional().meta({ description: 'Default GTC.' }),
    client_order_id: z
      .string()
      .optional()
      .meta({ description: 'Idempotency key: a repeat with the same body returns the existing order.' }),
    stop_loss: decimal('Bracket stop-loss price.').optional(),
    take_profit: decimal('Bracket take-profit price.').optional(),
    reduce_only: z.boolean().optional(),
    post_only: z.boolean().optional(),
    oco_group_id: z.string().optional(),
    hidden: z.boolean().optional(),
    display_quantity: decimal().optional(),
    leverage: decimal().optional(),
    margin_mode: marginModeSchema.optional(),
    position_id: z.string().optional().meta({ description: 'Target position on hedging accounts.' }),
    trailing_distance: decimal('For TRAILING_STOP.').optional(),
    trailing_type: trailingTypeSchema.optional(),
  })
  .meta({ id: 'OrderRequest' });

/** Body of `POST /v1/orders` (conditional and optional fields may be omitted). */
export type OrderRequest = z.input<typeof orderRequestSchema>;

export const orderHandleSchema = z
  .object({ id: z.string(), status: orderStatusSchema, client_order_id: z.string().nullable() })
  .meta({ id: 'OrderHandle' });

const nullableDecimal = decimal().nullable();
export const orderSchema = z
  .object({
    id: z.string(),
    symbol: z.string(),
    side: sideSchema,
    order_type: orderTypeSchema,
    quantity: decimal(),
    filled_quantity: decimal(),
    remaining_quantity: decimal(),
    average_fill_price: nullableDecimal,
    status: orderStatusSchema,
    time_in_force: timeInForceSchema,
    limit_price: nullableDecimal,
    stop_price: nullableDecimal,
    stop_loss: nullableDecimal,
    take_profit: nullableDecimal,
    client_order_id: z.string().nullable(),
    correlation_id: z.string().nullable(),
    reject_reason: rejectReasonSchema.nullable(),
    trailing_distance: nullableDecimal,
    trailing_type: trailingTypeSchema.nullable(),
    display_quantity: nullableDecimal,
    oco_group_id: z.string().nullable(),
    position_id: z.string().nullable(),
    parent_order_id: z.string().nullable(),
    reduce_only: z.boolean().nullable(),
    post_only: z.boolean().nullable(),
    hidden: z.boolean().nullable(),
    created_at: datetime(),
    updated_at: datetime(),
  })
  .meta({ id: 'Order' });

export const modifyOrderRequestSchema = z
  .strictObject({
    quantity: decimal('Must be >= filled_quantity.').nullable().optional(),
    limit_price: nullableDecimal.optional(),
    stop_price: nullableDecimal.optional(),
    stop_loss: nullableDecimal.optional(),
    take_profit: nullableDecimal.optional(),
    trailing_distance: nullableDecimal.optional(),
  })
  .meta({ id: 'ModifyOrderRequest', description: 'Only non-null fields update.' });

export const modifyOrderResultSchema = z
  .object({
    order: orderSchema,
    previous_order_id: z
      .string()
      .nullable()
      .optional()
      .meta({ description: 'Set when the provider used cancel-replace; absent when modified in place.' }),
  })
  .meta({ id: 'ModifyOrderResult' });

export const cancelOrderResultSchema = z
  .object({ success: z.boolean(), order: orderSchema })
  .meta({ id: 'CancelOrderResult' });

export const cancelAllResultSchema = z
  .object({
    cancelled_count: z.number().int(),
    failed_count: z.number().int(),
    failed_order_ids: z.array(z.string()).nullable().meta({ description: 'Null when nothing failed.' }),
  })
  .meta({ id: 'CancelAllOrdersResult' });

export const positionSchema = z
  .object({
    id: z.string(),
    symbol: z.string(),
    side: positionSideSchema,
    quantity: decimal(),
    average_entry_price: decimal(),
    current_price: decimal(),
    unrealized_pnl: decimal('Quote currency.'),
    realized_pnl: decimal('From partial closes.'),
    opened_at: datetime(),
    updated_at: datetime(),
    leverage: decimal().optional(),
    liquidation_price: decimal().optional(),
    margin_mode: marginModeSchema.optional(),
  })
  .meta({ id: 'Position' });

export const exitLegsRequestSchema = z
  .strictObject({ stop_loss: decimal().optional(), take_profit: decimal().optional() })
  .meta({ id: 'MoveExitLegsRequest', description: 'At least one of stop_loss and take_profit.' });

const exitLegSchema = z
  .object({ order_ids: z.array(z.string()), trigger_price: decimal() })
  .meta({ id: 'ExitLeg' });

export const exitLegsResultSchema = z
  .object({
    position_id: z.string(),
    stop_loss: exitLegSchema.nullable(),
    take_profit: exitLegSchema.nullable(),
  })
  .meta({ id: 'MoveExitLegsResult' });

export const closePositionRequestSchema = z
  .strictObject({
    quantity: decimal('Omit for a full close.').optional(),
    order_type: z.enum(['MARKET', 'LIMIT']).optional().meta({ description: 'Default MARKET.' }),
    limit_price: decimal('Required for LIMIT.').optional(),
    cancel_associated_orders: z.boolean().optional().meta({ description: 'Default true.' }),
  })
  .meta({ id: 'ClosePositionRequest' });

export const tradeSchema = z
  .object({
    id: z.string(),
    order_id: z.string(),
    symbol: z.string(),
    side: sideSchema,
    quantity: decimal(),
    price: decimal(),
    commission: decimal(),
    commission_currency: z.string(),
    is_maker: z.boolean().optional(),
    timestamp: datetime(),
  })
  .meta({ id: 'Trade' });

export const accountSchema = z
  .object({
    balance: decimal(),
    equity: decimal(),
    margin_used: decimal(),
    margin_available: decimal(),
    unrealized_pnl: decimal(),
    currency: z.string(),
  })
  .meta({ id: 'Account' });

export const quoteSchema = z
  .object({
    symbol: z.string(),
    provider: z.string(),
    bid: decimal(),
    bid_size: decimal().optional(),
    ask: decimal(),
    ask_size: decimal().optional(),
    last: decimal(),
    volume: decimal().optional(),
    timestamp: datetime(),
  })
  .meta({ id: 'Quote' });

export const barSchema = z
  .object({
    symbol: z.string(),
    provider: z.string(),
    timeframe: timeframeSchema,
    timestamp: datetime('Bar start.'),
    open: decimal(),
    high: decimal(),
    low: decimal(),
    close: decimal(),
    volume: decimal(),
  })
  .meta({ id: 'Bar' });

export const capabilitiesSchema = z
  .object({
    supported_asset_classes: z.array(assetClassSchema),
    supported_order_types: z.array(orderTypeSchema),
    position_mode: z.string().meta({ description: 'NETTING or HEDGING.' }),
    features: z.array(z.string()),
    max_leverage: decimal(),
    rate_limits: z
      .record(z.string(), z.unknown())
      .meta({ description: 'requests_per_minute: the ingress limit.' }),
  })
  .meta({ id: 'Capabilities' });

export const connectionStatusSchema = z
  .object({ connected: z.boolean(), latency_ms: z.number().int(), last_heartbeat: datetime() })
  .meta({ id: 'ConnectionStatus' });

const breakerSchema = z
  .object({ state: z.enum(['open', 'closed']), failure_count: z.number().int().min(0) })
  .meta({ id: 'CircuitBreakerSnapshot' });

export const breakersSchema = z
  .object({ adapter: breakerSchema, exit_order: breakerSchema })
  .meta({ id: 'CircuitBreakerStatusResponse' });

export const liveSchema = z.object({ status: z.literal('ok') }).meta({ id: 'LiveStatus' });
export const readySchema = z
  .object({
    ready: z.boolean(),
    providers: z.array(z.string()),
    provider_count: z.number().int(),
    message: z.string().optional().meta({ description: 'Why the gateway is not ready (503 only).' }),
  })
  .meta({ id: 'ReadyStatus' });
export const healthSchema = z
  .object({
    status: z.enum(['connected', 'degraded']),
    version: z.string(),
    git_sha: z.string(),
    providers: z.array(
      z.object({
        platform: z.string(),
        connected: z.boolean(),
        stale_instruments: z.array(z.string()).optional().meta({ description: 'Omitted when empty.' }),
      }),
    ),
  })
  .meta({ id: 'DetailedHealthStatus' });

/** Error responses of a route, each documented with the codes it may carry. */
export function errorResponses(...codes: GatewayErrorCode[]): Record<number, z.ZodType> {
  const out: Record<number, z.ZodType> = {};
  for (const code of codes) out[gatewayErrors[code].status] = apiErrorSchema;
  return out;
}

/** The errors every authenticated /v1 route can answer. */
export const COMMON_ERRORS: GatewayErrorCode[] = [
  'INVALID_REQUEST',
  'UNAUTHORIZED',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
];
/** ... and those of routes that call the provider. */
export const PROVIDER_ERRORS: GatewayErrorCode[] = ['PROVIDER_ERROR', 'PROVIDER_UNAVAILABLE'];

export const security: { [scheme: string]: string[] }[] = [{ ApiKeyAuth: [] }, { BearerAuth: [] }];
