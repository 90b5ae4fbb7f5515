/**
 * `@hindsight/sdk`: write a strategy as handlers, parameters and subscriptions (`defineStrategy`)
 * and run it over the wire (`run`, what a strategy's image starts). `@hindsight/sdk/in-process` runs
 * the same strategy in this process against the engine. docs/sdk.md is the reference.
 */
export { Decimal } from 'decimal.js';
export type { Context } from './context.ts';
export { HindsightError, StrategyDefinitionError } from './errors.ts';
export { envName, type ParamDefaults, type Params, resolveParams } from './params.ts';
export type * from './resources.ts';
export {
  defineStrategy,
  type Handlers,
  type Strategy,
  type StrategyDefinition,
  strategyOf,
} from './strategy.ts';
export {
  EVENT_NAMES,
  type EventName,
  type Subscription,
  type SubscriptionDeclaration,
  subscriptionWarnings,
} from './subscriptions.ts';
export { run, runOverWire, type WireOptions } from './wire/runner.ts';
