import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../../http/authentication.ts';
import { loadOwned, ownedOf } from '../../http/owned-resource.ts';
import type { AppRunsRepository, RunRecord, SweepRecord } from '../../repositories/app-runs.ts';

/**
 * `GET /app-api/sweeps` and `GET /app-api/sweeps/:batch_id`: the scenarios each call of
 * `POST .../scenarios/batch` created (one `batch_id` per call), as sweeps. Their grid is told from the
 * runs themselves: the env keys whose values differ between them (a key some runs lack differs too).
 */
const envOf = (run: RunRecord): Record<string, string> => run.settings.env ?? {};

export function gridKeys(runs: RunRecord[]): string[] {
  const keys = new Set(runs.flatMap((run) => Object.keys(envOf(run))));
  const first = runs[0];
  return [...keys]
    .filter((key) => runs.some((run) => envOf(run)[key] !== (first ? envOf(first)[key] : undefined)))
    .sort();
}

function sweepSummary(sweep: SweepRecord) {
  const states: Record<string, number> = {};
  for (const run of sweep.runs) states[run.state] = (states[run.state] ?? 0) + 1;
  return {
    batchId: sweep.batchId,
    strategyId: sweep.strategyId,
    strategyName: sweep.strategyName,
    strategyVersionId: sweep.strategyVersionId,
    createdAt: sweep.createdAt.toISOString(),
    runs: sweep.runs.length,
    states,
    gridKeys: gridKeys(sweep.runs),
  };
}

function sweepDetail(sweep: SweepRecord) {
  const summary = sweepSummary(sweep);
  return {
    ...summary,
    items: sweep.runs.map((run) => {
      const env = envOf(run);
      const params: Record<string, string> = {};
      for (const key of summary.gridKeys) if (env[key] !== undefined) params[key] = env[key];
      return {
        scenarioId: run.scenarioId,
        label: run.label,
        state: run.state,
        params,
        metrics: run.state === 'COMPLETE' ? ((run.metrics ?? null) as Record<string, unknown> | null) : null,
      };
    }),
  };
}

export async function appSweepRoutes(app: FastifyInstance, runs: AppRunsRepository) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const config = { auth: 'key' as const };

  api.get('/app-api/sweeps', { config, schema: { hide: true } }, async (request) => ({
    data: (await runs.sweeps(principalOf(request).userId)).map(sweepSummary),
  }));

  api.get(
    '/app-api/sweeps/:batch_id',
    {
      config,
      onRequest: loadOwned('batch_id', (owner, id) => runs.sweep(owner, id.toLowerCase())),
      schema: { hide: true, params: z.object({ batch_id: z.string() }) },
    },
    async (request) => ({ data: sweepDetail(ownedOf<SweepRecord>(request)) }),
  );
}
