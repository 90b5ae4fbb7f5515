import { parseIsoTimestamp } from '@hindsight/core';
import { isTerminal, type Order, type SubmitOrder, type TIMEFRAMES } from '@hindsight/engine';
import { GatewayError } from '../errors.ts';
import type { GatewayContext } from '../http/context.ts';
import { refuseWhenShuttingDown } from '../http/guards.ts';
import {
  accepted,
  createdHandle,
  parseClosePositionRequest,
  parsedOrThrow,
  parseExitLegsRequest,
  parseModifyOrderRequest,
  parseOrderRequest,
  rejectedError,
} from '../protocol/index.ts';
import type { PlacedOrder } from '../provider/provider.ts';
import { callProvider } from './provider-calls.ts';

/**
 * The trading service: one function per REST operation (trading-gateway.md: Endpoints), called by
 * the HTTP routes (`routes/`) and by `request` frames over the strategy's socket
 * (`stream/socket-requests.ts`) alike. Inputs arrive parsed as far as the transport goes (path and
 * query by their schemas, the body as JSON); bodies are read here, once, through the protocol module.
 * Each function returns the answer's body or throws the GatewayError the client gets; the transports
 * only meter, validate, serialise and send.
 */

/** Filters of the order list and history (query parameters of GET /v1/orders). */
export interface OrderFilter {
  symbol?: string | undefined;
  status?: Order['status'] | Order['status'][] | undefined;
  side?: Order['side'] | undefined;
  client_order_id?: string | undefined;
  oco_group_id?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  limit?: number | undefined;
}

export interface TradeFilter {
  symbol?: string | undefined;
  order_id?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  limit?: number | undefined;
}

export interface BarRange {
  timeframe: string;
  start?: string | undefined;
  end?: string | undefined;
  limit?: number | undefined;
}

const SYMBOL = /^[A-Za-z0-9:._/-]{1,64}$/;
/** A close without a body: the whole position at market, its associated orders cancelled first. */
const FULL_CLOSE = parsedOrThrow(parseClosePositionRequest(undefined));
const timeOf = (iso: string | undefined) =>
  iso === undefined ? undefined : (parseIsoTimestamp(iso) as number);

// ---------------------------------------------------------------------------------------------- Orders

/**
 * POST /v1/orders: 201 with the new order's handle, or 200 with the existing one for a repeated
 * client_order_id (decision 19).
 */
export function placeOrder(
  ctx: GatewayContext,
  body: unknown,
): Promise<{ status: 200 | 201; handle: PlacedOrder['handle'] }> {
  // Promises chained by hand rather than awaited: a backtest walks this path for every order, and a
  // simulation answers at once (an in-process strategy waits for nothing else).
  let placing: Promise<PlacedOrder>;
  try {
    refuseWhenShuttingDown(ctx);
    const order = parsedOrThrow(
      parseOrderRequest(body, { maxLeverage: ctx.provider.capabilities().max_leverage }),
    );
    const idempotent = ctx.idempotency.check(order);
    if (idempotent.kind === 'repeat') return repeatedOrder(ctx, idempotent.placed);
    placing = submit(ctx, order, body);
    if (idempotent.kind === 'new') ctx.idempotency.record(idempotent.key, order, placing);
  } catch (error) {
    return Promise.reject(error);
  }
  return placing.then(created);
}

function created(placed: PlacedOrder): { status: 201; handle: PlacedOrder['handle'] } {
  if (placed.rejected) throw rejectedError(placed.rejected, placed.handle.id);
  return { status: 201, handle: createdHandle(placed.handle) };
}

/** A repeated client_order_id with the same request: 200 with the order it placed, as it is now. */
async function repeatedOrder(ctx: GatewayContext, placing: Promise<PlacedOrder>) {
  const previous = await placing;
  const current = await callProvider(ctx, () => ctx.provider.order(previous.handle.id));
  const handle = current
    ? { id: current.id, status: current.status, client_order_id: current.client_order_id }
    : previous.handle;
  return { status: 200 as const, handle };
}

/** Places a parsed submission: refused when the provider lacks its order type, or its bracket breaker is open. */
function submit(ctx: GatewayContext, order: SubmitOrder, body: unknown): Promise<PlacedOrder> {
  const type = order.order_type;
  const supported = ctx.provider.capabilities().supported_order_types;
  if (!supported.includes(type)) {
    throw new GatewayError(
      'UNSUPPORTED_OPERATION',
      `The ${ctx.provider.name} provider does not support ${type} orders; supported: ${supported.join(', ')}.`,
      { order_type: type },
    );
  }
  if (order.stop_loss !== undefined || order.take_profit !== undefined) ctx.breakers.check('exit_order');
  return callProvider(ctx, () => ctx.provider.submitOrder(order)).then((outcome) => {
    const placed = accepted(outcome, body);
    ctx.metrics.orderSubmitted();
    return placed;
  });
}

