import type { FastifyInstance } from 'fastify';
import type { PlatformMetrics } from '../operations/platform-metrics.ts';

/**
 * `GET /metrics`: the Prometheus text exposition of operations/platform-metrics.ts. Public and outside
 * /v1 like the probes, as Prometheus scrapes usually go unauthenticated on an internal network;
 * HINDSIGHT_METRICS=off leaves it out where the port is reachable by others (docs/operating.md).
 */
export async function metricsRoutes(app: FastifyInstance, { metrics }: { metrics: PlatformMetrics }) {
  app.get('/metrics', { config: { auth: 'public' }, schema: { hide: true } }, async (_request, reply) => {
    const { contentType, text } = await metrics.scrape();
    return reply.header('cache-control', 'no-store').type(contentType).send(text);
  });
}
