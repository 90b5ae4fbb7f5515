import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/database.ts';
import { databaseProblem } from '../operations/database-check.ts';

/**
 * Probes for supervisors and load balancers (docs/operating.md, "Health and metrics"): outside /v1,
 * public, and left out of the OpenAPI document, which describes the management API only.
 *
 * The shapes follow the gateway's probes (`/livez` `{status: "ok"}`, `/readyz` `{ready, ...}`).
 * `/livez` answers while the process serves requests and asks nothing of its dependencies, so that a
 * database outage never gets every API process restarted. `/readyz` says whether this process can do
 * its work now: the database answers and, in a process that runs a worker, that worker is claiming.
 */
export interface HealthSources {
  db: Db;
  /** This process runs a worker (HINDSIGHT_WORKERS above 0), so readiness includes it. */
  workerExpected: boolean;
  /** The worker, once started. */
  worker: () => { readonly claiming: boolean } | undefined;
}

/** A probe's own deadline is usually 1 to 5 s: answer before it with what is known. */
const DATABASE_PROBE_TIMEOUT_MS = 2000;

const probe = { config: { auth: 'public' as const }, schema: { hide: true } };

export async function healthRoutes(app: FastifyInstance, sources: HealthSources) {
  app.get('/livez', probe, (_request, reply) =>
    reply.header('cache-control', 'no-store').send({ status: 'ok' }),
  );

  app.get('/readyz', probe, async (_request, reply) => {
    const checks: Record<string, string> = {};
    checks.database = (await databaseProblem(sources.db, DATABASE_PROBE_TIMEOUT_MS)) ?? 'ok';
    if (sources.workerExpected) {
      const worker = sources.worker();
      checks.worker = !worker ? 'not started yet' : worker.claiming ? 'ok' : 'stopped';
    }
    const ready = Object.values(checks).every((check) => check === 'ok');
    return reply
      .code(ready ? 200 : 503)
      .header('cache-control', 'no-store')
      .send({ ready, checks });
  });
}
