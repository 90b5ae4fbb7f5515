import assert from 'node:assert/strict';
import type { BidAskBarBatch } from '@hindsight/core';
import { type BarCursor, type EngineConfig, type EngineEvent, SimulationEngine } from '../../src/index.ts';

/** A one-instrument engine over hand-written bars, for rule-by-rule tests. */
export const MINUTE = 60_000;
export const START = Date.parse('2024-01-01T23:55:00Z');

/** Bars in cents (2 decimals) for one instrument: [bidOpen, bidHigh, bidLow, bidClose]; ask = bid + 2. */
export function cursorOf(
  rows: [number, number, number, number][],
  start = START,
  /** Volume of every bar (units). */
  volume = 1,
): BarCursor {
  return cursorFrom(
    rows.map((_, i) => start + i * MINUTE),
    rows,
    volume,
  );
}

/** The same at given UTC times, holes allowed: [ISO time, bidOpen, bidHigh, bidLow, bidClose]. */
export function cursorAt(rows: [string, number, number, number, number][]): BarCursor {
  return cursorFrom(
    rows.map((r) => Date.parse(r[0])),
    rows.map(([, o, h, l, c]) => [o, h, l, c]),
    1,
  );
}

function cursorFrom(times: number[], rows: [number, number, number, number][], volume: number): BarCursor {
  const n = rows.length;
  const col = (f: (i: number) => number) => Float64Array.from({ length: n }, (_, i) => f(i));
  const side = (k: number, add: number) => col((i) => ((rows[i] as number[])[k] as number) + add);
  const batch: BidAskBarBatch = {
    symbol: 'C:BTCUSD',
    priceDecimals: 2,
    volumeDecimals: 0,
    length: n,
    time: col((i) => times[i] as number),
    bidOpen: side(0, 0),
    bidHigh: side(1, 0),
    bidLow: side(2, 0),
    bidClose: side(3, 0),
    askOpen: side(0, 2),
    askHigh: side(1, 2),
    askLow: side(2, 2),
    askClose: side(3, 2),
    volume: col(() => volume),
  };
  let row = -1;
  return {
    next: () => ++row < n,
    get time() {
      return batch.time[row] as number;
    },
    symbolIndex: 0,
    batch,
    get row() {
      return row;
    },
  };
}

export function engineFor(extra: Partial<EngineConfig> = {}) {
  return new SimulationEngine(
    {
      instruments: [
        { symbol: 'C:BTCUSD', market: 'CRYPTO', underlying: 'BTC', denomination: 'USD', calendar: 'utc' },
      ],
      subscriptions: [
        { instrument: 'C:BTCUSD', timeframes: ['1m'], updates: ['order_update', 'position_update'] },
      ],
      startTime: START,
      endTime: START + 60 * MINUTE,
      positionMode: 'netting',
      initialCapital: '100000',
      assertIdentity: true,
      ...extra,
    },
    ['C:BTCUSD'],
  );
}

/**
 * Runs until the first batch (the first bar's candle, delivered when the next bar shows the group is
 * complete), so the engine has a current quote.
 */
export function firstBatch(engine: SimulationEngine, cursor: BarCursor): EngineEvent[] {
  const step = engine.advance(cursor);
  assert.equal(step.kind, 'events');
  return step.kind === 'events' ? step.events : [];
}

/** Runs the cursor to its end and returns every event. */
export function runAll(engine: SimulationEngine, cursor: BarCursor): EngineEvent[] {
  const events: EngineEvent[] = [];
  for (;;) {
    const step = engine.advance(cursor);
    if (step.kind !== 'events') break;
    events.push(...step.events);
  }
  return [...events, ...engine.endOfData()];
}
