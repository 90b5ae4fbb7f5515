import { parseIsoTimestamp } from '@hindsight/core';
import { TIMEFRAMES } from '@hindsight/engine';
import { z } from 'zod';
import { type Operation, ok, operation } from '../http/operations.ts';
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
import { getAccount, getBars, getQuote, listTrades } from '../trading/trading-service.ts';

/**
 * Trades, account and market data (trading-gateway.md: Endpoints, Trades, account, market data):
 * schemas and the trading service's operations.
 */
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

export const marketOperations: Operation[] = [
  operation({
    method: 'GET',
    url: '/v1/trades',
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
    run: async (ctx, { query }) => ok(await listTrades(ctx, query)),
  }),
  operation({
    method: 'GET',
    url: '/v1/account',
    schema: {
      tags: ['Account'],
      operationId: 'getAccount',
      summary: 'Balance, equity and margin (USD)',
      description: 'Takes no parameters: any query parameter is 400 INVALID_REQUEST.',
      security,
      querystring: z.strictObject({}),
      response: { 200: accountSchema, ...errorResponses(...COMMON_ERRORS, ...PROVIDER_ERRORS) },
    },
    run: async (ctx) => ok(await getAccount(ctx)),
  }),
  operation({
    method: 'GET',
    url: '/v1/quotes/:symbol',
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
    run: async (ctx, { params }) => ok(await getQuote(ctx, params.symbol)),
  }),
  operation({
    method: 'GET',
    url: '/v1/bars/:symbol',
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
    run: async (ctx, { params, query }) => ok(await getBars(ctx, params.symbol, query)),
  }),
];
