import { ApiError } from '@hindsight/core';
import { ensureZstd, zstdDecompress } from '@hindsight/marketdata';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PlatformContext } from '../../http/context.ts';
import { loadOwned, ownedOf } from '../../http/owned-resource.ts';
import type { AppRunsRepository, RunRecord } from '../../repositories/app-runs.ts';
import { type Scenario, ScenarioRepository } from '../../repositories/scenarios.ts';
import { runParams } from './runs.ts';

/**
 * `GET /app-api/runs/:scenario_id/{timeseries,trades,metadata}`: the result files of a COMPLETE run,
 * decoded (the `/v1` downloads serve the same files zstd-compressed). Not COMPLETE: 400, worded as
 * the `/v1` result endpoints word it.
 */
const FILES = ['timeseries', 'trades', 'metadata'] as const;

export async function appResultRoutes(app: FastifyInstance, ctx: PlatformContext, runs: AppRunsRepository) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const config = { auth: 'key' as const };
  const loadRun = loadOwned('scenario_id', (owner, id) => runs.get(owner, id));

  for (const file of FILES) {
    api.get(
      `/app-api/runs/:scenario_id/${file}`,
      { config, onRequest: loadRun, schema: { hide: true, params: runParams } },
      async (request) => {
        const run = ownedOf<RunRecord>(request);
        ScenarioRepository.assertComplete(
          { scenarioId: run.scenarioId, state: run.state } as Scenario,
          'result files',
        );
        const bytes = await ctx.scenarios.resultFile(run.scenarioId, file);
        if (!bytes) throw new ApiError('INTERNAL_ERROR', `The ${file} file of ${run.scenarioId} is missing.`);
        await ensureZstd();
        const decoded = JSON.parse(Buffer.from(zstdDecompress(bytes)).toString('utf8')) as Record<
          string,
          unknown
        >;
        // The trades file is `{trades: [...]}`; the others are served as they are.
        return { data: file === 'trades' ? { trades: decoded.trades ?? [] } : decoded };
      },
    );
  }
}
