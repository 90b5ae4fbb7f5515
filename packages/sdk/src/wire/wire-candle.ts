import type { Candle, CandleField } from '../resources.ts';

/** A candle read from the socket: the wire Bar's fields, and `number` as the in-process candle has it. */
export class WireCandle implements Candle {
  readonly symbol: string;
  readonly provider: string;
  readonly timeframe: string;
  readonly timestamp: string;
  readonly open: string;
  readonly high: string;
  readonly low: string;
  readonly close: string;
  readonly volume: string;

  constructor(bar: Record<string, string>) {
    this.symbol = bar.symbol as string;
    this.provider = bar.provider as string;
    this.timeframe = bar.timeframe as string;
    this.timestamp = bar.timestamp as string;
    this.open = bar.open as string;
    this.high = bar.high as string;
    this.low = bar.low as string;
    this.close = bar.close as string;
    this.volume = bar.volume as string;
  }

  number(field: CandleField): number {
    return Number(this[field]);
  }
}
