import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { SCENARIO_STATES } from '../../db/schema.ts';
import { principalOf } from '../../http/authentication.ts';
import { loadOwned, ownedOf } from '../../http/owned-resource.ts';
import type { AppRunsRepository, RunRecord } from '../../repositories/app-runs.ts';
import { runProgress } from './progress.ts';

/**
 * `GET /app-api/runs` and `GET /app-api/runs/:scenario_id`: the account's runs across strategies,
 * newest first, each with its strategy's name, its version's label and its progress (`RunSummary`).
 */
export const runParams = z.object({ scenario_id: z.string() });

export function runSummary(run: RunRecord) {
  return {
    scenarioId: run.scenarioId,
    strategyId: run.strategyId,
    strategyName: run.strategyName,
    strategyVersionId: run.strategyVersionId,
    versionLabel: run.versionLabel,
    label: run.label,
    batchId: run.batchId,
    state: run.state,
    errorType: run.errorType,
    errorMessage: run.errorMessage,
    instruments: run.instruments,
    createdAt: run.createdAt.toISOString(),
    startedAt: run.startedAt?.toISOString() ?? null,
    finishedAt: run.finishedAt?.toISOString() ?? null,
    progress: runProgress(run),
  };
}

const listQuery = z.object({
  strategyId: z.uuid('must be a strategy id (UUID)').optional(),
  state: z.enum(SCENARIO_STATES).optional(),
  batchId: z.uuid('must be a sweep id (UUID)').optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  cursor: z.string().min(1).optional(),
});

export async function appRunRoutes(app: FastifyInstance, runs: AppRunsRepository) {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const config = { auth: 'key' as const };
  const loadRun = loadOwned('scenario_id', (owner, id) => runs.get(owner, id));

  api.get('/app-api/runs', { config, schema: { hide: true, querystring: listQuery } }, async (request) => {
    const q = request.query;
    const page = await runs.list(principalOf(request).userId, {
      limit: q.limit,
      cursor: q.cursor,
      strategyId: q.strategyId?.toLowerCase(),
      state: q.state,
      batchId: q.batchId?.toLowerCase(),
    });
    return { data: { runs: page.items.map(runSummary), nextCursor: page.nextCursor ?? null } };
  });

  api.get(
    '/app-api/runs/:scenario_id',
    { config, onRequest: loadRun, schema: { hide: true, params: runParams } },
    async (request) => ({ data: runSummary(ownedOf<RunRecord>(request)) }),
  );
}
