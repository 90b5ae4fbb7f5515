import type { BarStore } from '@hindsight/marketdata';
import type { Db } from '../db/database.ts';
import type { RegistryStore } from '../registry/registry-store.ts';
import type { ApiKeyRepository } from '../repositories/api-keys.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import type { ConfigurationRepository } from '../repositories/configurations.ts';
import type { ScenarioRepository } from '../repositories/scenarios.ts';
import type { StrategyRepository } from '../repositories/strategies.ts';
import type { UserRepository } from '../repositories/users.ts';
import type { VersionRepository } from '../repositories/versions.ts';
import type { ScenarioSignals } from '../runner/scenario-signals.ts';
import type { ScenarioCreation } from '../scenarios/scenario-creation.ts';

/** Everything a route needs, built once at start and handed to each resource plugin. */
export interface PlatformContext {
  db: Db;
  signingSecret: Uint8Array;
  users: UserRepository;
  apiKeys: ApiKeyRepository;
  strategies: StrategyRepository;
  configurations: ConfigurationRepository;
  versions: VersionRepository;
  /** The built-in image registry's metadata and blobs (`$HINDSIGHT_DATA_DIR/registry`). */
  registry: RegistryStore;
  catalog: CatalogRepository;
  scenarios: ScenarioRepository;
  /** The checks and quota every way of creating scenarios shares. */
  scenarioCreation: ScenarioCreation;
  /** In-process wake-ups between the API and this process's worker. */
  signals: ScenarioSignals;
  /** Stored market data (`$HINDSIGHT_DATA_DIR/market`). */
  market: BarStore;
  examplesDir: string;
  version: string;
}