/** GET /v1/orders (open orders) and GET /v1/orders/history (terminal ones), oldest first. */
export async function listOrders(
  ctx: GatewayContext,
  filter: OrderFilter,
  history: boolean,
): Promise<Order[]> {
  const orders = await callProvider(ctx, () => ctx.provider.orders());
  const statuses = filter.status === undefined ? undefined : [filter.status].flat();
  const since = timeOf(filter.since);
  const until = timeOf(filter.until);
  const out: Order[] = [];
  for (const order of orders) {
    // Decision 19: a client_order_id lookup finds the order whatever its state.
    if (filter.client_order_id === undefined && isTerminal(order.status) !== history) continue;
    if (filter.client_order_id !== undefined && order.client_order_id !== filter.client_order_id) continue;
    if (statuses && !statuses.includes(order.status)) continue;
    if (filter.symbol !== undefined && order.symbol !== filter.symbol) continue;
    if (filter.side !== undefined && order.side !== filter.side) continue;
    if (filter.oco_group_id !== undefined && order.oco_group_id !== filter.oco_group_id) continue;
    const created = Date.parse(order.created_at);
    if (since !== undefined && created < since) continue;
    if (until !== undefined && created >= until) continue;
    out.push(order);
    if (filter.limit !== undefined && out.length >= filter.limit) break;
  }
  return out;
}

/** GET /v1/orders/{order_id}. */
export async function getOrder(ctx: GatewayContext, orderId: string): Promise<Order> {
  const order = await callProvider(ctx, () => ctx.provider.order(orderId));
  if (!order)
    throw new GatewayError('ORDER_NOT_FOUND', `There is no order ${orderId}.`, { order_id: orderId });
  return order;
}

/** PATCH /v1/orders/{order_id}: the body is checked first (400), then the order (404, 409). */
export async function modifyOrder(ctx: GatewayContext, orderId: string, body: unknown) {
  const changes = parsedOrThrow(parseModifyOrderRequest(body));
  return accepted(await callProvider(ctx, () => ctx.provider.modifyOrder(orderId, changes)), body);
}

/** DELETE /v1/orders/{order_id}. */
export async function cancelOrder(ctx: GatewayContext, orderId: string) {
  const order = accepted(await callProvider(ctx, () => ctx.provider.cancelOrder(orderId)));
  return { success: true, order };
}

/** DELETE /v1/orders: every open order (of one symbol), each failure counted and named. */
export async function cancelAllOrders(ctx: GatewayContext, symbol: string | undefined) {
  const orders = await callProvider(ctx, () => ctx.provider.orders());
  const open = orders.filter((o) => !isTerminal(o.status) && (symbol === undefined || o.symbol === symbol));
  let cancelled = 0;
  const failed: string[] = [];
  for (const order of open) {
    try {
      // An OCO sibling or bracket leg may have been cancelled by an earlier cancel of this loop.
      const current = await callProvider(ctx, () => ctx.provider.order(order.id));
      if (current && isTerminal(current.status)) continue;
      accepted(await callProvider(ctx, () => ctx.provider.cancelOrder(order.id)));
      cancelled++;
    } catch {
      failed.push(order.id);
    }
  }
  return {
    cancelled_count: cancelled,
    failed_count: failed.length,
    failed_order_ids: failed.length > 0 ? failed : null,
  };
}

// ------------------------------------------------------------------------------------------- Positions

/** GET /v1/positions. */
export async function listPositions(ctx: GatewayContext, symbol: string | undefined) {
  return [...(await callProvider(ctx, () => ctx.provider.positions(symbol)))];
}

/** GET /v1/positions/{position_id}. */
export async function getPosition(ctx: GatewayContext, positionId: string) {
  const position = await callProvider(ctx, () => ctx.provider.position(positionId));
  if (!position) {
    throw new GatewayError('POSITION_NOT_FOUND', `There is no open position ${positionId}.`, {
      position_id: positionId,
    });
  }
  return position;
}

/**
 * PATCH /v1/positions/{position_id}: moves the exit legs under the `exit_order` breaker; a leg
 * cancelled and not re-established is also said on the stream (POSITION_UNPROTECTED).
 */
