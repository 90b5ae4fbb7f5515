import type { Context } from './context.ts';
import { StrategyDefinitionError } from './errors.ts';
import type { ParamDefaults, Params } from './params.ts';
import type { AccountUpdate, Candle, ErrorEvent, OrderUpdate, PositionUpdate, Trade } from './resources.ts';
import { checkSubscriptions, type SubscriptionDeclaration } from './subscriptions.ts';

/**
 * A strategy: declared parameters, the subscriptions it needs and `create`, which runs once per
 * backtest and returns the handlers (docs/sdk.md). State kept in `create`'s closure belongs to that run.
 */
type MaybePromise = void | Promise<void>;

export interface Handlers<P extends ParamDefaults = ParamDefaults> {
  onStart?(ctx: Context<P>): MaybePromise;
  onCandle?(candle: Candle, ctx: Context<P>): MaybePromise;
  onOrder?(update: OrderUpdate, ctx: Context<P>): MaybePromise;
  onTrade?(trade: Trade, ctx: Context<P>): MaybePromise;
  onPosition?(update: PositionUpdate, ctx: Context<P>): MaybePromise;
  onAccount?(update: AccountUpdate, ctx: Context<P>): MaybePromise;
  onError?(error: ErrorEvent, ctx: Context<P>): MaybePromise;
  onEnd?(ctx: Context<P>): MaybePromise;
}

export interface StrategyDefinition<P extends ParamDefaults = ParamDefaults> {
  /** Shown in logs and reports (default: the file's name). */
  name?: string;
  /** Each parameter with its default (docs/sdk.md, Parameters). */
  params?: P;
  /**
   * What the handlers need, e.g. `[{ instrument: 'C:BTCUSD', events: ['candle_1m', 'order_update'] }]`:
   * `hindsight backtest` uses it for a scenario without subscriptions, and a run that delivers
   * something else logs a warning (docs/sdk.md, Subscriptions).
   */
  subscriptions?: readonly SubscriptionDeclaration[];
  create(params: Params<P>): Handlers<P>;
}

/** What `defineStrategy` returns and a strategy module exports by default. */
export interface Strategy<P extends ParamDefaults = ParamDefaults> extends StrategyDefinition<P> {
  readonly params: P;
  readonly kind: 'hindsight-strategy';
}

const HANDLER_NAMES = [
  'onStart',
  'onCandle',
  'onOrder',
  'onTrade',
  'onPosition',
  'onAccount',
  'onError',
  'onEnd',
] as const;

export function defineStrategy<P extends ParamDefaults = Record<never, never>>(
  definition: StrategyDefinition<P>,
): Strategy<P> {
  if (typeof definition?.create !== 'function') {
    throw new StrategyDefinitionError('defineStrategy needs create(params), returning the handlers');
  }
  for (const [name, value] of Object.entries(definition.params ?? {})) {
    if (!['number', 'string', 'boolean'].includes(typeof value)) {
      throw new StrategyDefinitionError(
        `parameter ${name}: its default must be a number, a string or a boolean, not ${typeof value}`,
      );
    }
  }
  return {
    ...definition,
    params: (definition.params ?? {}) as P,
    ...(definition.subscriptions !== undefined && {
      subscriptions: checkSubscriptions(definition.subscriptions),
    }),
    kind: 'hindsight-strategy',
  };
}

/** The handlers of one run, checked: an unknown handler name is a misspelling the author wants to hear of. */
export function createHandlers<P extends ParamDefaults>(
  strategy: Strategy<P>,
  params: Params<P>,
): Handlers<P> {
  const handlers = strategy.create(params);
  if (handlers === null || typeof handlers !== 'object') {
    throw new StrategyDefinitionError(
      'create(params) must return an object of handlers (onCandle, onOrder...)',
    );
  }
  for (const key of Object.keys(handlers)) {
    if (!(HANDLER_NAMES as readonly string[]).includes(key)) {
      throw new StrategyDefinitionError(
        `create(params) returned ${key}, which is no handler; handlers: ${HANDLER_NAMES.join(', ')}`,
      );
    }
  }
  return handlers;
}

/** The strategy a module exports: its default export, or the module itself when it is one. */
export function strategyOf(module: unknown, file: string): Strategy {
  const candidates = [(module as { default?: unknown })?.default, module];
  for (const candidate of candidates) {
    if ((candidate as Strategy | undefined)?.kind === 'hindsight-strategy') return candidate as Strategy;
  }
  throw new StrategyDefinitionError(
    `${file} exports no strategy: make its default export defineStrategy({...}) from @hindsight/sdk`,
  );
}
