export { acquireDirectoryLock, DataDirLockedError } from './db/data-dir-lock.ts';
export { type Database, openDatabase, type StorageTarget } from './db/database.ts';
export * from './executors/index.ts';
export { buildServer } from './http/server.ts';
export { withMarketImportLock } from './market/import-lock.ts';
export { marketDir, marketImportLockDir, openMarketStore } from './market/market-store.ts';
export {
  openPlatform,
  PLATFORM_VERSION,
  type PlatformOptions,
  type RunningPlatform,
  type RunningWorker,
  runWorker,
  startPlatform,
} from './platform.ts';
export { issuePullToken, issueVersionAccessToken, repositoryName } from './registry/access.ts';
export { type BuiltImage, buildImage, type ImageSpec, splitCommand } from './registry/image-builder.ts';
export { mediaTypes } from './registry/manifests.ts';
export { type PushTarget, RegistryPushClient, RegistryPushError } from './registry/push-client.ts';
export { CursorCodec } from './repositories/pagination.ts';
export { ScenarioRepository } from './repositories/scenarios.ts';
export {
  isEmail,
  MIN_PASSWORD_LENGTH,
  type PlatformSettings,
  readSettings,
  SettingsError,
} from './settings.ts';
export {
  DEFAULT_CACHE_BYTES,
  readStorageSettings,
  type StorageSettings,
  storageVariables,
} from './storage/storage-settings.ts';
