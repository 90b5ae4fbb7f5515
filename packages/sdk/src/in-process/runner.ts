import {
  InProcessGateway,
  type InProcessRunEnd,
  type Scenario,
  SimulationProvider,
} from '@hindsight/gateway';
import type { BarStore } from '@hindsight/marketdata';
import { CandleHistory } from '../candle-history.ts';
import { Context } from '../context.ts';
import { Dispatcher } from '../dispatcher.ts';
import { type ParamDefaults, type Params, resolveParams } from '../params.ts';
import { createHandlers, type Strategy } from '../strategy.ts';
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
  const params = resolveParams(strategy.params, options.scenario.env ?? {}, options.params ?? {});
  const handlers = createHandlers(strategy, params);
  const provider = new SimulationProvider({
    scenario: options.scenario,
    store: options.store,
    rateLimitPerMinute: Number.MAX_SAFE_INTEGER,
    ...(options.engineVersion !== undefined && { engineVersion: options.engineVersion }),
  });
  const gateway = new InProcessGateway(provider);
  const history = new CandleHistory();
  let failure: { error: unknown } | undefined;
  let failed: (() => void) | undefined;
  const dispatcher = new Dispatcher<P>(
    handlers,
    history,
    () => gateway.drained(),
    (error) => {
      failure = { error };
      failed?.();
    },
  );
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const ctx = new Context<P>(params, new EngineVenue(gateway), history, dispatcher, log);
  dispatcher.ctx = ctx;

  if (handlers.onStart) await dispatcher.run(() => handlers.onStart?.(ctx));
  // A handler that throws stops the run at once: the provider is closed and waits no longer.
  const stopped = new Promise<void>((resolve) => {
    failed = resolve;
  });
  const run = gateway.run({
    receive: (events) => dispatcher.receive(events as never),
    get busy() {
      return dispatcher.busy;
    },
  });
  const { onProgress } = options;
  const progress =
    onProgress && setInterval(() => onProgress(provider.now, dispatcher.candles), options.progressMs ?? 250);
  try {
    await Promise.race([run, stopped]);
  } finally {
    if (progress) clearInterval(progress);
  }
  if (failure) {
    await provider.close();
    gateway.drained();
    throw failure.error;
  }
  const end = await run;
  if (handlers.onEnd) await dispatcher.run(() => handlers.onEnd?.(ctx));
  // onEnd's own failure (set by the dispatcher's callback, which the compiler cannot see).
  const late = failure as { error: unknown } | undefined;
  if (late) throw late.error;
  return { ...end, params };
}
