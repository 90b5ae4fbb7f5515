import { parseIsoTimestamp } from '@hindsight/core';
import { isTerminal, type Order, type SubmitOrder, TERMINAL_STATUSES } from '@hindsight/engine';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GatewayError } from '../errors.ts';
import type { GatewayContext } from '../http/context.ts';
import { refuseWhenShuttingDown } from '../http/guards.ts';
import { callProvider } from '../http/provider-calls.ts';
import {
  COMMON_ERRORS,
  cancelAllResultSchema,
  cancelOrderResultSchema,
  errorResponses,
  modifyOrderRequestSchema,
  modifyOrderResultSchema,
  orderHandleSchema,
  orderRequestSchema,
  orderSchema,
  orderStatusSchema,
  PROVIDER_ERRORS,
  security,
  sideSchema,
} from '../http/schemas.ts';
import {
  accepted,
  createdHandle,
  parsedOrThrow,
  parseModifyOrderRequest,
  parseOrderRequest,
  rejectedError,
} from '../protocol/index.ts';
import type { PlacedOrder } from '../provider/provider.ts';

/** Orders (trading-gateway.md: Endpoints, Orders). */
const tags = ['Orders'];
const MAX_LIST_LIMIT = 10_000;

const timeQuery = (what: string) =>
  z
    .string()
    .refine((v) => parseIsoTimestamp(v) !== undefined, {
      error: 'must be an ISO-8601 UTC timestamp such as 2024-01-01T00:00:00Z',
    })
    .optional()
    .meta({ description: what, format: 'date-time' });

export const listQuery = z.strictObject({
  symbol: z.string().optional(),
  status: z
    .union([orderStatusSchema, z.array(orderStatusSchema)])
    .optional()
    .meta({ description: 'Repeat to match several statuses (status=OPEN&status=FILLED).' }),
  side: sideSchema.optional(),
  client_order_id: z.string().optional(),
  oco_group_id: z.string().optional(),
  since: timeQuery('Created at or after (inclusive).'),
  until: timeQuery('Created before (exclusive).'),
  limit: z.coerce
    .number({ error: 'must be an integer from 1 to 10000' })
    .int({ error: 'must be an integer from 1 to 10000' })
    .min(1, { error: 'must be an integer from 1 to 10000' })
    .max(MAX_LIST_LIMIT, { error: 'must be an integer from 1 to 10000' })
    .optional()
    .meta({ description: 'At most this many orders, oldest first.' }),
});
type ListQuery = z.output<typeof listQuery>;

const orderIdParams = z.strictObject({ order_id: z.string().min(1).max(128) });

/** Filters of the list and history endpoints; orders stay in creation order. */
function filterOrders(orders: readonly Order[], query: ListQuery, history: boolean): Order[] {
  const statuses = query.status === undefined ? undefined : [query.status].flat();
  const since = query.since === undefined ? undefined : (parseIsoTimestamp(query.since) as number);
  const until = query.until === undefined ? undefined : (parseIsoTimestamp(query.until) as number);
  const out: Order[] = [];
  for (const order of orders) {
    // Decision 19: a client_order_id lookup finds the order whatever its state.
    if (query.client_order_id === undefined && isTerminal(order.status) !== history) continue;
    if (query.client_order_id !== undefined && order.client_order_id !== query.client_order_id) continue;
    if (statuses && !statuses.includes(order.status)) continue;
    if (query.symbol !== undefined && order.symbol !== query.symbol) continue;
    if (query.side !== undefined && order.side !== query.side) continue;
    if (query.oco_group_id !== undefined && order.oco_group_id !== query.oco_group_id) continue;
    const created = Date.parse(order.created_at);
    if (since !== undefined && created < since) continue;
    if (until !== undefined && created >= until) continue;
    out.push(order);
    if (query.limit !== undefined && out.length >= query.limit) break;
  }
  return out;
}

