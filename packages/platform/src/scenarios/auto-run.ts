import { ApiError } from '@hindsight/core';
import type { FastifyBaseLogger } from 'fastify';
import type { PlatformContext } from '../http/context.ts';
import { runSettingsOf } from '../repositories/configurations.ts';
import type { PlannedScenario } from './scenario-creation.ts';

/**
 * Auto-run (PUT /v1/strategies/{id}/auto-run-configs): when a new version's image becomes ready, one
 * scenario per bound configuration that is active, as from-configs would create it (same checks, each
 * its own quota slot). A configuration that no longer passes (its data is gone, its env clashes with
 * the image's) is skipped with a log line: a push never fails because of auto-run.
 */
export async function autoRunVersion(
  ctx: PlatformContext,
  versionId: string,
  log: FastifyBaseLogger,
): Promise<number> {
  const found = await ctx.versions.byId(versionId);
  if (!found) return 0;
  const { ownerId, version } = found;
  const configIds = await ctx.strategies.autoRunConfigs(version.strategyId);
  if (configIds.length === 0) return 0;
  const creation = ctx.scenarioCreation;
  const runnable = await creation.runnableVersion(ownerId, version.strategyId, versionId);
  const plans: PlannedScenario[] = [];
  for (const configId of configIds) {
    try {
      const config = await ctx.configurations.get(ownerId, configId);
      if (!config.isActive) continue;
      const settings = runSettingsOf(config);
      creation.assertMergedEnv(runnable.imageEnv, settings.env);
      await creation.assertCatalogRules(settings);
      plans.push({ versionId, settings, configId });
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      log.warn({ versionId, configId, reason: error.message }, 'auto-run skipped a configuration');
    }
  }
  const outcomes = await creation.createEach(ownerId, version.strategyId, plans);
  for (const [index, outcome] of outcomes.entries()) {
    if (!outcome.ok) {
      log.warn(
        { versionId, configId: plans[index]?.configId, reason: outcome.error.message },
        'auto-run not started',
      );
    }
  }
  return outcomes.filter((o) => o.ok).length;
}
