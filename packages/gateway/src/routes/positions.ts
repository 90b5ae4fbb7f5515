import { z } from 'zod';
import { type Operation, ok, operation } from '../http/operations.ts';
import {
  COMMON_ERRORS,
  closePositionRequestSchema,
  errorResponses,
  exitLegsRequestSchema,
  exitLegsResultSchema,
  orderHandleSchema,
  PROVIDER_ERRORS,
  positionSchema,
  security,
} from '../http/schemas.ts';
import {
  closeAllPositions,
  closePosition,
  getPosition,
  listPositions,
  moveExitLegs,
} from '../trading/trading-service.ts';

/**
 * Positions (trading-gateway.md: Endpoints, Positions; exit-leg move rules): schemas and the trading
 * service's operations.
 */
const tags = ['Positions'];
const positionParams = z.strictObject({ position_id: z.string().min(1).max(128) });

export const positionOperations: Operation[] = [
  operation({
    method: 'GET',
    url: '/v1/positions',
    schema: {
      tags,
      operationId: 'listPositions',
      summary: 'Open positions',
      security,
      querystring: z.strictObject({ symbol: z.string().optional() }),
      response: { 200: z.array(positionSchema), ...errorResponses(...COMMON_ERRORS, ...PROVIDER_ERRORS) },
    },
    run: async (ctx, { query }) => ok(await listPositions(ctx, query.symbol)),
  }),
  operation({
    method: 'GET',
    url: '/v1/positions/:position_id',
    schema: {
      tags,
      operationId: 'getPosition',
      summary: 'One open position',
      security,
      params: positionParams,
      response: {
        200: positionSchema,
        ...errorResponses(...COMMON_ERRORS, 'POSITION_NOT_FOUND', ...PROVIDER_ERRORS),
      },
    },
    run: async (ctx, { params }) => ok(await getPosition(ctx, params.position_id)),
  }),
  operation({
    method: 'PATCH',
    url: '/v1/positions/:position_id',
    schema: {
      tags,
      operationId: 'moveExitLegs',
      summary: 'Move the stop-loss and/or take-profit legs the gateway placed',
      description:
        'At least one of stop_loss and take_profit (400 otherwise). Legs are moved one at a time and not rolled back as a set. 409 when the leg is not tracked or the move was rejected (the original is restored); 502 when a cancelled leg could not be re-established (the position is unprotected; a POSITION_UNPROTECTED error event is broadcast).',
      security,
      params: positionParams,
      body: exitLegsRequestSchema,
      response: {
        200: exitLegsResultSchema,
        ...errorResponses(
          ...COMMON_ERRORS,
          'INVALID_VALUE',
          'POSITION_NOT_FOUND',
          'ORDER_NOT_MODIFIABLE',
          ...PROVIDER_ERRORS,
        ),
      },
    },
    run: async (ctx, { params, body }) => ok(await moveExitLegs(ctx, params.position_id, body)),
  }),
  operation({
    method: 'DELETE',
    url: '/v1/positions/:position_id',
    schema: {
      tags,
      operationId: 'closePosition',
      summary: 'Close a position (in full or in part)',
      description:
        "Optional body: quantity (omit for a full close), order_type MARKET (default) or LIMIT with limit_price, cancel_associated_orders (default true). Answers the close order's handle.",
      security,
      params: positionParams,
      body: closePositionRequestSchema.optional(),
      response: {
        200: orderHandleSchema,
        ...errorResponses(
          ...COMMON_ERRORS,
          'INVALID_VALUE',
          'POSITION_NOT_FOUND',
          'ORDER_REJECTED',
          'SHUTTING_DOWN',
          ...PROVIDER_ERRORS,
        ),
      },
    },
    run: async (ctx, { params, body }) => ok(await closePosition(ctx, params.position_id, body)),
  }),
  operation({
    method: 'DELETE',
    url: '/v1/positions',
    schema: {
      tags,
      operationId: 'closeAllPositions',
      summary: 'Close every open position (of one symbol) at market',
      description: 'Answers the handles of the close orders, in position order.',
      security,
      querystring: z.strictObject({
        symbol: z.string().optional().meta({ description: 'Omit to close every position.' }),
      }),
      response: {
        200: z.array(orderHandleSchema),
        ...errorResponses(...COMMON_ERRORS, 'SHUTTING_DOWN', ...PROVIDER_ERRORS),
      },
    },
    run: async (ctx, { query }) => ok(await closeAllPositions(ctx, query.symbol)),
  }),
];
