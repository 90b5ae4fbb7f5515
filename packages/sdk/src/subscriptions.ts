import { StrategyDefinitionError } from './errors.ts';

/**
 * What a strategy declares it needs (`defineStrategy({ subscriptions })`, docs/sdk.md,
 * Subscriptions), and the warnings a run gives when it delivers something else: a declared event
 * the run does not deliver, a handler no delivered event can call.
 */
export interface Subscription {
  instrument: string;
  events: readonly string[];
}

/**
 * The events a subscription names: @hindsight/core's TIMEFRAMES and UPDATE_EVENTS, which the
 * scenario validation accepts. Written out here because importing @hindsight/core would put zod and
 * the configuration schemas in every bundled strategy (218 KB to 1 MB); a test pins them to core's.
 */
export const TIMEFRAMES = [
  '1m',
  '2m',
  '5m',
  '10m',
  '15m',
  '30m',
  '1h',
  '2h',
  '4h',
  '12h',
  '1d',
  '1w',
] as const;
export const UPDATE_EVENTS = ['order_update', 'position_update', 'account_update', 'trade_update'] as const;
export type EventName = `candle_${(typeof TIMEFRAMES)[number]}` | (typeof UPDATE_EVENTS)[number];
export const EVENT_NAMES: readonly string[] = [...TIMEFRAMES.map((tf) => `candle_${tf}`), ...UPDATE_EVENTS];

/** A strategy's declaration: an instrument and the events its handlers need. */
export interface SubscriptionDeclaration extends Subscription {
  events: readonly EventName[];
}

const isCandle = (event: string) => event.startsWith('candle_');

/** A strategy's declaration checked; a StrategyDefinitionError names what is wrong. */
export function checkSubscriptions(value: unknown): SubscriptionDeclaration[] {
  const shape = 'an array of {instrument, events}, e.g. [{ instrument: "C:BTCUSD", events: ["candle_1m"] }]';
  if (!Array.isArray(value) || value.length === 0)
    throw new StrategyDefinitionError(`subscriptions: ${shape}`);
  const seen = new Set<string>();
  return value.map((item: unknown, i) => {
    const at = `subscriptions[${i}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new StrategyDefinitionError(`${at}: ${shape}`);
    }
    const { instrument, events, ...rest } = item as Record<string, unknown>;
    const extra = Object.keys(rest)[0];
    if (extra !== undefined) {
      throw new StrategyDefinitionError(`${at}: ${extra} is no field of a subscription (instrument, events)`);
    }
    if (typeof instrument !== 'string' || instrument.trim() === '') {
      throw new StrategyDefinitionError(`${at}.instrument: a platform symbol such as "C:BTCUSD"`);
    }
    if (seen.has(instrument)) {
      throw new StrategyDefinitionError(`${at}: ${instrument} is declared twice; merge its events into one`);
    }
    seen.add(instrument);
    if (!Array.isArray(events) || events.length === 0) {
      throw new StrategyDefinitionError(`${at}.events: a non-empty array of event names, e.g. ["candle_1m"]`);
    }
    for (const [j, event] of events.entries()) {
      if (typeof event !== 'string' || !EVENT_NAMES.includes(event)) {
        throw new StrategyDefinitionError(
          `${at}.events[${j}]: ${JSON.stringify(event)} is no event; events: ${EVENT_NAMES.join(', ')}`,
        );
      }
    }
    if (!events.some(isCandle)) {
      throw new StrategyDefinitionError(
        `${at}.events: name a candle_<timeframe>; update events alone replay nothing`,
      );
    }
    return { instrument, events: [...events] as EventName[] };
  });
}

/**
 * PLATFORM_SUBSCRIPTIONS, the subscriptions a run over the wire delivers (a JSON array of
 * {instrument, events}); undefined when it is not set, as against a standalone gateway.
 */
export function deliveredSubscriptions(text: string | undefined): Subscription[] | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new StrategyDefinitionError('PLATFORM_SUBSCRIPTIONS is not valid JSON');
  }
  if (!Array.isArray(value)) {
    throw new StrategyDefinitionError('PLATFORM_SUBSCRIPTIONS must be a JSON array of {instrument, events}');
  }
  return value.filter(
    (s): s is Subscription => typeof s?.instrument === 'string' && Array.isArray(s?.events),
  );
}

/** Whether a delivered event pattern (`candle_1m`, `candle_*`, `candle_*m`, `candle_{1,5}m`...) covers an event. */
function covers(pattern: string, event: string): boolean {
  if (pattern === event) return true;
  if (!isCandle(pattern) || !isCandle(event)) return false;
  const [body, tf] = [pattern.slice(7), event.slice(7)];
  if (body === '*') return true;
  if (body === '*m' || body === '*h') return tf.endsWith(body.slice(1));
  const list = /^\{([0-9,]+)\}m$/.exec(body)?.[1];
  return list !== undefined && tf.endsWith('m') && list.split(',').includes(tf.slice(0, -1));
}

/** The handlers that only the events of one kind call. */
const HANDLER_EVENTS = [
  ['onCandle', 'candle_<timeframe>', isCandle],
  ['onOrder', 'order_update', (e: string) => e === 'order_update'],
  ['onTrade', 'trade_update', (e: string) => e === 'trade_update'],
  ['onPosition', 'position_update', (e: string) => e === 'position_update'],
  ['onAccount', 'account_update', (e: string) => e === 'account_update'],
] as const;

/**
 * The warnings of a run, one line each: every declared (instrument, event) the run does not
 * deliver, and every handler no delivered event calls. None when what the run delivers is unknown.
 */
export function subscriptionWarnings(
  declared: readonly Subscription[] | undefined,
  handlers: object,
  delivered: readonly Subscription[] | undefined,
): string[] {
  if (!delivered) return [];
  const warnings: string[] = [];
  const delivers = (instrument: string, event: string) =>
    delivered.some((s) => s.instrument === instrument && s.events.some((p) => covers(p, event)));
  const what = delivered.map((s) => `${s.instrument} ${s.events.join(', ')}`).join('; ') || 'no subscription';
  for (const { instrument, events } of declared ?? []) {
    for (const event of events) {
      if (!delivers(instrument, event)) {
        warnings.push(
          `the strategy subscribes to ${instrument} ${event}, which this run does not deliver (it delivers ${what})`,
        );
      }
    }
  }
  const patterns = delivered.flatMap((s) => s.events);
  for (const [handler, event, test] of HANDLER_EVENTS) {
    const defined = typeof (handlers as Record<string, unknown> | null)?.[handler] === 'function';
    // A pattern's candles are candles: `candle_*` starts with `candle_` as `candle_1m` does.
    if (defined && !patterns.some(test)) {
      warnings.push(`${handler} is never called: this run delivers no ${event} (it delivers ${what})`);
    }
  }
  return warnings;
}
