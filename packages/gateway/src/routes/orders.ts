import { parseIsoTimestamp } from '@hindsight/core';
import { z } from 'zod';
import { type Operation, ok, operation } from '../http/operations.ts';
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
  cancelAllOrders,
  cancelOrder,
  getOrder,
  listOrders,
  modifyOrder,
  placeOrder,
} from '../trading/trading-service.ts';

/** Orders (trading-gateway.md: Endpoints, Orders): schemas and the trading service's operations. */
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

const listQuery = z.strictObject({
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

const orderIdParams = z.strictObject({ order_id: z.string().min(1).max(128) });

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

/** The order operations, for both transports (`http/operations.ts`). */
export const orderOperations: Operation[] = [
  operation({
    method: 'POST',
    url: '/v1/orders',
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
    run: async (ctx, { body }) => {
      const placed = await placeOrder(ctx, body);
      return { status: placed.status, body: placed.handle };
    },
  }),
  operation({
    method: 'GET',
    url: '/v1/orders',
    schema: listSchema(false),
    run: async (ctx, { query }) => ok(await listOrders(ctx, query, false)),
  }),
  operation({
    method: 'GET',
    url: '/v1/orders/history',
    schema: listSchema(true),
    run: async (ctx, { query }) => ok(await listOrders(ctx, query, true)),
  }),
  operation({
    method: 'GET',
    url: '/v1/orders/:order_id',
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
    run: async (ctx, { params }) => ok(await getOrder(ctx, params.order_id)),
  }),
  operation({
    method: 'PATCH',
    url: '/v1/orders/:order_id',
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
    run: async (ctx, { params, body }) => ok(await modifyOrder(ctx, params.order_id, body)),
  }),
  operation({
    method: 'DELETE',
    url: '/v1/orders/:order_id',
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
    run: async (ctx, { params }) => ok(await cancelOrder(ctx, params.order_id)),
  }),
  operation({
    method: 'DELETE',
    url: '/v1/orders',
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
    run: async (ctx, { query }) => ok(await cancelAllOrders(ctx, query.symbol)),
  }),
];
