import {
  InProcessGateway,
  type InProcessRunEnd,
  type Scenario,
  SimulationProvider,
} from '@hindsight/gateway';
import type { BarStore } from '@hindsight/marketdata';
import type { ParamDefaults, Params } from '../params.ts';
import type { Strategy } from '../strategy.ts';
import { StrategyRun } from '../strategy-run.ts';
import { EngineVenue } from './engine-venue.ts';

/**
 * Runs a strategy in this process against the simulation engine: no sockets, no JSON text, the
 * provider's events handed to the handlers as objects (docs/sdk.md, Running). The provider, the
 * trading service and the engine are the ones a gateway runs, so the result files are byte for byte
 * those of the same strategy over the wire.
 */
export interface InProcessOptions {
  scenario: Scenario;
  store: BarStore;
  /** `--param name=value` overrides, over the scenario's `env`. */
  params?: Readonly<Record<string, string>>;
  /** Stamped in the result metadata (default the engine's version). */
  engineVersion?: string;
  /** Where `ctx.log` lines go (default stderr). */
  log?: (line: string) => void;
  /** Called about every `progressMs` (default 250) with simulated time and the candles handled so far. */
  onProgress?: (simulatedMs: number, candles: number) => void;
  progressMs?: number;
}

export interface InProcessResult<P extends ParamDefaults = ParamDefaults> extends InProcessRunEnd {
  params: Params<P>;
}

export async function runInProcess<P extends ParamDefaults>(
  strategy: Strategy<P>,
  options: InProcessOptions,
): Promise<InProcessResult<P>> {
  const provider = new SimulationProvider({
    scenario: options.scenario,
    store: options.store,
    rateLimitPerMinute: Number.MAX_SAFE_INTEGER,
    ...(options.engineVersion !== undefined && { engineVersion: options.engineVersion }),
  });
  const gateway = new InProcessGateway(provider);
  const run = new StrategyRun(strategy, {
    env: options.scenario.env ?? {},
    ...(options.params && { overrides: options.params }),
    venue: new EngineVenue(gateway),
    drained: () => gateway.drained(),
    ...(options.log && { log: options.log }),
    subscriptions: options.scenario.subscriptions,
  });
  const { dispatcher, handlers, ctx } = run;
  await run.start();
  // The dispatcher is the strategy the gateway drives: it receives the events and says when it is busy.
  const replay = gateway.run(dispatcher);
  const { onProgress } = options;
  const progress =
    onProgress && setInterval(() => onProgress(provider.now, dispatcher.candles), options.progressMs ?? 250);
  try {
    // A handler that throws stops the run at once: the provider is closed and waits no longer.
    await Promise.race([replay, run.failed]);
  } finally {
    if (progress) clearInterval(progress);
  }
  if (run.failure) {
    await provider.close();
    gateway.drained();
    run.throwIfFailed();
  }
  const end = await replay;
  if (handlers.onEnd) await dispatcher.run(() => handlers.onEnd?.(ctx));
  run.throwIfFailed();
  return { ...end, params: run.params };
}
