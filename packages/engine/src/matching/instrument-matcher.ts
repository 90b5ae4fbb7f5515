import { type BidAskBarBatch, Dec, type TickWindow, ticksToDecimalString } from '@hindsight/core';
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
/**
 * `MARKET` rests only as the unfilled part of a market order (or of a triggered stop) under a
 * volume-participation limit: it fills at the open of the next bars.
 */
export type RestingKind = 'MARKET' | 'LIMIT' | 'STOP' | 'STOP_LIMIT' | 'TRAILING_STOP';

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
  /** Path segment of the fill (0 = at the open), or the tick's index, to order fills within the bar. */
  segment: number;
  /** The tick's time when the fill came from ticks (epoch ms). */
  time?: number;
}

export interface BarOutcome {
  fills: FillIntent[];
  /** Stop-limits whose stop triggered in this bar without filling: they now rest as limits. */
  triggered: string[];
}

const decimalsOf = (d: Dec) => Math.max(0, d.decimalPlaces());

/**
 * A resting order's prices as integers at the scale of the bars it is compared with, made once per
 * order (and again only if the bars' decimals or the order's prices change), so evaluating a bar is
 * integer arithmetic.
 */
interface Prepared {
  order: RestingOrder;
  /** The bars' `priceDecimals` these integers were made for (-1: not yet). */
  barDecimals: number;
  scale: number;
  factor: number;
  limit: number;
  stop: number;
  /** Trailing stops: the best price, as an integer at `scale` (`order.trailing.best` follows lazily). */
  best: number;
  bestDirty: boolean;
  trailingStop: ((best: number) => number) | undefined;
}

export class InstrumentMatcher {
  private readonly orders = new Map<string, Prepared>();

  constructor(readonly symbol: string) {}

  add(order: RestingOrder): void {
    this.orders.set(order.id, {
      order: { ...order, ...(order.trailing && { trailing: { ...order.trailing } }) },
      barDecimals: -1,
      scale: 0,
      factor: 1,
      limit: 0,
      stop: 0,
      best: 0,
      bestDirty: false,
      trailingStop: undefined,
    });
  }

  remove(orderId: string): boolean {
    return this.orders.delete(orderId);
  }

  has(orderId: string): boolean {
    return this.orders.has(orderId);
  }

  get(orderId: string): RestingOrder | undefined {
    const prepared = this.orders.get(orderId);
    if (!prepared) return undefined;
    this.syncBest(prepared);
    return prepared.order;
  }

  /** Replaces prices (or, for a triggered stop filled in part, the kind) of a resting order in place. */
  update(
    orderId: string,
    changes: Partial<Pick<RestingOrder, 'kind' | 'limit' | 'stop' | 'trailing'>>,
  ): void {
    const prepared = this.orders.get(orderId);
    if (!prepared) return;
    this.syncBest(prepared);
    Object.assign(prepared.order, changes);
    prepared.barDecimals = -1;
  }

  /** Ids of the resting orders, in insertion order. */
  ids(): string[] {
    return [...this.orders.keys()];
  }

  get size(): number {
    return this.orders.size;
  }

  /**
   * Whether the base bar at `row` can fill or trigger a resting order or move a trailing stop. When it
   * cannot, `onBar` would report nothing and change nothing, so the engine skips it: a bar that leaves
   * every resting order untouched (the usual bar for a bracket's legs) costs a few comparisons and
   * allocates nothing. A limit or stop is reached when the side it tests (ask for buys, bid for sells)
   * trades through its price somewhere on the path, that is at the path's lowest or highest point.
   */
  reachedBy(batch: BidAskBarBatch, row: number): boolean {
    const decimals = batch.priceDecimals;
    const b = batch;
    const bidLow = extreme(Math.min, b.bidOpen, b.bidHigh, b.bidLow, b.bidClose, row);
    const bidHigh = extreme(Math.max, b.bidOpen, b.bidHigh, b.bidLow, b.bidClose, row);
    const askLow = extreme(Math.min, b.askOpen, b.askHigh, b.askLow, b.askClose, row);
    const askHigh = extreme(Math.max, b.askOpen, b.askHigh, b.askLow, b.askClose, row);
    for (const prepared of this.orders.values()) {
      if (prepared.barDecimals !== decimals) this.prepare(prepared, decimals);
      const order = prepared.order;
      const buy = order.direction === 'BUY';
      const f = prepared.factor;
      const limitReached = buy ? askLow * f <= prepared.limit : bidHigh * f >= prepared.limit;
      const stopReached = buy ? askHigh * f >= prepared.stop : bidLow * f <= prepared.stop;
      switch (order.kind) {
        case 'LIMIT':
          if (limitReached) return true;
          break;
        case 'STOP':
          if (stopReached) return true;
          break;
        case 'STOP_LIMIT':
          if (order.triggered ? limitReached : stopReached) return true;
          break;
        default:
          // A resting market order fills at the open; a trailing stop's best price may move.
          return true;
      }
    }
    return false;
  }