export async function moveExitLegs(ctx: GatewayContext, positionId: string, body: unknown) {
  const legs = parsedOrThrow(parseExitLegsRequest(body));
  ctx.breakers.check('exit_order');
  try {
    const moved = accepted(await callProvider(ctx, () => ctx.provider.moveExitLegs(positionId, legs)), body);
    ctx.breakers.success('exit_order');
    return moved;
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'PROVIDER_ERROR') {
      ctx.breakers.failure('exit_order');
      if (error.details?.unprotected === true) {
        ctx.stream.publish([
          {
            type: 'error',
            code: 'POSITION_UNPROTECTED',
            message: error.message,
            details: { ...error.details, position_id: positionId },
            timestamp: new Date(ctx.provider.now).toISOString(),
          },
        ]);
      }
    }
    throw error;
  }
}

/** DELETE /v1/positions/{position_id}: the close order's handle. */
export async function closePosition(ctx: GatewayContext, positionId: string, body: unknown) {
  refuseWhenShuttingDown(ctx);
  const close = parsedOrThrow(parseClosePositionRequest(body));
  const placed = accepted(await callProvider(ctx, () => ctx.provider.closePosition(positionId, close)), body);
  ctx.metrics.orderSubmitted();
  if (placed.rejected) throw rejectedError(placed.rejected, placed.handle.id);
  return placed.handle;
}

/** DELETE /v1/positions: every open position (of one symbol) closed at market, in position order. */
export async function closeAllPositions(ctx: GatewayContext, symbol: string | undefined) {
  refuseWhenShuttingDown(ctx);
  const positions = await callProvider(ctx, () => ctx.provider.positions(symbol));
  const handles = [];
  for (const position of positions) {
    const placed = accepted(
      await callProvider(ctx, () => ctx.provider.closePosition(position.id, FULL_CLOSE)),
    );
    ctx.metrics.orderSubmitted();
    handles.push(placed.handle);
  }
  return handles;
}

// ------------------------------------------------------------------------- Trades, account, market data

/** GET /v1/trades: fills, oldest first. */
export async function listTrades(ctx: GatewayContext, filter: TradeFilter) {
  const since = timeOf(filter.since);
  const until = timeOf(filter.until);
  const out = [];
  for (const trade of await callProvider(ctx, () => ctx.provider.trades())) {
    if (filter.symbol !== undefined && trade.symbol !== filter.symbol) continue;
    if (filter.order_id !== undefined && trade.order_id !== filter.order_id) continue;
    const t = Date.parse(trade.timestamp);
    if (since !== undefined && t < since) continue;
    if (until !== undefined && t >= until) continue;
    out.push(trade);
    if (filter.limit !== undefined && out.length >= filter.limit) break;
  }
  return out;
}

/** GET /v1/account. */
export const getAccount = (ctx: GatewayContext) => callProvider(ctx, () => ctx.provider.account());

/** GET /v1/quotes/{symbol}. */
export async function getQuote(ctx: GatewayContext, symbol: string) {
  checkSymbol(ctx, symbol);
  return callProvider(ctx, () => ctx.provider.quote(symbol));
}

/** GET /v1/bars/{symbol}. */
export async function getBars(ctx: GatewayContext, symbol: string, range: BarRange) {
  checkSymbol(ctx, symbol);
  const bars = await callProvider(ctx, () =>
    ctx.provider.bars(symbol, {
      timeframe: range.timeframe as (typeof TIMEFRAMES)[number],
      ...(range.start !== undefined && { start: timeOf(range.start) as number }),
      ...(range.end !== undefined && { end: timeOf(range.end) as number }),
      ...(range.limit !== undefined && { limit: range.limit }),
    }),
  );
  return [...bars];
}

function checkSymbol(ctx: GatewayContext, symbol: string): void {
  if (!SYMBOL.test(symbol)) {
    throw new GatewayError(
      'INVALID_VALUE',
      'symbol must be 1 to 64 letters, digits or : . _ / - (for example C:BTCUSD).',
      { field: 'symbol', provided: symbol },
    );
  }
  if (!ctx.provider.knowsSymbol(symbol)) {
    throw new GatewayError(
      'SYMBOL_NOT_FOUND',
      `${symbol} is not supported by the ${ctx.provider.name} provider.`,
      {
        symbol,
      },
    );
  }
}

// ---------------------------------------------------------------------------------------------- System

/** GET /v1/capabilities. */
export const getCapabilities = (ctx: GatewayContext) => ctx.provider.capabilities();

/** GET /v1/status. */
export const getConnectionStatus = (ctx: GatewayContext) => ctx.provider.connection();

/** GET /v1/circuit-breakers. */
export const getCircuitBreakers = (ctx: GatewayContext) => ctx.breakers.status();

/** POST /v1/circuit-breakers/reset: takes no body (`hasBody` says whether the call carried one). */
export function resetCircuitBreakers(ctx: GatewayContext, hasBody: boolean) {
  if (hasBody) {
    throw new GatewayError('INVALID_REQUEST', 'This endpoint takes no body; send the POST without one.');
  }
  return ctx.breakers.reset();
}
