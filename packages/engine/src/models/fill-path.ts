/**
 * Where, inside one base bar, a resting order fills (docs/fills.md). Candle data hides the order of
 * prices within a bar, so every order assumes the same documented path: open, then the nearer
 * extreme, then the other extreme, then close. "Nearer" is judged on the mid so that bid and ask
 * orders see one consistent path. Buys are tested against ask prices, sells against bid prices.
 *
 * Gaps: an order whose price the bar opens through fills at the open: a stop at a worse price than
 * its trigger, a limit at a better price than its limit. Otherwise the fill is at the order's price,
 * which the path crossed, so a fill is never better than the bar allows.
 *
 * All prices are integers at one common scale (see `PriceScale` below); nothing here rounds.
 */

/** One side's prices of a bar, as integers at the order's comparison scale. */
export interface SidePrices {
  open: number;
  high: number;
  low: number;
  close: number;
}

/** The four path points in the order prices are assumed to have traded. */
export type PathPoints = readonly [number, number, number, number];

/** True when the high is reached before the low, judged on the mid (ties go high first). */
export function highFirst(bid: SidePrices, ask: SidePrices): boolean {
  const open = bid.open + ask.open;
  return bid.high + ask.high - open <= open - (bid.low + ask.low);
}

export function pathOf(side: SidePrices, highFirstOrder: boolean): PathPoints {
  return highFirstOrder
    ? [side.open, side.high, side.low, side.close]
    : [side.open, side.low, side.high, side.close];
}

export type Direction = 'BUY' | 'SELL';

/** A fill point on the path: the price and the path segment it happened on (0 = at the open). */
export interface PathFill {
  price: number;
  segment: number;
}

/**
 * A limit order: a buy fills when the ask trades at or below its limit, a sell when the bid trades at
 * or above it. At the open it fills at the open (the better price); later at the limit itself.
 */
export function limitFill(
  direction: Direction,
  limit: number,
  path: PathPoints,
  fromSegment = 0,
): PathFill | undefined {
  const crosses = direction === 'BUY' ? (p: number) => p <= limit : (p: number) => p >= limit;
  const start = fromSegment === 0 ? path[0] : undefined;
  if (start !== undefined && crosses(start)) return { price: start, segment: 0 };
  for (let s = Math.max(1, fromSegment); s < 4; s++) {
    if (crosses(path[s] as number)) return { price: limit, segment: s };
  }
  return undefined;
}

/**
 * A stop order: a buy stop triggers when the ask trades at or above the stop, a sell stop when the bid
 * trades at or below it. Through a gap at the open it fills at the open (the worse price); otherwise at
 * the stop price. The caller applies slippage to the result, as for any market fill.
 */
export function stopTrigger(direction: Direction, stop: number, path: PathPoints): PathFill | undefined {
  const reached = direction === 'BUY' ? (p: number) => p >= stop : (p: number) => p <= stop;
  if (reached(path[0])) return { price: path[0], segment: 0 };
  for (let s = 1; s < 4; s++) {
    if (reached(path[s] as number)) return { price: stop, segment: s };
  }
  return undefined;
}

/**
 * A stop-limit order: once the stop triggers, a limit at `limit` rests from the trigger point on. If the
 * trigger price already satisfies the limit it fills there; otherwise it fills when the rest of the
 * path reaches the limit, at the limit.
 */
export function stopLimitFill(
  direction: Direction,
  stop: number,
  limit: number,
  path: PathPoints,
): { trigger: PathFill; fill?: PathFill } | undefined {
  const trigger = stopTrigger(direction, stop, path);
  if (!trigger) return undefined;
  const marketable = direction === 'BUY' ? trigger.price <= limit : trigger.price >= limit;
  if (marketable) return { trigger, fill: trigger };
  for (let s = trigger.segment + 1; s < 4; s++) {
    const p = path[s] as number;
    if (direction === 'BUY' ? p <= limit : p >= limit) return { trigger, fill: { price: limit, segment: s } };
  }
  return { trigger };
}

/**
 * A trailing stop: a sell trails the best bid seen since placement (a buy the best ask) by a distance;
 * `stopFor(best)` turns the best price into the stop price. The best price is updated along the path,
 * and the stop can only trigger on a segment moving against the position. Returns the fill, if any,
 * and the best price at the end of the bar either way.
 */
export function trailingStopFill(
  direction: Direction,
  best: number,
  stopFor: (best: number) => number,
  path: PathPoints,
): { fill?: PathFill; best: number } {
  const improves = direction === 'SELL' ? (p: number, b: number) => p > b : (p: number, b: number) => p < b;
  const reached = direction === 'SELL' ? (p: number, s: number) => p <= s : (p: number, s: number) => p >= s;
  let currentBest = best;
  let stop = stopFor(currentBest);
  if (reached(path[0], stop)) return { fill: { price: path[0], segment: 0 }, best: currentBest };
  if (improves(path[0], currentBest)) {
    currentBest = path[0];
    stop = stopFor(currentBest);
  }
  for (let s = 1; s < 4; s++) {
    const p = path[s] as number;
    if (reached(p, stop)) return { fill: { price: stop, segment: s }, best: currentBest };
    if (improves(p, currentBest)) {
      currentBest = p;
      stop = stopFor(currentBest);
    }
  }
  return { best: currentBest };
}
