import { existsSync, readFileSync } from 'node:fs';
import type { InstrumentDefinition } from '@hindsight/core';
import type { Metrics, ResultFiles } from '@hindsight/engine';
import { type BarStore, openFileBarStore } from '@hindsight/marketdata';
import { BUNDLED_SAMPLE_DIR, importBundledSample } from '@hindsight/marketdata/import';
import type { FastifyInstance } from 'fastify';
import type pino from 'pino';
import type { GatewayContext } from './http/context.ts';
import { buildGatewayServer } from './http/server.ts';
import { GatewayLoggers } from './log-filter.ts';
import { CircuitBreakers } from './operations/circuit-breakers.ts';
import { GatewayMetrics } from './operations/gateway-metrics.ts';
import { IngressRateLimit } from './operations/rate-limit.ts';
import { OrderIdempotency } from './protocol/idempotency.ts';
import type { Provider, RunOutcome } from './provider/provider.ts';
import { readScenarioFile } from './provider/simulation/scenario.ts';
import { SimulationProvider } from './provider/simulation/simulation-provider.ts';
import { defaultResultsDir, writeRunResults } from './run-results.ts';
import { type GatewaySettings, SettingsError } from './settings.ts';
import { EventStream } from './stream/event-stream.ts';
import type { StrategyConnection } from './stream/strategy-connection.ts';

export const GATEWAY_VERSION: string = JSON.parse(
  readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
).version;

export const HEARTBEAT_MS = 15_000;
/** Close code of the end of a run whose strategy failed it (stall timeout). */
export const STRATEGY_FAILURE_CLOSE_CODE = 4001;

export interface GatewayOptions {
  /** Where log lines go (default stdout). */
  logDestination?: pino.DestinationStream;
  /** WebSocket ping interval, default 15 s. */
  heartbeatMs?: number;
  /** A provider built by the caller (the runner, or another provider implementation). */
  provider?: Provider;
  /** Simulation: the bar store (default: `<HINDSIGHT_DATA_DIR>/market`). */
  store?: BarStore;
  /** Simulation: instrument definitions (default: derived from the symbol). */
  instruments?: (symbol: string) => InstrumentDefinition | undefined;
  /** Write the result files at the end of a completed run (default true). */
  writeResults?: boolean;
  /** Wall clock of the breakers and the rate limit (tests). */
  clock?: () => number;
  /** Between SIGTERM and the end: how long /readyz answers 503 before the server closes (default 1 s). */
  shutdownGraceMs?: number;
}

export interface RunEnd {
  outcome: RunOutcome;
  /** Completed simulation runs: the files written and their metrics. */
  resultsDir?: string;
  files?: ResultFiles & { metrics: Metrics };
}

export interface RunningGateway {
  url: string;
  app: FastifyInstance;
  ctx: GatewayContext;
  provider: Provider;
  /** Settles when the provider's run is over: the strategy sockets are closed by then. */
  done: Promise<RunEnd>;
  /** SIGTERM: /readyz 503, new orders 503, sockets get DISCONNECTING and close; then the server closes. */
  shutdown(): Promise<void>;
  /** The first half of `shutdown`, for tests that observe the draining gateway. */
  beginShutdown(): void;
  close(): Promise<void>;
}

/** The data dir's market store; an empty one first takes in the bundled sample, as `hindsight start` does. */
export async function fileStoreWithSample(dataDir: string): Promise<BarStore> {
  const store = openFileBarStore(dataDir);
  if ((await store.symbols()).length === 0 && existsSync(BUNDLED_SAMPLE_DIR)) {
    await importBundledSample(store, BUNDLED_SAMPLE_DIR);
  }
  return store;
}

async function createProvider(settings: GatewaySettings, options: GatewayOptions): Promise<Provider> {
  if (options.provider) return options.provider;
  switch (settings.provider) {
    case 'simulation': {
      const store = options.store ?? (await fileStoreWithSample(settings.dataDir));
      const scenario = await readScenarioFile(settings.scenarioFile as string, store, options.instruments);
      return new SimulationProvider({
        scenario,
        store,
        rateLimitPerMinute: settings.rateLimitPerMinute,
        mode: settings.mode === 'paper' ? 'paper' : 'simulation',
        replaySpeed: settings.replaySpeed,
      });
    }
  }
}

