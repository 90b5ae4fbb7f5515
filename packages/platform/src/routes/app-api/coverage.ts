import { calendarOf, TIMEFRAMES } from '@hindsight/core';
import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../../http/context.ts';
import { DayCoverageReader } from './day-coverage.ts';

/**
 * `GET /app-api/catalog/coverage`: every catalog instrument with the days the store really holds, as
 * ranges and gaps (day-coverage.ts), where `/v1/instruments` gives only a first and a last day.
 */
export async function appCoverageRoutes(app: FastifyInstance, ctx: PlatformContext) {
  const reader = new DayCoverageReader(ctx.market);

  app.get('/app-api/catalog/coverage', { config: { auth: 'key' }, schema: { hide: true } }, async () => {
    const instruments = await ctx.catalog.all();
    const data = await Promise.all(
      instruments.map(async (instrument) => ({
        symbol: instrument.symbol,
        name: instrument.name,
        market: instrument.market,
        timeframes: [...TIMEFRAMES],
        ...(await reader.coverage(instrument.symbol, calendarOf(instrument.market))),
      })),
    );
    return { data };
  });
}
