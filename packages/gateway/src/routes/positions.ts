import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GatewayError } from '../errors.ts';
import type { GatewayContext } from '../http/context.ts';
import { refuseWhenShuttingDown } from '../http/guards.ts';
import { callProvider } from '../http/provider-calls.ts';
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
  accepted,
  parseClosePositionRequest,
  parsedOrThrow,
  parseExitLegsRequest,
  rejectedError,
} from '../protocol/index.ts';

/** Positions (trading-gateway.md: Endpoints, Positions; exit-leg move rules). */
const tags = ['Positions'];
const positionParams = z.strictObject({ position_id: z.string().min(1).max(128) });
/** A close without a body: the whole position at market, its associated orders cancelled first. */
const FULL_CLOSE = parsedOrThrow(parseClosePositionRequest(undefined));

export async function positionRoutes(app: FastifyInstance, { ctx }: { ctx: GatewayContext }) {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/positions',
    {
      schema: {
        tags,
        operationId: 'listPositions',
        summary: 'Open positions',
        security,
        querystring: z.strictObject({ symbol: z.string().optional() }),
        response: { 200: z.array(positionSchema), ...errorResponses(...COMMON_ERRORS, ...PROVIDER_ERRORS) },
      },
    },
    async (request) => [...(await callProvider(ctx, () => ctx.provider.positions(request.query.symbol)))],
  );

  api.get(
    '/v1/positions/:position_id',
    {
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
    },
    async (request) => {
      const id = request.params.position_id;
      const position = await callProvider(ctx, () => ctx.provider.position(id));
      if (!position)
        throw new GatewayError('POSITION_NOT_FOUND', `There is no open position ${id}.`, { position_id: id });
      return position;
    },
  );

  api.patch(
    '/v1/positions/:position_id',
    {
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
    },
    async (request) => {
      const positionId = request.params.position_id;
      const body = request.body as unknown;
      const legs = parsedOrThrow(parseExitLegsRequest(body));
      ctx.breakers.check('exit_order');
      try {
        const moved = accepted(
          await callProvider(ctx, () => ctx.provider.moveExitLegs(positionId, legs)),
          body,
        );
        ctx.breakers.success('exit_order');
        return moved;
      } catch (error) {
        if (error instanceof GatewayError && error.code === 'PROVIDER_ERROR') {
          ctx.breakers.failure('exit_order');
          if (error.details?.unprotected === true) {
            // The leg was cancelled and could not be re-established: say so on the stream too.
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
    },
  );

  api.delete(
    '/v1/positions/:position_id',
    {
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
    },
    async (request) => {
      refuseWhenShuttingDown(ctx);
      const positionId = request.params.position_id;
      const body = request.body as unknown;
      const close = parsedOrThrow(parseClosePositionRequest(body));
      const placed = accepted(
        await callProvider(ctx, () => ctx.provider.closePosition(positionId, close)),
        body,
      );
      ctx.metrics.orderSubmitted();
      if (placed.rejected) throw rejectedError(placed.rejected, placed.handle.id);
      return placed.handle;
    },
  );

  api.delete(
    '/v1/positions',
    {
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
    },
    async (request) => {
      refuseWhenShuttingDown(ctx);
      const positions = await callProvider(ctx, () => ctx.provider.positions(request.query.symbol));
      const handles = [];
      for (const position of positions) {
        const placed = accepted(
          await callProvider(ctx, () => ctx.provider.closePosition(position.id, FULL_CLOSE)),
        );
        ctx.metrics.orderSubmitted();
        handles.push(placed.handle);
      }
      return handles;
    },
  );
}