export async function startGateway(
  settings: GatewaySettings,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const logs = new GatewayLoggers(settings.log, options.logDestination);
  const log = logs.for('gateway');
  const provider = await createProvider(settings, options);
  const clock = options.clock ?? Date.now;
  const metrics = new GatewayMetrics(provider.name, () => provider.health().connected);
  const stream = new EventStream({
    stallTimeoutMs: settings.stallTimeoutMs,
    onPublished: (count) => metrics.eventsPublished(count),
  });
  const ctx: GatewayContext = {
    settings,
    provider,
    stream,
    breakers: new CircuitBreakers(clock),
    metrics,
    rateLimit: new IngressRateLimit(settings.rateLimitPerMinute, clock),
    idempotency: new OrderIdempotency(),
    logs,
    log,
    version: GATEWAY_VERSION,
    heartbeatMs: options.heartbeatMs ?? HEARTBEAT_MS,
    lifecycle: { shuttingDown: false },
  };
  provider.attach({ sink: stream, telemetry: metrics });
  const connections = new Set<StrategyConnection>();
  const app = await buildGatewayServer(ctx, connections);
  try {
    await app.listen({ host: settings.host, port: settings.port });
  } catch (error) {
    await app.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      throw new SettingsError(
        'GATEWAY_PORT',
        `port ${settings.port} on ${settings.host} is already in use; set GATEWAY_PORT to a free port.`,
      );
    }
    if (code === 'EADDRNOTAVAIL' || code === 'EACCES' || code === 'ENOTFOUND') {
      throw new SettingsError(
        'GATEWAY_HOST',
        `cannot listen on ${settings.host}:${settings.port} (${code}).`,
      );
    }
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const url = `http://${settings.host.includes(':') ? `[${settings.host}]` : settings.host}:${port}`;
  if (settings.apiKey === undefined) {
    log.warn('GATEWAY_API_KEY is unset: the gateway runs unauthenticated; keep it bound to a local address');
  }
  log.info({ url, provider: provider.name, mode: provider.mode }, 'trading gateway listening');

  const endAll = (event: Record<string, unknown>, code: number, reason: string) => {
    stream.broadcast({ type: 'connection', timestamp: new Date(provider.now).toISOString(), ...event });
    for (const connection of connections) connection.close(code, reason);
  };

  const done = provider.finished.then(async (outcome): Promise<RunEnd> => {
    const end: RunEnd = { outcome };
    const files = outcome.kind === 'completed' ? provider.results?.() : undefined;
    if (files) {
      end.files = files;
      if (options.writeResults !== false) {
        end.resultsDir = settings.resultsDir ?? defaultResultsDir();
        await writeRunResults(end.resultsDir, end.files);
      }
    }
    if (outcome.kind === 'completed') {
      logs.for('gateway::run').info({ resultsDir: end.resultsDir }, 'run completed');
      endAll({ event: 'DISCONNECTING' }, 1000, 'end of backtest');
    } else {
      logs.for('gateway::run').error({ errorType: outcome.errorType }, outcome.message);
      endAll({ event: 'DISCONNECTING', error: outcome.message }, STRATEGY_FAILURE_CLOSE_CODE, 'run failed');
    }
    return end;
  });
  done.catch(() => undefined);

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      ctx.lifecycle.shuttingDown = true;
      stream.close();
      await provider.close();
      for (const connection of connections) connection.close(1001, 'gateway closing');
      await app.close();
    })();
    return closing;
  };
  const beginShutdown = () => {
    if (ctx.lifecycle.shuttingDown) return;
    ctx.lifecycle.shuttingDown = true;
    log.info('shutting down: /readyz answers 503 and new orders are refused');
    endAll({ event: 'DISCONNECTING', error: 'the gateway is shutting down' }, 1001, 'gateway shutting down');
  };
  return {
    url,
    app,
    ctx,
    provider,
    done,
    beginShutdown,
    async shutdown() {
      beginShutdown();
      await new Promise((resolve) => setTimeout(resolve, options.shutdownGraceMs ?? 1000));
      await close();
    },
    close,
  };
}
