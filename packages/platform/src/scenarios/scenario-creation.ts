import {
  ApiError,
  badRequest,
  type ConfigurationIssue,
  conflict,
  envIssues,
  formatIssues,
  mergeEnv,
} from '@hindsight/core';
import { readImageRunConfig } from '../registry/image-config.ts';
import type { RegistryStore } from '../registry/registry-store.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import type { ConfigurationSettings } from '../repositories/configurations.ts';
import type { Scenario, ScenarioInput, ScenarioRepository } from '../repositories/scenarios.ts';
import type { VersionRepository } from '../repositories/versions.ts';
import type { ScenarioSignals } from '../runner/scenario-signals.ts';

/** Where a configuration sits in a request body, e.g. `['configurations', 2]`. */
export type IssuePath = readonly (string | number)[];

/** A version that can run: its image is pushed, not evicted; its `Env` is the lowest env layer. */
export interface RunnableVersion {
  versionId: string;
  imageDigest: string;
  imageEnv: Record<string, string>;
}

/** A planned scenario whose settings passed every check, waiting only for its quota slot. */
export type PlannedScenario = ScenarioInput;

export interface CreationDependencies {
  scenarios: ScenarioRepository;
  versions: VersionRepository;
  registry: RegistryStore;
  catalog: CatalogRepository;
  signals: ScenarioSignals;
  /** Scenarios an account may have QUEUED, PENDING or RUNNING at once. */
  quota: number;
}

/**
 * The checks and the order every way of creating scenarios shares (inline, batch, from-configs and
 * auto-run), after decisions 25 and 35: the body's own rules (including each env layer alone and the
 * catalog rules) have passed; then the version (404, 409 not pushed, 410 evicted); then the merged env
 * (image, then configuration, then run) against the same rules (400); then each scenario takes its own
 * quota slot (403 QUOTA_EXCEEDED).
 */
export class ScenarioCreation {
  constructor(private readonly deps: CreationDependencies) {}

  get quota(): number {
    return this.deps.quota;
  }

  /** Resolves the version to run: the caller's, of that strategy, with a pushed image. */
  async runnableVersion(ownerId: string, strategyId: string, versionId: string): Promise<RunnableVersion> {
    const version = await this.deps.versions.get(ownerId, strategyId, versionId);
    if (version.imageStatus === 'evicted') {
      throw new ApiError(
        'IMAGE_EVICTED',
        `The image of version ${versionId} was evicted, so it can never run; upload a new version.`,
      );
    }
    if (version.imageStatus !== 'ready' || !version.imageDigest) {
      throw conflict(
        `Version ${versionId} has no image yet; push it to the version's repositoryUrl (or run \`npx hindsight versions push\`) and create the scenario again.`,
      );
    }
    const { env } = await readImageRunConfig(this.deps.registry, version.versionId, version.imageDigest);
    return { versionId: version.versionId, imageDigest: version.imageDigest, imageEnv: env };
  }

  /** Decision 21 for one configuration (`path` names it inside a batch). */
  assertCatalogRules(settings: ConfigurationSettings, path: IssuePath = []): Promise<void> {
    return this.deps.catalog.assertConfigurationRules(settings, path);
  }

  /**
   * The env rules over the merged layers; `path` names the scenario in a multi-scenario body. The
   * message says the problem arose from the merge, since each layer alone already passed.
   */
  assertMergedEnv(
    imageEnv: Record<string, string>,
    env: Record<string, string> | undefined,
    path: IssuePath = [],
  ) {
    const layers = Object.keys(imageEnv).length > 0 ? 'env (merged with the image env)' : 'env';
    const issues: ConfigurationIssue[] = envIssues(mergeEnv(imageEnv, env), [...path, layers]);
    if (issues.length > 0) {
      const { message, details } = formatIssues(issues);
      throw badRequest(message, details);
    }
  }

  /** Creates one QUEUED scenario (its own quota slot) and wakes a worker. */
  async create(ownerId: string, strategyId: string, planned: PlannedScenario): Promise<Scenario> {
    const scenario = await this.deps.scenarios.create(ownerId, strategyId, planned, this.deps.quota);
    this.deps.signals.queued();
    return scenario;
  }

  /**
   * Creates planned scenarios in order, each with its own quota slot, keeping those created when a
   * later one fails (best effort); answers one outcome per plan, in order.
   */
  async createEach(
    ownerId: string,
    strategyId: string,
    plans: readonly PlannedScenario[],
  ): Promise<({ ok: true; scenario: Scenario } | { ok: false; error: ApiError })[]> {
    const outcomes: ({ ok: true; scenario: Scenario } | { ok: false; error: ApiError })[] = [];
    for (const plan of plans) {
      try {
        outcomes.push({ ok: true, scenario: await this.create(ownerId, strategyId, plan) });
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        outcomes.push({ ok: false, error });
      }
    }
    return outcomes;
  }
}
