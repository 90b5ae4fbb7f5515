import {
  type BidAskBarBatch,
  bucketSpan,
  resampleBars,
  type SessionCalendar,
  type SpreadModel,
  type Timeframe,
  ticksToDecimalString,
} from '@hindsight/core';
import { type BarStore, deriveBidAsk, isBidAskBatch, monthRange, utcMonth } from '@hindsight/marketdata';
import type { Bar, BarQuery } from '../provider.ts';

/**
 * `GET /v1/bars/{symbol}` for the simulation: completed bars of the stored data, built like the
 * engine's candles (the mid of bid and ask per base bar, then open/high/low/close/volume per bucket,
 * through core's `resampleBars`), so a bar here equals the candle event of the same bucket.
 * No lookahead: a bar is served only once simulated time has reached its end.
 */
export const DEFAULT_BAR_LIMIT = 1000;
export const MAX_BAR_LIMIT = 10_000;

const MINUTE_MS = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

export interface BarHistoryInstrument {
  symbol: string;
  calendar: SessionCalendar;
  spreadModel: SpreadModel;
}

interface MidColumns {
  decimals: number;
  volumeDecimals: number;
  time: number[];
  open: number[];
  high: number[];
  low: number[];
  close: number[];
  volume: number[];
}

export class BarHistory {
  constructor(private readonly store: BarStore) {}

  /**
   * Bars of `instrument` at `query.timeframe` whose bucket starts in [start, end] and ends by `now`.
   * With `start`, the first `limit` such bars; without it, the last `limit` before `end`.
   */
  async bars(instrument: BarHistoryInstrument, query: BarQuery, now: number): Promise<Bar[]> {
    const limit = query.limit ?? DEFAULT_BAR_LIMIT;
    const to = Math.min(query.end ?? Number.POSITIVE_INFINITY, now);
    const months = await this.store.months(instrument.symbol);
    if (months.length === 0 || (query.start !== undefined && query.start > to)) return [];
    const lastMonth = utcMonth(Math.min(now, monthRange(months[months.length - 1] as string).end - 1));
    const candidates = months.filter((m) => m <= lastMonth);
    const bars: Bar[] = [];
    if (query.start !== undefined) {
      const firstMonth = utcMonth(bucketSpan(query.timeframe, instrument.calendar, query.start)[0]);
      const wanted = candidates.filter((m) => m >= firstMonth);
      for (const bar of await this.build(instrument, query.timeframe, wanted, now)) {
        const t = Date.parse(bar.timestamp);
        if (t >= query.start && t <= to) bars.push(bar);
      }
      return bars.slice(0, limit);
    }
    // Without a start: read months backwards until `limit` bars are found (or the data runs out).
    let take = 1;
    for (;;) {
      const wanted = candidates.slice(Math.max(0, candidates.length - take));
      const built = (await this.build(instrument, query.timeframe, wanted, now)).filter(
        (bar) => Date.parse(bar.timestamp) <= to,
      );
      if (built.length > limit || wanted.length === candidates.length) return built.slice(-limit);
      take *= 2;
    }
  }

  private async build(
    instrument: BarHistoryInstrument,
    timeframe: Timeframe,
    months: readonly string[],
    now: number,
  ): Promise<Bar[]> {
    const mids = await this.midColumns(instrument, months, now);
    if (mids.time.length === 0) return [];
    const n = mids.time.length;
    const column = (values: number[]) => Float64Array.from(values);
    const open = column(mids.open);
    const high = column(mids.high);
    const low = column(mids.low);
    const close = column(mids.close);
    // Bid and ask are both the mid, so the resampled bid side is the candle of the mids.
    const batch: BidAskBarBatch = {
      symbol: instrument.symbol,
      priceDecimals: mids.decimals,
      volumeDecimals: mids.volumeDecimals,
      length: n,
      time: column(mids.time),
      bidOpen: open,
      bidHigh: high,
      bidLow: low,
      bidClose: close,
      askOpen: open,
      askHigh: high,
      askLow: low,
      askClose: close,
      volume: column(mids.volume),
    };
    const resampled = resampleBars(batch, timeframe, instrument.calendar);
    const out: Bar[] = [];
    for (let i = 0; i < resampled.length; i++) {
      const start = resampled.time[i] as number;
      const end = bucketSpan(timeframe, instrument.calendar, start)[1];
      if (end > now) continue;
      const price = (value: number | undefined) => ticksToDecimalString(value as number, mids.decimals);
      out.push({
        symbol: instrument.symbol,
        provider: 'simulation',
        timeframe,
        timestamp: iso(start),
        open: price(resampled.bidOpen[i]),
        high: price(resampled.bidHigh[i]),
        low: price(resampled.bidLow[i]),
        close: price(resampled.bidClose[i]),
        volume: ticksToDecimalString(resampled.volume[i] as number, mids.volumeDecimals),
      });
    }
    return out;
  }

  /** Mid prices ((bid + ask) x 5 at decimals + 1) of the base bars that ended by `now`, oldest first. */
  private async midColumns(
    instrument: BarHistoryInstrument,
    months: readonly string[],
    now: number,
  ): Promise<MidColumns> {
    const batches: BidAskBarBatch[] = [];
    for (const month of months) {
      const stored = await this.store.readMonth(instrument.symbol, month);
      if (!stored || stored.length === 0) continue;
      batches.push(isBidAskBatch(stored) ? stored : deriveBidAsk(stored, instrument.spreadModel));
    }
    const priceDecimals = Math.max(0, ...batches.map((b) => b.priceDecimals));
    const volumeDecimals = Math.max(0, ...batches.map((b) => b.volumeDecimals));
    const out: MidColumns = {
      decimals: priceDecimals + 1,
      volumeDecimals,
      time: [],
      open: [],
      high: [],
      low: [],
      close: [],
      volume: [],
    };
    for (const batch of batches) {
      const scale = 10 ** (priceDecimals - batch.priceDecimals);
      const volumeScale = 10 ** (volumeDecimals - batch.volumeDecimals);
      const mid = (bid: Float64Array, ask: Float64Array, i: number) =>
        ((bid[i] as number) + (ask[i] as number)) * 5 * scale;
      for (let i = 0; i < batch.length; i++) {
        const t = batch.time[i] as number;
        if (t + MINUTE_MS > now) break;
        out.time.push(t);
        out.open.push(mid(batch.bidOpen, batch.askOpen, i));
        out.high.push(mid(batch.bidHigh, batch.askHigh, i));
        out.low.push(mid(batch.bidLow, batch.askLow, i));
        out.close.push(mid(batch.bidClose, batch.askClose, i));
        out.volume.push((batch.volume[i] as number) * volumeScale);
      }
    }
    return out;
  }
}
