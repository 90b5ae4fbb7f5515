import type { Candle } from './resources.ts';

/**
 * The last candles received, per symbol and timeframe (`ctx.candles`): a ring of fixed size, so that
 * keeping them costs the same on every bar of a long backtest.
 */
export const KEPT_CANDLES = 1000;

class Ring {
  private readonly items: (Candle | undefined)[] = new Array(KEPT_CANDLES);
  private count = 0;

  push(candle: Candle): void {
    this.items[this.count % KEPT_CANDLES] = candle;
    this.count++;
  }

  last(count: number): Candle[] {
    const n = Math.min(count, this.count, KEPT_CANDLES);
    const out: Candle[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = this.items[(this.count - n + i) % KEPT_CANDLES] as Candle;
    return out;
  }
}

export class CandleHistory {
  private readonly rings = new Map<string, Ring>();
  /** The first timeframe seen per symbol: the default of `ctx.candles(symbol)`. */
  private readonly firstTimeframe = new Map<string, string>();

  // The ring of the last candle added: a one-instrument strategy looks up nothing per bar.
  private lastSymbol = '';
  private lastTimeframe = '';
  private lastRing: Ring | undefined;

  add(candle: Candle): void {
    if (candle.symbol === this.lastSymbol && candle.timeframe === this.lastTimeframe) {
      (this.lastRing as Ring).push(candle);
      return;
    }
    const key = `${candle.symbol}|${candle.timeframe}`;
    let ring = this.rings.get(key);
    if (!ring) {
      ring = new Ring();
      this.rings.set(key, ring);
      if (!this.firstTimeframe.has(candle.symbol)) this.firstTimeframe.set(candle.symbol, candle.timeframe);
    }
    ring.push(candle);
    this.lastSymbol = candle.symbol;
    this.lastTimeframe = candle.timeframe;
    this.lastRing = ring;
  }

  last(symbol: string, timeframe: string | undefined, count: number): Candle[] {
    const tf = timeframe ?? this.firstTimeframe.get(symbol);
    return tf === undefined ? [] : (this.rings.get(`${symbol}|${tf}`)?.last(count) ?? []);
  }
}
