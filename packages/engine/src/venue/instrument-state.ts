import { DEC_ZERO, Dec, ticksToDecimalString } from '@hindsight/core';
import type { CandleAggregator } from '../candles/candle-aggregator.ts';
import type { InstrumentMatcher } from '../matching/instrument-matcher.ts';
import { TickQuote } from '../numbers/tick-quote.ts';
import type { EngineInstrument, UpdateKind } from './engine-config.ts';

/**
 * What the venue holds per instrument while a run goes on: its resting orders (the matcher), the last
 * quote and bar volume, its candles and the updates its subscription asked for.
 */
export interface InstrumentState {
  spec: EngineInstrument;
  matcher: InstrumentMatcher;
  candles: CandleAggregator[];
  updates: ReadonlySet<UpdateKind>;
  /** Last closing quote, integers at `priceDecimals`. */
  bid: number;
  ask: number;
  priceDecimals: number;
  hasQuote: boolean;
  /** The same quote, its decimals made once per bar when an order needs them. */
  quote: TickQuote;
  /** The asset class's default leverage: positions are margined at it. */
  leverage: Dec;
  /** The last bar's volume (ticks) and what fills have taken of it under a participation limit. */
  volume: number;
  volumeDecimals: number;
  consumed: Dec;
  /** Whether the books need this quote every bar: an open position, or a currency-conversion pair. */
  marked: boolean;
  /** The book's mark of this symbol once it has one (updated in place, bar by bar). */
  mark: TickQuote | undefined;
}

/** An instrument before its first bar: no quote, nothing resting. */
export function newInstrumentState(fields: {
  spec: EngineInstrument;
  matcher: InstrumentMatcher;
  candles: CandleAggregator[];
  updates: ReadonlySet<UpdateKind>;
  leverage: Dec;
  marked: boolean;
}): InstrumentState {
  return {
    spec: fields.spec,
    matcher: fields.matcher,
    candles: fields.candles,
    updates: fields.updates,
    bid: 0,
    ask: 0,
    priceDecimals: 0,
    hasQuote: false,
    quote: new TickQuote(0, 0, 0),
    leverage: fields.leverage,
    volume: 0,
    volumeDecimals: 0,
    consumed: DEC_ZERO,
    marked: fields.marked,
    mark: undefined,
  };
}

/**
 * Units the current bar still offers an order under the volume-participation limit: the limit x the
 * bar's volume, less what fills took from it; undefined when no limit is configured.
 */
export function availableUnits(state: InstrumentState, participation: Dec | undefined): Dec | undefined {
  if (!participation) return undefined;
  const volume = new Dec(ticksToDecimalString(state.volume, state.volumeDecimals));
  const left = participation.times(volume).minus(state.consumed);
  return left.gt(DEC_ZERO) ? left : DEC_ZERO;
}
