import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { instrumentSeed } from '@hindsight/core';
import { defaultLogStream } from '@hindsight/gateway';
import { BUNDLED_SAMPLE_DIR, importBundledSample, repositoryDir } from '@hindsight/marketdata/import';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { generateApiKey } from './auth/api-key-values.ts';
import { loadSigningSecret } from './auth/signing-secret.ts';
import { type Database, openDatabase } from './db/database.ts';
import type { PlatformContext } from './http/context.ts';
import { buildServer } from './http/server.ts';
import { withMarketImportLock } from './market/import-lock.ts';
import { openMarketStore } from './market/market-store.ts';
import { PlatformMetrics } from './operations/platform-metrics.ts';
import { startWorkerServer } from './operations/worker-server.ts';
import { RegistryStore } from './registry/registry-store.ts';
import { ApiKeyRepository } from './repositories/api-keys.ts';
import { CatalogRepository } from './repositories/catalog.ts';
import { ConfigurationRepository } from './repositories/configurations.ts';
import { CursorCodec } from './repositories/pagination.ts';
import { ScenarioRepository } from './repositories/scenarios.ts';
import { StrategyRepository } from './repositories/strategies.ts';
import { UserRepository } from './repositories/users.ts';
import { VersionRepository } from './repositories/versions.ts';
import type { RunLimits } from './runner/scenario-run.ts';
import { ScenarioSignals } from './runner/scenario-signals.ts';
import { startWorker } from './runner/start-worker.ts';
import type { ScenarioWorker } from './runner/worker.ts';
import { autoRunVersion } from './scenarios/auto-run.ts';
import { ScenarioCreation } from './scenarios/scenario-creation.ts';
import { type PlatformSettings, SettingsError } from './settings.ts';
import { openPlatformBucket } from './storage/platform-bucket.ts';
import { readStorageSettings, type StorageSettings } from './storage/storage-settings.ts';

export const PLATFORM_VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;
export const DEFAULT_EXAMPLES_DIR = join(repositoryDir(), 'examples');
export const DEFAULT_SAMPLE_DIR = BUNDLED_SAMPLE_DIR;

export interface PlatformOptions {
  logLevel?: string;
  /** Overrides of the worker's run limits (tests shorten the grace periods). */
  runLimits?: Partial<RunLimits>;
  examplesDir?: string;
  sampleDir?: string;
  /** Where market data, registry blobs and result files live (default: read from HINDSIGHT_STORAGE_URL). */
  storage?: StorageSettings;
}

export interface SignIn {
  email: string;
  /** Only for the demo user, whose generated password is kept in the data dir. */
  password?: string;
  demo: boolean;
}

export interface RunningPlatform {
  app: FastifyInstance;
  /** The in-process scenario worker (absent with HINDSIGHT_WORKERS=0). */
  worker?: ScenarioWorker;
  /** What GET /metrics serves (absent with HINDSIGHT_METRICS=off). */
  metrics?: PlatformMetrics;
  ctx: PlatformContext;
  database: Database;
  url: string;
  signIn?: SignIn;
  close(): Promise<void>;
}

