import { INSTRUMENT_STATUSES, MARKET_IDS, MARKETS, notFound } from '@hindsight/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PlatformContext } from '../http/context.ts';
import { envelope, errorResponses, security } from '../http/schemas.ts';
import type { Instrument } from '../repositories/catalog.ts';

const day = z.string().meta({ description: 'UTC day, YYYY-MM-DD.', format: 'date' });

export const instrumentSchema = z
  .object({
    symbol: z
      .string()
      .meta({ description: 'Platform symbol `<C|F|S>:<PAIR>`; what configurations reference.' }),
    name: z.string(),
    market: z.enum(MARKET_IDS as [string, ...string[]]),
    dataSymbol: z.string().meta({ description: 'Internal identifier. Not accepted in configurations.' }),
    underlying: z.string(),
    denomination: z.string(),
    dataStartDate: day
      .optional()
      .meta({ description: 'First UTC day with stored data; omitted when coming soon.' }),
    dataEndDate: day.optional().meta({ description: 'Last UTC day the store holds (decision 31).' }),
    granularities: z.array(z.string()),
    status: z.enum(INSTRUMENT_STATUSES),
    tickSize: z.string().optional(),
    pricePrecision: z.number().int().optional(),
    spreadModel: z
      .discriminatedUnion('kind', [
        z.object({ kind: z.literal('zero') }),
        z.object({ kind: z.literal('half_spread_bps'), value: z.string() }),
      ])
      .meta({ description: 'How bid/ask are derived for trade-only bars (decision 3).' }),
  })
  .meta({ id: 'Instrument' });

const marketSchema = z.object({ id: z.string(), name: z.string() }).meta({ id: 'Market' });

/** Case-insensitive enum filter: an unknown value is a 400 naming the accepted ones. */
const caseInsensitive = (values: readonly string[]) =>
  z
    .string()
    .optional()
    .meta({ description: `One of ${values.join(', ')} (case-insensitive).` })
    .superRefine((value, ctx) => {
      if (
        value !== undefined &&
        !values.includes(value.toUpperCase()) &&
        !values.includes(value.toLowerCase())
      ) {
        ctx.addIssue({ code: 'custom', message: `"${value}" is not one of ${values.join(', ')}` });
      }
    });

const tags = ['Instrument catalog'];

export async function catalogRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const config = { auth: 'public' as const };

  api.get(
    '/v1/instruments',
    {
      config,
      schema: {
        tags,
        operationId: 'listInstruments',
        summary: 'List instruments',
        security: security.public,
        querystring: z.object({
          market: caseInsensitive(MARKET_IDS),
          status: caseInsensitive(INSTRUMENT_STATUSES),
        }),
        response: { 200: envelope(z.array(instrumentSchema)), ...errorResponses(400, 500) },
      },
    },
    async (request) => {
      const market = request.query.market?.toUpperCase();
      const status = request.query.status?.toLowerCase();
      const all = await ctx.catalog.all();
      return {
        data: all.filter((i) => (!market || i.market === market) && (!status || i.status === status)),
      };
    },
  );

  api.get(
    '/v1/instruments/markets',
    {
      config,
      schema: {
        tags,
        operationId: 'listMarkets',
        summary: 'List markets',
        security: security.public,
        response: { 200: envelope(z.array(marketSchema)) },
      },
    },
    async () => ({ data: MARKETS.map((m) => ({ id: m.id, name: m.name })) }),
  );

  api.get(
    '/v1/instruments/search',
    {
      config,
      schema: {
        tags,
        operationId: 'searchInstruments',
        summary: 'Search instruments',
        description: 'Case-insensitive substring match on symbol and name.',
        security: security.public,
        querystring: z.object({
          q: z
            .string({ error: 'is required' })
            .min(1, 'must not be empty')
            .max(100, 'must be at most 100 characters'),
        }),
        response: { 200: envelope(z.array(instrumentSchema)), ...errorResponses(400, 500) },
      },
    },
    async (request) => {
      const q = request.query.q.toLowerCase();
      const matches = (i: Instrument) =>
        i.symbol.toLowerCase().includes(q) || i.name.toLowerCase().includes(q);
      return { data: (await ctx.catalog.all()).filter(matches) };
    },
  );

  api.get(
    '/v1/instruments/:symbol',
    {
      config,
      schema: {
        tags,
        operationId: 'getInstrument',
        summary: 'Get an instrument',
        description: 'Exact platform symbol, e.g. `C:BTCUSD`.',
        security: security.public,
        params: z.object({ symbol: z.string() }),
        response: { 200: envelope(instrumentSchema), ...errorResponses(404, 500) },
      },
    },
    async (request) => {
      const { symbol } = request.params;
      const instrument = (await ctx.catalog.all()).find((i) => i.symbol === symbol);
      if (!instrument) throw notFound(`Instrument ${symbol}`);
      return { data: instrument };
    },
  );
}
