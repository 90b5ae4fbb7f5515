export { DEFAULT_HOST_PATHS, type SandboxUser } from './bubblewrap.ts';
export {
  createExecutor,
  EXECUTOR_KINDS,
  type ExecutorKind,
  type ExecutorOptions,
} from './create-executor.ts';
export { DockerExecutor, type DockerExecutorOptions, UNPRIVILEGED_USER } from './docker-executor.ts';
export * from './executor.ts';
export { DEFAULT_CACHE_MAX_BYTES, ImageCache } from './image-cache.ts';
export { type ExecutorLog, LocalExecutor, type LocalExecutorOptions } from './local-executor.ts';
export {
  DEFAULT_STRATEGY_LIMITS,
  describeBreach,
  formatBytes,
  type LimitBreach,
  type LimitedResource,
  parseByteSize,
  type StrategyLimits,
} from './strategy-limits.ts';
