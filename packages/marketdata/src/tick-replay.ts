import type { BidAskBarBatch, QuoteTickBatch, TickWindow } from '@hindsight/core';
import type { ReplayReader } from './replay.ts';
import { utcDay } from './store-keys.ts';

/** Where tick replay reads ticks from: `BarStore` is one. */
export interface TickSource {
  tickDays(symbol: string): Promise<string[]>;
  readTicks(symbol: string, day: string): Promise<QuoteTickBatch | undefined>;
}

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

interface SymbolTicks {
  days: Set<string>;
  /** The loaded day and its ticks (one day per instrument is held). */
  day: string | undefined;
  batch: QuoteTickBatch | undefined;
  /** Rows before this are behind the cursor (bars of one instrument come in time order). */
  cursor: number;
}

/**
 * A replay of base bars that also hands out, for each bar, the stored ticks inside it (`ticks`), so
 * the engine can fill orders on the true sequence of quotes instead of an assumed path through the
 * bar (docs/market-data.md "Replay"). Same cursor as `ReplayReader` (`fill()`, `next()`, `time`,
 * `symbolIndex`, `batch`, `row`); one day of ticks per instrument is loaded at a time, when the
 * replay reaches it. Bars without stored ticks have `ticks` undefined.
 */
export class TickReplay {
  /** The ticks inside the current bar, when the instrument has ticks that day. */
  ticks: TickWindow | undefined;

  private symbolTicks: SymbolTicks[] | undefined;
  /** The current bar is held while its day of ticks is read. */
  private held = false;
  private load: { index: number; day: string } | undefined;
  /** The UTC day of the last bar, as a day number and as text (a bar's day is asked every bar). */
  private dayNumber = Number.NaN;
  private dayText = '';

  constructor(
    private readonly bars: ReplayReader,
    private readonly source: TickSource,
    private readonly symbols: readonly string[],
  ) {}

  get time(): number {
    return this.bars.time;
  }

  get symbolIndex(): number {
    return this.bars.symbolIndex;
  }

  get batch(): BidAskBarBatch | undefined {
    return this.bars.batch;
  }

  get row(): number {
    return this.bars.row;
  }

  async fill(): Promise<boolean> {
    if (!this.symbolTicks) {
      this.symbolTicks = await Promise.all(
        this.symbols.map(async (symbol) => ({
          days: new Set(await this.source.tickDays(symbol)),
          day: undefined,
          batch: undefined,
          cursor: 0,
        })),
      );
    }
    if (this.load) {
      const { index, day } = this.load;
      const ticks = this.symbolTicks[index] as SymbolTicks;
      ticks.day = day;
      ticks.batch = await this.source.readTicks(this.symbols[index] as string, day);
      ticks.cursor = 0;
      this.load = undefined;
      return true;
    }
    return this.bars.fill();
  }

  next(): boolean {
    if (!this.symbolTicks) return false;
    if (this.held) {
      this.held = false;
    } else if (!this.bars.next()) {
      return false;
    }
    const index = this.bars.symbolIndex;
    const ticks = this.symbolTicks[index] as SymbolTicks;
    if (ticks.days.size === 0) {
      this.ticks = undefined;
      return true;
    }
    const day = this.dayOf(this.bars.time);
    if (!ticks.days.has(day)) {
      this.ticks = undefined;
      return true;
    }
    if (ticks.day !== day) {
      // Read that day's ticks first; this bar comes out again after `fill()`.
      this.held = true;
      this.load = { index, day };
      return false;
    }
    this.ticks = this.windowOf(ticks, this.bars.time);
    return true;
  }

  private dayOf(time: number): string {
    const number = Math.floor(time / DAY_MS);
    if (number !== this.dayNumber) {
      this.dayNumber = number;
      this.dayText = utcDay(time);
    }
    return this.dayText;
  }

  private windowOf(ticks: SymbolTicks, start: number): TickWindow | undefined {
    const batch = ticks.batch;
    if (!batch) return undefined;
    let from = ticks.cursor;
    while (from < batch.length && (batch.time[from] as number) < start) from++;
    let to = from;
    while (to < batch.length && (batch.time[to] as number) < start + MINUTE_MS) to++;
    ticks.cursor = to;
    return to > from ? { batch, from, to } : undefined;
  }
}
