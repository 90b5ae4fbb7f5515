import { DockerExecutor, type DockerExecutorOptions } from './docker-executor.ts';
import type { Executor } from './executor.ts';
import { type ExecutorLog, LocalExecutor, type LocalExecutorOptions } from './local-executor.ts';
import type { StrategyLimits } from './strategy-limits.ts';

/** The executors a worker can run strategies with (`HINDSIGHT_EXECUTOR`; `docs/executors.md`). */
export const EXECUTOR_KINDS = ['local', 'docker'] as const;
export type ExecutorKind = (typeof EXECUTOR_KINDS)[number];

export interface ExecutorOptions {
  /** The `local` executor's image cache (`<dataDir>/images`). */
  cacheDir: string;
  log?: ExecutorLog;
  /** What one strategy may use, under either executor (defaults: `DEFAULT_STRATEGY_LIMITS`). */
  limits?: Partial<StrategyLimits>;
  /** Options of the `local` executor beyond `cacheDir`, `log` and `limits`. */
  local?: Omit<LocalExecutorOptions, 'cacheDir' | 'log' | 'limits'>;
  docker?: Omit<DockerExecutorOptions, 'limits'>;
}

/** Builds the executor `kind` names; reads no environment variable itself (the caller's settings do). */
export function createExecutor(kind: ExecutorKind, options: ExecutorOptions): Executor {
  switch (kind) {
    case 'local':
      return new LocalExecutor({
        ...options.local,
        cacheDir: options.cacheDir,
        ...(options.log && { log: options.log }),
        ...(options.limits && { limits: options.limits }),
      });
    case 'docker':
      return new DockerExecutor({ ...options.docker, ...(options.limits && { limits: options.limits }) });
    default:
      throw new Error(`unknown executor "${kind as string}"; use one of ${EXECUTOR_KINDS.join(', ')}`);
  }
}