/** Opens storage and builds the API without listening (used by the CLI's offline commands too). */
export async function openPlatform(settings: PlatformSettings, options: PlatformOptions = {}) {
  const storage = options.storage ?? readStorageSettings(process.env);
  const database = await openDatabase(
    settings.databaseUrl
      ? { kind: 'postgres', url: settings.databaseUrl }
      : { kind: 'embedded', dataDir: settings.dataDir },
  );
  try {
    const signingSecret = loadSigningSecret(settings.dataDir, settings.secret);
    const cursors = new CursorCodec(signingSecret);
    const { db } = database;
    const bucket = openPlatformBucket(storage);
    const market = await openMarketStore(settings.dataDir, storage, bucket && { client: bucket.client });
    const versions = new VersionRepository(db, cursors);
    const registry = new RegistryStore(db, settings.dataDir, bucket?.registryBlobs);
    const catalog = new CatalogRepository(db, (symbol) => market.dataCoverage(symbol));
    const scenarios = new ScenarioRepository(db, cursors, bucket?.resultFiles);
    const signals = new ScenarioSignals();
    const ctx: PlatformContext = {
      db,
      signingSecret,
      users: new UserRepository(db),
      apiKeys: new ApiKeyRepository(db, cursors),
      strategies: new StrategyRepository(db, cursors),
      configurations: new ConfigurationRepository(db, cursors),
      versions,
      registry,
      catalog,
      scenarios,
      signals,
      scenarioCreation: new ScenarioCreation({
        scenarios,
        versions,
        registry,
        catalog,
        signals,
        quota: settings.runner.scenarioQuota,
      }),
      market,
      examplesDir: options.examplesDir ?? DEFAULT_EXAMPLES_DIR,
      version: PLATFORM_VERSION,
    };
    return { database, ctx, storage };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/**
 * The catalog definitions are refreshed at every start; an empty market store takes in the sample. In a
 * bucket several processes may start at once: the import lock lets one of them seed it.
 */
async function seedCatalog(ctx: PlatformContext, sampleDir: string, storage: StorageSettings): Promise<void> {
  await ctx.catalog.upsertDefinitions(instrumentSeed);
  const seed = async () => {
    if ((await ctx.market.symbols()).length === 0 && existsSync(sampleDir)) {
      await importBundledSample(ctx.market, sampleDir);
    }
  };
  if (storage.kind === 'data-dir') await seed();
  else if ((await ctx.market.symbols()).length === 0) await withMarketImportLock(ctx.db, seed);
}

const DEMO_EMAIL = 'demo@hindsight.local';

/** Admin from the environment, else on an empty store a demo user whose password is kept in the data dir. */
async function ensureSignIn(ctx: PlatformContext, settings: PlatformSettings): Promise<SignIn | undefined> {
  if (settings.admin) {
    await ctx.users.ensure(settings.admin.email, settings.admin.password);
    return { email: settings.admin.email, demo: false };
  }
  const demoFile = join(settings.dataDir, 'demo-user.json');
  if ((await ctx.users.count()) === 0) {
    const password = generateApiKey().slice(0, 16);
    await ctx.users.create(DEMO_EMAIL, password);
    writeFileSync(demoFile, JSON.stringify({ email: DEMO_EMAIL, password }), { mode: 0o600 });
  }
  if (!existsSync(demoFile)) return undefined;
  const demo = JSON.parse(readFileSync(demoFile, 'utf8')) as { email: string; password: string };
  return (await ctx.users.findByEmail(demo.email)) ? { ...demo, demo: true } : undefined;
}

export async function startPlatform(
  settings: PlatformSettings,
  options: PlatformOptions = {},
): Promise<RunningPlatform> {
  const { database, ctx, storage } = await openPlatform(settings, options);
  let app: FastifyInstance | undefined;
  let worker: ScenarioWorker | undefined;
  let metrics: PlatformMetrics | undefined;
  try {
    await seedCatalog(ctx, options.sampleDir ?? DEFAULT_SAMPLE_DIR, storage);
    const signIn = await ensureSignIn(ctx, settings);
    await ctx.registry.purgeStaleUploads();
    metrics = settings.metrics ? new PlatformMetrics(ctx.db, ctx.version, () => worker) : undefined;
    app = await buildServer(ctx, {
      logLevel: options.logLevel ?? 'info',
      operations: { workerExpected: settings.runner.workers > 0, worker: () => worker, metrics },
    });
    const log = app.log;
    ctx.registry.onImageReady = (versionId) => {
      autoRunVersion(ctx, versionId, log).catch((error: Error) =>
        log.error({ versionId, err: error }, 'auto-run failed'),
      );
    };
    await app.listen({ host: settings.host, port: settings.port });
    const address = app.server.address();
    const port = typeof address === 'object' && address ? address.port : settings.port;
    const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
    const url = `http://${host}:${port}`;
    if (settings.runner.workers > 0) {
      worker = await startWorker({
        ctx,
        runner: settings.runner,
        dataDir: settings.dataDir,
        registryUrl: settings.runner.registryUrl ?? url,
        log: log.child({ part: 'worker' }),
        embedded: database.backend === 'pglite',
        ...(options.runLimits && { limits: options.runLimits }),
        ...(metrics && { telemetry: metrics }),
      });
    }
    // A process without a worker of its own ends lapsed leases itself (a worker's claim loop does it
    // otherwise), so that a scenario whose only worker died is requeued or ends all the same.
    const reaper = worker
      ? undefined
      : setInterval(
          () => {
            ctx.scenarios
              .requeueAbandoned(settings.runner.maxAttempts)
              .then((ended) => {
                metrics?.scenariosAbandoned({ requeued: ended.requeued.length, failed: ended.failed.length });
                if (ended.requeued.length + ended.failed.length > 0)
                  log.warn(ended, 'ended the attempts of scenarios of a lost worker');
              })
              .catch((error: Error) => log.warn({ err: error }, 'lease check failed'));
          },
          Math.max(500, (settings.runner.leaseSeconds * 1000) / 2),
        );
    reaper?.unref();
    const running = app;
    const runningWorker = worker;
    return {
      app: running,
      ...(runningWorker && { worker: runningWorker }),
      ...(metrics && { metrics }),
      ctx,
      database,
      url,
      ...(signIn && { signIn }),
      close: async () => {
        clearInterval(reaper);
        await runningWorker?.stop();
        await running.close();
        await database.close();
      },
    };
  } catch (error) {
    await worker?.stop().catch(() => {});
    await app?.close().catch(() => {});
    await database.close();
    throw error;
  }
}

export interface RunningWorker {
  worker: ScenarioWorker;
  ctx: PlatformContext;
  /** Where the worker serves /livez, /readyz and /metrics (HINDSIGHT_WORKER_PORT), if it does. */
  operationsUrl?: string;
  /** Stops claiming, lets the runs in progress finish within the grace period, hands the rest back, closes the store. */
  close(): Promise<void>;
}

/**
 * A worker alone (`hindsight worker`): it shares the scenarios table of a PostgreSQL server with the
 * platform and any other workers, and pulls images from the platform's registry at `registryUrl`.
 * The embedded store belongs to one process (`hindsight start`, which runs its own worker), so a
 * separate worker needs `DATABASE_URL`.
 */
export async function runWorker(
  settings: PlatformSettings,
  options: { concurrency?: number; logLevel?: string; runLimits?: Partial<RunLimits> } = {},
): Promise<RunningWorker> {
  if (!settings.databaseUrl) {
    throw new SettingsError(
      'DATABASE_URL',
      'a worker of its own needs the PostgreSQL server the platform uses (the embedded store belongs to `hindsight start`, which runs its own workers: HINDSIGHT_WORKERS).',
    );
  }
  const { database, ctx } = await openPlatform(settings, options);
  let server: { app: FastifyInstance; url: string } | undefined;
  try {
    const log = pino({ level: options.logLevel ?? 'info' }, defaultLogStream());
    let worker: ScenarioWorker | undefined;
    const metrics =
      settings.workerPort !== undefined && settings.metrics
        ? new PlatformMetrics(ctx.db, ctx.version, () => worker)
        : undefined;
    // Listening first: a port taken stops the start before any scenario is claimed.
    server =
      settings.workerPort === undefined
        ? undefined
        : await startWorkerServer({
            db: ctx.db,
            worker: () => worker,
            metrics,
            host: settings.host,
            port: settings.workerPort,
          });
    worker = await startWorker({
      ctx,
      runner: settings.runner,
      dataDir: settings.dataDir,
      registryUrl: settings.runner.registryUrl ?? 'http://127.0.0.1:8000',
      log,
      embedded: false,
      ...(options.concurrency !== undefined && { concurrency: options.concurrency }),
      ...(options.runLimits && { limits: options.runLimits }),
      ...(metrics && { telemetry: metrics }),
    });
    const running = worker;
    const operations = server;
    log.info(
      { workerId: worker.id, executor: settings.runner.executor, operations: operations?.url },
      'scenario worker started',
    );
    return {
      worker: running,
      ctx,
      ...(operations && { operationsUrl: operations.url }),
      close: async () => {
        await running.stop();
        await operations?.app.close();
        await database.close();
      },
    };
  } catch (error) {
    await server?.app.close().catch(() => {});
    await database.close();
    throw error;
  }
}