export async function orderRoutes(app: FastifyInstance, { ctx }: { ctx: GatewayContext }) {
  const api = app.withTypeProvider<ZodTypeProvider>();

  /** Places a parsed submission: refused when the provider lacks its order type, or its bracket breaker is open. */
  const placeOrder = async (order: SubmitOrder, body: unknown): Promise<PlacedOrder> => {
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
    const placed = accepted(await callProvider(ctx, () => ctx.provider.submitOrder(order)), body);
    ctx.metrics.orderSubmitted();
    return placed;
  };

  api.post(
    '/v1/orders',
    {
      schema: {
        tags,
        operationId: 'submitOrder',
        summary: 'Submit an order',
        description:
          '201 with the handle of the new order (status PENDING, as the spec gives the create response; the order events tell what became of it). The body is strict: a field OrderRequest does not list is a 400 INVALID_REQUEST naming it (decision 38). A stop_loss or take_profit already through the market on an order that fills at once is a 400 VALIDATION_ERROR. A repeated client_order_id with the same body answers 200 with the existing order (decision 19); with another body, 409. A provider rejection is 422 ORDER_REJECTED with details.reject_code, and the order is kept as REJECTED.',
        security,
        body: orderRequestSchema,
        response: {
          200: orderHandleSchema,
          201: orderHandleSchema,
          ...errorResponses(
            ...COMMON_ERRORS,
            'INVALID_VALUE',
            'ORDER_NOT_MODIFIABLE',
            'ORDER_REJECTED',
            'UNSUPPORTED_OPERATION',
            'SHUTTING_DOWN',
            ...PROVIDER_ERRORS,
          ),
        },
      },
    },
    async (request, reply) => {
      refuseWhenShuttingDown(ctx);
      // The body is read here, once: parsed into the engine's command, which everything after uses.
      const body = request.body as unknown;
      const order = parsedOrThrow(
        parseOrderRequest(body, { maxLeverage: ctx.provider.capabilities().max_leverage }),
      );
      const idempotent = ctx.idempotency.check(order);
      if (idempotent.kind === 'repeat') {
        const previous = await idempotent.placed;
        const current = await callProvider(ctx, () => ctx.provider.order(previous.handle.id));
        return reply
          .code(200)
          .send(
            current
              ? { id: current.id, status: current.status, client_order_id: current.client_order_id }
              : previous.handle,
          );
      }
      const placing = placeOrder(order, body);
      if (idempotent.kind === 'new') ctx.idempotency.record(idempotent.key, order, placing);
      const placed = await placing;
      if (placed.rejected) throw rejectedError(placed.rejected, placed.handle.id);
      return reply.code(201).send(createdHandle(placed.handle));
    },
  );

  const listSchema = (history: boolean) => ({
    tags,
    operationId: history ? 'listOrderHistory' : 'listOpenOrders',
    summary: history ? 'Orders that are filled, cancelled, rejected or expired' : 'Open orders',
    description: `${history ? 'Terminal orders' : 'Open (non-terminal) orders'}, oldest first. With client_order_id, the matching order whatever its state (decision 19).`,
    security,
    querystring: listQuery,
    response: {
      200: z.array(orderSchema),
      ...errorResponses(...COMMON_ERRORS, 'INVALID_VALUE', ...PROVIDER_ERRORS),
    },
  });

  api.get('/v1/orders', { schema: listSchema(false) }, async (request) =>
    filterOrders(await callProvider(ctx, () => ctx.provider.orders()), request.query, false),
  );
  api.get('/v1/orders/history', { schema: listSchema(true) }, async (request) =>
    filterOrders(await callProvider(ctx, () => ctx.provider.orders()), request.query, true),
  );

  const findOrder = async (orderId: string): Promise<Order> => {
    const order = await callProvider(ctx, () => ctx.provider.order(orderId));
    if (!order)
      throw new GatewayError('ORDER_NOT_FOUND', `There is no order ${orderId}.`, { order_id: orderId });
    return order;
  };

  api.get(
    '/v1/orders/:order_id',
    {
      schema: {
        tags,
        operationId: 'getOrder',
        summary: 'One order',
        security,
        params: orderIdParams,
        response: {
          200: orderSchema,
          ...errorResponses(...COMMON_ERRORS, 'ORDER_NOT_FOUND', ...PROVIDER_ERRORS),
        },
      },
    },
    async (request) => findOrder(request.params.order_id),
  );

  api.patch(
    '/v1/orders/:order_id',
    {
      schema: {
        tags,
        operationId: 'modifyOrder',
        summary: 'Modify an open order',
        description:
          'Only non-null fields update, at least one; quantity must be >= filled_quantity. The body is strict (decision 38) and checked first (400), then the order (404 unknown, 409 ORDER_NOT_MODIFIABLE when terminal). The simulation modifies in place (the id is kept).',
        security,
        params: orderIdParams,
        body: modifyOrderRequestSchema,
        response: {
          200: modifyOrderResultSchema,
          ...errorResponses(
            ...COMMON_ERRORS,
            'INVALID_VALUE',
            'ORDER_NOT_FOUND',
            'ORDER_NOT_MODIFIABLE',
            'UNSUPPORTED_OPERATION',
            ...PROVIDER_ERRORS,
          ),
        },
      },
    },
    async (request) => {
      const orderId = request.params.order_id;
      const body = request.body as unknown;
      const changes = parsedOrThrow(parseModifyOrderRequest(body));
      return accepted(await callProvider(ctx, () => ctx.provider.modifyOrder(orderId, changes)), body);
    },
  );

  api.delete(
    '/v1/orders/:order_id',
    {
      schema: {
        tags,
        operationId: 'cancelOrder',
        summary: 'Cancel an order',
        description:
          '409 ORDER_NOT_MODIFIABLE when the order is already filled, cancelled or otherwise terminal.',
        security,
        params: orderIdParams,
        response: {
          200: cancelOrderResultSchema,
          ...errorResponses(...COMMON_ERRORS, 'ORDER_NOT_FOUND', 'ORDER_NOT_MODIFIABLE', ...PROVIDER_ERRORS),
        },
      },
    },
    async (request) => {
      const order = accepted(
        await callProvider(ctx, () => ctx.provider.cancelOrder(request.params.order_id)),
      );
      return { success: true, order };
    },
  );

  api.delete(
    '/v1/orders',
    {
      schema: {
        tags,
        operationId: 'cancelAllOrders',
        summary: 'Cancel every open order (of one symbol)',
        security,
        querystring: z.strictObject({
          symbol: z.string().optional().meta({ description: 'Omit to cancel every open order.' }),
        }),
        response: { 200: cancelAllResultSchema, ...errorResponses(...COMMON_ERRORS, ...PROVIDER_ERRORS) },
      },
    },
    async (request) => {
      const symbol = request.query.symbol;
      const orders = await callProvider(ctx, () => ctx.provider.orders());
      const open = orders.filter(
        (o) => !TERMINAL_STATUSES.includes(o.status) && (symbol === undefined || o.symbol === symbol),
      );
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
    },
  );
}
