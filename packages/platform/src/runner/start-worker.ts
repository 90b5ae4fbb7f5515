import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ENGINE_VERSION } from '@hindsight/engine';
import type { FastifyBaseLogger } from 'fastify';
import { createExecutor } from '../executors/create-executor.ts';
import type { PlatformContext } from '../http/context.ts';
import type { RunnerSettings } from '../settings.ts';
import type { RunTelemetry } from './run-telemetry.ts';
import type { RunLimits } from './scenario-run.ts';
import { ScenarioWorker } from './worker.ts';

/** The engine's version (the one constant the standalone gateway stamps too): part of every run's manifest. */
export { ENGINE_VERSION };

export const DEFAULT_RUN_LIMITS = {
  exitGraceMs: 10_000,
  stopGraceMs: 1_000,
  logHeadBytes: 512 * 1024,
  logTailBytes: 512 * 1024,
} as const;

export interface WorkerSetup {
  ctx: PlatformContext;
  runner: RunnerSettings;
  dataDir: string;
  /** The platform's base URL as this worker reaches it (the registry is served there). */
  registryUrl: string;
  log: FastifyBaseLogger;
  /** Embedded store: this process owns it, so claims left by an earlier run are requeued at start. */
  embedded: boolean;
  /** Scenarios run at once (default: `runner.workers`). */
  concurrency?: number;
  limits?: Partial<RunLimits>;
  /** Counts this worker's runs (the platform's /metrics). */
  telemetry?: RunTelemetry;
}

/**
 * Where the local executor unpacks images: `<dataDir>/images`, unless a folder above the data dir is
 * closed to other users (a data dir under root's home, mode 700) while strategies run as an unprivileged
 * user (a worker running as root): then a folder of its own under the system temp dir, so that
 * `npm start` works from any checkout.
 */
export function imageCacheDir(dataDir: string, log?: FastifyBaseLogger): string {
  const preferred = join(dataDir, 'images');
  if (process.getuid?.() !== 0) return preferred;
  for (let path = resolve(dataDir); ; path = dirname(path)) {
    const info = existsSync(path) ? statSync(path) : undefined;
    if (info && (info.mode & 0o001) === 0) {
      const fallback = join(
        tmpdir(),
        `hindsight-images-${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 12)}`,
      );
      log?.info(`${path} is closed to other users, so images are unpacked in ${fallback}`);
      return fallback;
    }
    if (dirname(path) === path) return preferred;
  }
}

/** Builds a worker with the configured executor and starts it claiming scenarios. */
export async function startWorker(setup: WorkerSetup): Promise<ScenarioWorker> {
  const { ctx, runner, log } = setup;
  const concurrency = setup.concurrency ?? runner.workers;
  const executor = createExecutor(runner.executor, {
    cacheDir: imageCacheDir(setup.dataDir, log),
    log: {
      info: (message: string) => log.info(message),
      warn: (message: string) => log.warn(message),
    },
    limits: runner.strategyLimits,
    ...(runner.sandbox === 'none' && { local: { bwrap: false } }),
  });
  const worker = new ScenarioWorker(
    {
      scenarios: ctx.scenarios,
      registry: ctx.registry,
      catalog: ctx.catalog,
      market: ctx.market,
      executor,
      signingSecret: ctx.signingSecret,
      registryUrl: setup.registryUrl,
      engineVersion: ENGINE_VERSION,
      maxAttempts: runner.maxAttempts,
      limits: {
        connectTimeoutMs: runner.connectTimeoutSeconds * 1000,
        stallTimeoutMs: runner.stallTimeoutSeconds * 1000,
        ...DEFAULT_RUN_LIMITS,
        ...setup.limits,
      },
      log,
    },
    {
      concurrency,
      leaseMs: runner.leaseSeconds * 1000,
      pollMs: 1000,
      maxAttempts: runner.maxAttempts,
      // An embedded store's runs can only go on in this process's next start: hand them back at once.
      stopGraceMs: setup.embedded ? 0 : runner.stopGraceSeconds * 1000,
      requeueClaimedAtStart: setup.embedded,
      ...(setup.telemetry && { telemetry: setup.telemetry }),
    },
    ctx.signals,
  );
  await worker.start();
  return worker;
}
