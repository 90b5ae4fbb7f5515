import type { BarStore } from '@hindsight/marketdata';
import type { Db } from '../db/database.ts';
import type { ApiKeyRepository } from '../repositories/api-keys.ts';
import type { CatalogRepository } from '../repositories/catalog.ts';
import type { ConfigurationRepository } from '../repositories/configurations.ts';
import type { StrategyRepository } from '../repositories/strategies.ts';
import type { UserRepository } from '../repositories/users.ts';

/** Everything a route needs, built once at start and handed to each resource plugin. */
export interface PlatformContext {
  db: Db;
  signingSecret: Uint8Array;
  users: UserRepository;
  apiKeys: ApiKeyRepository;
  strategies: StrategyRepository;
  configurations: ConfigurationRepository;
  catalog: CatalogRepository;
  /** Stored market data (`$HINDSIGHT_DATA_DIR/market`). */
  market: BarStore;
  examplesDir: string;
  version: string;
}
