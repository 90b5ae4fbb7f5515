import { CandleHistory } from './candle-history.ts';
import { Context } from './context.ts';
import { Dispatcher } from './dispatcher.ts';
import { type ParamDefaults, type Params, resolveParams } from './params.ts';
import { createHandlers, type Handlers, type Strategy } from './strategy.ts';
import { type Subscription, subscriptionWarnings } from './subscriptions.ts';
import type { Venue } from './venue.ts';

/**
 * One run of a strategy, as both runners set it up: its parameters and handlers, the dispatcher
 * that hands them events and the context they act through. The runners differ only in the venue
 * and in what `drained` does (acknowledge over the socket, or let the engine step).
 */
export interface RunSetup {
  /** Where parameters are read: the environment, or the scenario's `env`. */
  env: Readonly<Record<string, string | undefined>>;
  /** `--param` overrides. */
  overrides?: Readonly<Record<string, string>>;
  venue: Venue;
  /** Everything received so far is handled. */
  drained: () => void;
  /** Where `ctx.log` lines go (default stderr). */
  log?: (line: string) => void;
  /** What the run delivers, when known: the scenario's subscriptions, or PLATFORM_SUBSCRIPTIONS. */
  subscriptions?: readonly Subscription[] | undefined;
}

export class StrategyRun<P extends ParamDefaults> {
  readonly params: Params<P>;
  readonly handlers: Handlers<P>;
  readonly dispatcher: Dispatcher<P>;
  readonly ctx: Context<P>;
  /** The first failure of a handler, once there is one. */
  failure: { error: unknown } | undefined;
  /** Resolves with the first failure of a handler. */
  readonly failed: Promise<unknown>;

  constructor(strategy: Strategy<P>, setup: RunSetup) {
    this.params = resolveParams(strategy.params, setup.env, setup.overrides);
    this.handlers = createHandlers(strategy, this.params);
    const history = new CandleHistory();
    let failed!: (error: unknown) => void;
    this.failed = new Promise((resolve) => {
      failed = resolve;
    });
    this.dispatcher = new Dispatcher<P>(this.handlers, history, setup.drained, (error) => {
      this.failure ??= { error };
      failed(error);
    });
    const log = setup.log ?? ((line: string) => process.stderr.write(`${line}\n`));
    this.ctx = new Context<P>(this.params, setup.venue, history, this.dispatcher, log);
    this.dispatcher.ctx = this.ctx;
    // Before onStart: a handler that can never fire, or a declared event the run does not deliver.
    for (const line of subscriptionWarnings(strategy.subscriptions, this.handlers, setup.subscriptions)) {
      log(`warning: ${line}`);
    }
  }

  /** Throws the first failure of a handler, if there was one. */
  throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }

  /** onStart, before any event is handled (events that arrive meanwhile wait for it). */
  start(): Promise<void> {
    const { onStart } = this.handlers;
    return onStart ? this.dispatcher.run(() => onStart.call(this.handlers, this.ctx)) : Promise.resolve();
  }
}
