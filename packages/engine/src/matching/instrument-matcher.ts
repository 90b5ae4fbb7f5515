import { Dec } from '@hindsight/core';
import {
  type Direction,
  highFirst,
  limitFill,
  type PathFill,
  type PathPoints,
  pathOf,
  type SidePrices,
  stopLimitFill,
  stopTrigger,
  trailingStopFill,
} from '../models/fill-path.ts';

/**
 * The matching engine of one instrument: it holds the resting orders and, for each base bar, finds
 * which of them the bar fills and at what pre-slippage price (docs/fills.md). It knows nothing of
 * accounts or positions: the engine applies slippage, costs, positions and one-cancels-other to what
 * it reports. Bar prices are integers at `priceDecimals`; order prices are decimals, compared exactly
 * at a common integer scale.
 */
export type RestingKind = 'LIMIT' | 'STOP' | 'STOP_LIMIT' | 'TRAILING_STOP';

export interface RestingOrder {
  id: string;
  direction: Direction;
  kind: RestingKind;
  limit?: Dec;
  stop?: Dec;
  /** Trailing stops: the distance as a price offset or a percentage of the best price. */
  trailing?: { type: 'ABSOLUTE' | 'PERCENT'; distance: Dec; best: Dec };
  /** A stop-limit whose stop has triggered rests as a limit. */
  triggered?: boolean;
}

/** One base bar of this instrument, bid and ask sides as integers at `priceDecimals`. */
export interface MatcherBar {
  priceDecimals: number;
  bid: SidePrices;
  ask: SidePrices;
}

export interface FillIntent {
  orderId: string;
  /** The pre-slippage fill price. */
  price: Dec;
  /** Path segment of the fill (0 = at the open), to order fills within the bar. */
  segment: number;
}

export interface BarOutcome {
  fills: FillIntent[];
  /** Stop-limits whose stop triggered in this bar without filling: they now rest as limits. */
  triggered: string[];
}

const decimalsOf = (d: Dec) => Math.max(0, d.decimalPlaces());

export class InstrumentMatcher {
  private readonly orders = new Map<string, RestingOrder>();

  constructor(readonly symbol: string) {}

  add(order: RestingOrder): void {
    this.orders.set(order.id, { ...order });
  }

  remove(orderId: string): boolean {
    return this.orders.delete(orderId);
  }

  has(orderId: string): boolean {
    return this.orders.has(orderId);
  }

  get(orderId: string): RestingOrder | undefined {
    return this.orders.get(orderId);
  }

  /** Replaces prices of a resting order in place (the order keeps its id). */
  update(orderId: string, changes: Partial<Pick<RestingOrder, 'limit' | 'stop' | 'trailing'>>): void {
    const order = this.orders.get(orderId);
    if (order) Object.assign(order, changes);
  }

  /** Ids of the resting orders, in insertion order. */
  ids(): string[] {
    return [...this.orders.keys()];
  }

  get size(): number {
    return this.orders.size;
  }

  /**
   * Evaluates every resting order against one bar, in insertion order, and returns the fills sorted
   * by when they happened on the path (ties keep insertion order). Filled orders leave the book;
   * triggered stop-limits stay as limits; trailing stops keep their new best price.
   */
  onBar(bar: MatcherBar): BarOutcome {
    const fills: FillIntent[] = [];
    const triggered: string[] = [];
    if (this.orders.size === 0) return { fills, triggered };
    const upFirst = highFirst(bar.bid, bar.ask);
    for (const order of this.orders.values()) {
      const scale = Math.max(bar.priceDecimals, ...this.priceDecimals(order));
      const factor = 10 ** (scale - bar.priceDecimals);
      const side = order.direction === 'BUY' ? bar.ask : bar.bid;
      const path = scalePath(pathOf(side, upFirst), factor);
      const toInt = (d: Dec) => d.times(new Dec(10).pow(scale)).toNumber();
      const toDec = (p: number) => new Dec(p).div(new Dec(10).pow(scale));
      const fill = this.evaluate(order, path, toInt, toDec, scale);
      if (fill === 'triggered') {
        order.triggered = true;
        triggered.push(order.id);
      } else if (fill) {
        fills.push({ orderId: order.id, price: toDec(fill.price), segment: fill.segment });
      }
    }
    fills.sort((a, b) => a.segment - b.segment);
    for (const f of fills) this.orders.delete(f.orderId);
    return { fills, triggered };
  }

  private priceDecimals(order: RestingOrder): number[] {
    const out: number[] = [];
    if (order.limit) out.push(decimalsOf(order.limit));
    if (order.stop) out.push(decimalsOf(order.stop));
    if (order.trailing) {
      out.push(decimalsOf(order.trailing.best));
      if (order.trailing.type === 'ABSOLUTE') out.push(decimalsOf(order.trailing.distance));
    }
    return out;
  }

  private evaluate(
    order: RestingOrder,
    path: PathPoints,
    toInt: (d: Dec) => number,
    toDec: (p: number) => Dec,
    scale: number,
  ): PathFill | 'triggered' | undefined {
    switch (order.kind) {
      case 'LIMIT':
        return limitFill(order.direction, toInt(order.limit as Dec), path);
      case 'STOP':
        return stopTrigger(order.direction, toInt(order.stop as Dec), path);
      case 'STOP_LIMIT': {
        if (order.triggered) return limitFill(order.direction, toInt(order.limit as Dec), path);
        const result = stopLimitFill(
          order.direction,
          toInt(order.stop as Dec),
          toInt(order.limit as Dec),
          path,
        );
        if (!result) return undefined;
        return result.fill ?? 'triggered';
      }
      case 'TRAILING_STOP': {
        const trailing = order.trailing as NonNullable<RestingOrder['trailing']>;
        const stopFor = trailingStop(order.direction, trailing, scale);
        const result = trailingStopFill(order.direction, toInt(trailing.best), stopFor, path);
        trailing.best = toDec(result.best);
        return result.fill;
      }
    }
  }
}

function scalePath(path: PathPoints, factor: number): PathPoints {
  if (factor === 1) return path;
  return [path[0] * factor, path[1] * factor, path[2] * factor, path[3] * factor];
}

/**
 * The stop price of a trailing stop for a best price, as an integer at `scale`. Percentage stops are
 * rounded toward the position's side (a sell stop down, a buy stop up), so a rounded stop is never
 * tighter than the requested distance.
 */
function trailingStop(
  direction: Direction,
  trailing: NonNullable<RestingOrder['trailing']>,
  scale: number,
): (best: number) => number {
  const unit = new Dec(10).pow(scale);
  if (trailing.type === 'ABSOLUTE') {
    const offset = trailing.distance.times(unit).toNumber();
    return direction === 'SELL' ? (best) => best - offset : (best) => best + offset;
  }
  const fraction = trailing.distance.div(100);
  return (best) => {
    const offset = new Dec(best).times(fraction);
    return direction === 'SELL'
      ? new Dec(best).minus(offset).floor().toNumber()
      : new Dec(best).plus(offset).ceil().toNumber();
  };
}
