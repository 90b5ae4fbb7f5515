import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyBaseLogger } from 'fastify';
import { createExecutor } from '../executors/create-executor.ts';
import type { PlatformContext } from '../http/context.ts';
import type { RunnerSettings } from '../settings.ts';
import type { RunLimits } from './scenario-run.ts';
import { ScenarioWorker } from './worker.ts';

/** The engine package's version: part of every run's manifest. */
export const ENGINE_VERSION: string = JSON.parse(
  readFileSync(
    join(dirname(fileURLToPath(import.meta.resolve('@hindsight/engine'))), '..', 'package.json'),
    'utf8',
  ),
).version;

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
  /** Embedded store: this process owns it, so claims left by an earlier run are failed at start. */
  embedded: boolean;
  /** Scenarios run at once (default: `runner.workers`). */
  concurrency?: number;
  limits?: Partial<RunLimits>;
}

/** Builds a worker with the configured executor and starts it claiming scenarios. */
export async function startWorker(setup: WorkerSetup): Promise<ScenarioWorker> {
  const { ctx, runner, log } = setup;
  const executor = createExecutor(runner.executor, {
    cacheDir: join(setup.dataDir, 'images'),
    log: {
      info: (message: string) => log.info(message),
      warn: (message: string) => log.warn(message),
    },
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
      limits: {
        connectTimeoutMs: runner.connectTimeoutSeconds * 1000,
        stallTimeoutMs: runner.stallTimeoutSeconds * 1000,
        ...DEFAULT_RUN_LIMITS,
        ...setup.limits,
      },
      log,
    },
    {
      concurrency: setup.concurrency ?? runner.workers,
      leaseMs: runner.leaseSeconds * 1000,
      pollMs: 1000,
      failClaimedAtStart: setup.embedded,
    },
    ctx.signals,
  );
  await worker.start();
  return worker;
}