  /**
   * Evaluates every resting order against one bar, in insertion order, and returns the fills sorted
   * by when they happened on the path (ties keep insertion order). Orders stay in the book: the
   * engine removes what it filled whole (a fill may be limited by volume); triggered stop-limits stay
   * as limits; trailing stops keep their new best price.
   */
  onBar(bar: MatcherBar): BarOutcome {
    const fills: FillIntent[] = [];
    const triggered: string[] = [];
    if (this.orders.size === 0) return { fills, triggered };
    const upFirst = highFirst(bar.bid, bar.ask);
    const bidPath = pathOf(bar.bid, upFirst);
    const askPath = pathOf(bar.ask, upFirst);
    for (const prepared of this.orders.values()) {
      if (prepared.barDecimals !== bar.priceDecimals) this.prepare(prepared, bar.priceDecimals);
      const order = prepared.order;
      const path = scalePath(order.direction === 'BUY' ? askPath : bidPath, prepared.factor);
      const fill = this.evaluate(prepared, path);
      if (fill === 'triggered') {
        order.triggered = true;
        triggered.push(order.id);
      } else if (fill) {
        fills.push({
          orderId: order.id,
          price: toDecimal(fill.price, prepared.scale),
          segment: fill.segment,
        });
      }
    }
    fills.sort((a, b) => a.segment - b.segment);
    return { fills, triggered };
  }

  /**
   * Evaluates every resting order against the bar's ticks, in time order (docs/fills.md "Ticks"): each
   * tick is a point of its own, so an order fills at the first tick that satisfies it, at that tick's
   * price (ask for buys, bid for sells). Each order fills at most once per bar, as with bars.
   */
  onTicks(window: TickWindow): BarOutcome {
    const fills: FillIntent[] = [];
    const triggered: string[] = [];
    if (this.orders.size === 0) return { fills, triggered };
    const { batch } = window;
    const done = new Set<string>();
    for (let i = window.from; i < window.to; i++) {
      const bid = batch.bid[i] as number;
      const ask = batch.ask[i] as number;
      for (const prepared of this.orders.values()) {
        const order = prepared.order;
        if (done.has(order.id)) continue;
        if (prepared.barDecimals !== batch.priceDecimals) this.prepare(prepared, batch.priceDecimals);
        const point = (order.direction === 'BUY' ? ask : bid) * prepared.factor;
        const fill = this.evaluate(prepared, [point, point, point, point]);
        if (fill === 'triggered') {
          if (!order.triggered) triggered.push(order.id);
          order.triggered = true;
        } else if (fill) {
          done.add(order.id);
          fills.push({
            orderId: order.id,
            price: toDecimal(fill.price, prepared.scale),
            segment: i - window.from,
            time: batch.time[i] as number,
          });
        }
      }
    }
    return { fills, triggered };
  }

  private prepare(prepared: Prepared, barDecimals: number): void {
    this.syncBest(prepared);
    const order = prepared.order;
    const scale = Math.max(barDecimals, ...this.priceDecimals(order));
    const unit = unitAt(scale);
    const toInt = (d: Dec | undefined) => (d ? d.times(unit).toNumber() : 0);
    prepared.barDecimals = barDecimals;
    prepared.scale = scale;
    prepared.factor = 10 ** (scale - barDecimals);
    prepared.limit = toInt(order.limit);
    prepared.stop = toInt(order.stop);
    if (order.trailing) {
      prepared.best = toInt(order.trailing.best);
      prepared.trailingStop = trailingStop(order.direction, order.trailing, scale);
    }
  }

  /** Writes a trailing stop's integer best price back to the order as a decimal. */
  private syncBest(prepared: Prepared): void {
    if (!prepared.bestDirty || !prepared.order.trailing) return;
    prepared.order.trailing.best = toDecimal(prepared.best, prepared.scale);
    prepared.bestDirty = false;
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

  private evaluate(prepared: Prepared, path: PathPoints): PathFill | 'triggered' | undefined {
    const order = prepared.order;
    switch (order.kind) {
      case 'MARKET':
        return { price: path[0], segment: 0 };
      case 'LIMIT':
        return limitFill(order.direction, prepared.limit, path);
      case 'STOP':
        return stopTrigger(order.direction, prepared.stop, path);
      case 'STOP_LIMIT': {
        if (order.triggered) return limitFill(order.direction, prepared.limit, path);
        const result = stopLimitFill(order.direction, prepared.stop, prepared.limit, path);
        if (!result) return undefined;
        return result.fill ?? 'triggered';
      }
      case 'TRAILING_STOP': {
        const result = trailingStopFill(
          order.direction,
          prepared.best,
          prepared.trailingStop as (best: number) => number,
          path,
        );
        if (result.best !== prepared.best) {
          prepared.best = result.best;
          prepared.bestDirty = true;
        }
        return result.fill;
      }
    }
  }
}

/**
 * 10^scale as a decimal, made once per scale: every resting order is prepared at a bar's scale (a
 * bracket's two legs at every entry), and decimal.js raises to a power far more slowly than it reads.
 */
const UNITS: Dec[] = [];
function unitAt(scale: number): Dec {
  UNITS[scale] ??= new Dec(10).pow(scale);
  return UNITS[scale];
}

const toDecimal = (ticks: number, scale: number): Dec => new Dec(ticksToDecimalString(ticks, scale));

type PriceColumn = BidAskBarBatch['bidOpen'];

/** The lowest (`Math.min`) or highest (`Math.max`) of a bar's four prices of one side (not assuming low <= open, close <= high). */
function extreme(
  pick: (...values: number[]) => number,
  open: PriceColumn,
  high: PriceColumn,
  low: PriceColumn,
  close: PriceColumn,
  row: number,
): number {
  return pick(open[row] as number, high[row] as number, low[row] as number, close[row] as number);
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
  const unit = unitAt(scale);
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
