import { notFound } from '@hindsight/core';
import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../../http/context.ts';
import { AppRunsRepository } from '../../repositories/app-runs.ts';
import { CursorCodec } from '../../repositories/pagination.ts';
import { appCandleRoutes } from './candles.ts';
import { appCoverageRoutes } from './coverage.ts';
import { appResultRoutes } from './results.ts';
import { appRunRoutes } from './runs.ts';
import { appSweepRoutes } from './sweeps.ts';

/**
 * The web app's internal JSON API (decision 39; docs/web-internal-api.md): what its pages need beyond
 * the spec's `/v1`, under `/app-api/`. Same authentication, owner scoping, `{data}` envelopes and error
 * envelope as `/v1`, but hidden from openapi.json (which documents `/v1`) and free to change with the
 * app. Its client is packages/web/src/api/internal.ts.
 */
export async function appApiRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  // The same secret as the platform's own codec: cursors are signed and bound to their list.
  const runs = new AppRunsRepository(ctx.db, new CursorCodec(ctx.signingSecret));
  await appRunRoutes(app, runs);
  await appResultRoutes(app, ctx, runs);
  await appSweepRoutes(app, runs);
  await appCandleRoutes(app, ctx);
  await appCoverageRoutes(app, ctx);
  // Any other /app-api path is a JSON 404, never the web app's page (that answers unknown /v1 paths).
  app.all('/app-api/*', { schema: { hide: true } }, (request) => {
    throw notFound(`Endpoint ${request.method} ${request.url.split('?')[0]}`);
  });
}
