import { parseIsoTimestamp } from '@hindsight/core';
import { TIMEFRAMES } from '@hindsight/engine';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { GatewayError } from '../errors.ts';
import type { GatewayContext } from '../http/context.ts';
import { callProvider } from '../http/provider-calls.ts';
import {
  accountSchema,
  barSchema,
  COMMON_ERRORS,
  errorResponses,
  PROVIDER_ERRORS,
  quoteSchema,
  security,
  tradeSchema,
} from '../http/schemas.ts';
import { DEFAULT_BAR_LIMIT, MAX_BAR_LIMIT } from '../provider/simulation/bar-history.ts';

/** Trades, account and market data (trading-gateway.md: Endpoints, Trades, account, market data). */
const SYMBOL = /^[A-Za-z0-9:._/-]{1,64}$/;

const time = (description: string) =>
  z
    .string()
    .refine((v) => parseIsoTimestamp(v) !== undefined, {
      error: 'must be an ISO-8601 UTC timestamp such as 2024-01-01T00:00:00Z',
    })
    .optional()
    .meta({ description, format: 'date-time' });

const limit = (max: number, description: string) =>
  z.coerce
    .number({ error: `must be an integer from 1 to ${max}` })
    .int({ error: `must be an integer from 1 to ${max}` })
    .min(1, { error: `must be an integer from 1 to ${max}` })
    .max(max, { error: `must be an integer from 1 to ${max}` })
    .optional()
    .meta({ description });

const symbolParams = z.strictObject({
  symbol: z
    .string()
    .meta({ description: 'Provider-native symbol, exactly as subscribed (URL-encode the colon if needed).' }),
});

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

export async function marketRoutes(app: FastifyInstance, { ctx }: { ctx: GatewayContext }) {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/v1/trades',
    {
      schema: {
        tags: ['Trades'],
        operationId: 'listTrades',
        summary: 'Fills, oldest first',
        security,
        querystring: z.strictObject({
          symbol: z.string().optional(),
          order_id: z.string().optional(),
          since: time('Inclusive.'),
          until: time('Exclusive.'),
          limit: limit(10_000, 'At most this many trades, oldest first.'),
        }),
        response: {
          200: z.array(tradeSchema),
          ...errorResponses(...COMMON_ERRORS, 'INVALID_VALUE', ...PROVIDER_ERRORS),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const since = q.since === undefined ? undefined : (parseIsoTimestamp(q.since) as number);
      const until = q.until === undefined ? undefined : (parseIsoTimestamp(q.until) as number);
      const out = [];
      for (const trade of await callProvider(ctx, () => ctx.provider.trades())) {
        if (q.symbol !== undefined && trade.symbol !== q.symbol) continue;
        if (q.order_id !== undefined && trade.order_id !== q.order_id) continue;
        const t = Date.parse(trade.timestamp);
        if (since !== undefined && t < since) continue;
        if (until !== undefined && t >= until) continue;
        out.push(trade);
        if (q.limit !== undefined && out.length >= q.limit) break;
      }
      return out;
    },
  );

  api.get(
    '/v1/account',
    {
      schema: {
        tags: ['Account'],
        operationId: 'getAccount',
        summary: 'Balance, equity and margin (USD)',
        description: 'Takes no parameters: any query parameter is 400 INVALID_REQUEST.',
        security,
        querystring: z.strictObject({}),
        response: { 200: accountSchema, ...errorResponses(...COMMON_ERRORS, ...PROVIDER_ERRORS) },
      },
    },
    async () => callProvider(ctx, () => ctx.provider.account()),
  );

  api.get(
    '/v1/quotes/:symbol',
    {
      schema: {
        tags: ['Market data'],
        operationId: 'getQuote',
        summary: 'Latest quote',
        description:
          "In a backtest: the last completed base bar's closing bid and ask; last is their mid. 503 before the replay reaches the symbol's first bar.",
        security,
        params: symbolParams,
        response: {
          200: quoteSchema,
          ...errorResponses(...COMMON_ERRORS, 'INVALID_VALUE', 'SYMBOL_NOT_FOUND', ...PROVIDER_ERRORS),
        },
      },
    },
    async (request) => {
      checkSymbol(ctx, request.params.symbol);
      return callProvider(ctx, () => ctx.provider.quote(request.params.symbol));
    },
  );

  api.get(
    '/v1/bars/:symbol',
    {
      schema: {
        tags: ['Market data'],
        operationId: 'getBars',
        summary: 'Historical bars',
        description: `Completed bars (stamped with their start) whose start is in [start, end]; in a backtest never beyond simulated time. With start: the first \`limit\` bars from it; without: the last \`limit\` bars up to end (default ${DEFAULT_BAR_LIMIT}, at most ${MAX_BAR_LIMIT}).`,
        security,
        params: symbolParams,
        querystring: z.strictObject({
          timeframe: z
            .string({ error: `is required: one of ${TIMEFRAMES.join(', ')}` })
            .refine((v) => (TIMEFRAMES as readonly string[]).includes(v), {
              error: `must be one of ${TIMEFRAMES.join(', ')}`,
            })
            .meta({ description: `Timeframe: ${TIMEFRAMES.join(', ')}.` }),
          start: time('Inclusive bar start.'),
          end: time('Inclusive bar start.'),
          limit: limit(MAX_BAR_LIMIT, `Default ${DEFAULT_BAR_LIMIT}.`),
        }),
        response: {
          200: z.array(barSchema),
          ...errorResponses(...COMMON_ERRORS, 'INVALID_VALUE', 'SYMBOL_NOT_FOUND', ...PROVIDER_ERRORS),
        },
      },
    },
    async (request) => {
      checkSymbol(ctx, request.params.symbol);
      const q = request.query;
      const bars = await callProvider(ctx, () =>
        ctx.provider.bars(request.params.symbol, {
          timeframe: q.timeframe as (typeof TIMEFRAMES)[number],
          ...(q.start !== undefined && { start: parseIsoTimestamp(q.start) as number }),
          ...(q.end !== undefined && { end: parseIsoTimestamp(q.end) as number }),
          ...(q.limit !== undefined && { limit: q.limit }),
        }),
      );
      return [...bars];
    },
  );
}
