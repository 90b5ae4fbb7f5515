import { badRequest, calendarOf, isTimeframe, notFound, TIMEFRAMES, type Timeframe } from '@hindsight/core';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PlatformContext } from '../../http/context.ts';
import { bucketCount, candleSeries, smallestFitting } from './candle-series.ts';

/**
 * `GET /app-api/candles?symbol&from&to[&timeframe][&maxPoints]`: the bars of one catalog instrument
 * over [from, to) (epoch ms), as the candle events of a run would show them (candle-series.ts). Without
 * `timeframe`, the smallest standard one with at most `maxPoints` buckets over the window; with one, a
 * window with more buckets than `maxPoints` is refused (400) rather than cut short.
 */
export const DEFAULT_MAX_POINTS = 5000;
export const MAX_POINTS = 20_000;

const epochMs = (name: string) =>
  z.coerce
    .number({ error: `must be epoch milliseconds (UTC), e.g. ${Date.UTC(2024, 0, 1)}` })
    .int(`must be whole epoch milliseconds (UTC), e.g. ${Date.UTC(2024, 0, 1)}`)
    .min(0, `must be epoch milliseconds (UTC) at or after 1970-01-01`)
    .max(Date.UTC(9999, 0, 1), `must be epoch milliseconds (UTC) before the year 9999`)
    .meta({ description: name });

const candleQuery = z.object({
  symbol: z.string({ error: 'is required, e.g. C:BTCUSD' }).min(1, 'is required, e.g. C:BTCUSD'),
  from: epochMs('Window start, epoch ms, included.'),
  to: epochMs('Window end, epoch ms, excluded.'),
  timeframe: z
    .string()
    .refine(isTimeframe, `must be one of ${TIMEFRAMES.join(', ')}`)
    .optional(),
  maxPoints: z.coerce
    .number({ error: `must be a whole number from 1 to ${MAX_POINTS}` })
    .int(`must be a whole number from 1 to ${MAX_POINTS}`)
    .min(1, `must be a whole number from 1 to ${MAX_POINTS}`)
    .max(MAX_POINTS, `must be at most ${MAX_POINTS}`)
    .default(DEFAULT_MAX_POINTS),
});

export async function appCandleRoutes(app: FastifyInstance, ctx: PlatformContext) {
  const api = app.withTypeProvider<ZodTypeProvider>();

  api.get(
    '/app-api/candles',
    { config: { auth: 'key' }, schema: { hide: true, querystring: candleQuery } },
    async (request) => {
      const { symbol, from, to, maxPoints } = request.query;
      if (to <= from) {
        throw badRequest(`to (${to}) must be after from (${from}): the window is [from, to) in epoch ms.`);
      }
      const instrument = (await ctx.catalog.all()).find((i) => i.symbol === symbol);
      if (!instrument) throw notFound(`Instrument ${symbol}`);
      const calendar = calendarOf(instrument.market);
      let timeframe = request.query.timeframe as Timeframe | undefined;
      if (timeframe === undefined) {
        timeframe = smallestFitting(calendar, from, to, maxPoints);
        if (timeframe === undefined) {
          throw badRequest(
            `the window holds more than maxPoints (${maxPoints}) weekly bars; shorten the window or raise maxPoints (at most ${MAX_POINTS}).`,
          );
        }
      } else if (bucketCount(timeframe, calendar, from, to, maxPoints) > maxPoints) {
        throw badRequest(
          `the window holds more than maxPoints (${maxPoints}) ${timeframe} bars; shorten the window, pick a larger timeframe, raise maxPoints (at most ${MAX_POINTS}) or omit timeframe to have one chosen.`,
        );
      }
      const candles = await candleSeries(ctx.market, instrument, timeframe, from, to);
      return { data: { symbol, timeframe, candles } };
    },
  );
}
