/**
 * The operations endpoints of a worker alone (`hindsight worker` with HINDSIGHT_WORKER_PORT):
 * `/livez`, `/readyz` and `/metrics`, the very routes an API process serves, on a port of the
 * worker's own and nothing else, so Prometheus can scrape a worker host and a supervisor can probe it
 * (docs/operating.md, "Health and metrics").
 */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import { healthRoutes } from '../routes/health.ts';
import { metricsRoutes } from '../routes/metrics.ts';
import type { ScenarioWorker } from '../runner/worker.ts';
import type { PlatformMetrics } from './platform-metrics.ts';

export async function startWorkerServer(options: {
  db: Db;
  worker: () => ScenarioWorker | undefined;
  metrics: PlatformMetrics | undefined;
  host: string;
  port: number;
}): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false });
  await healthRoutes(app, { db: options.db, workerExpected: true, worker: options.worker });
  if (options.metrics) await metricsRoutes(app, { metrics: options.metrics });
  // Anything else is not found, as JSON like the probes (no HTML page, no stack).
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: 'not found' }));
  const url = await app.listen({ host: options.host, port: options.port });
  return { app, url };
}
