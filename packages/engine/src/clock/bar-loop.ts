import { type BidAskBarBatch, DEC_ZERO, type TickWindow } from '@hindsight/core';
import type { Account } from '../account/account.ts';
import type { MarginMonitor } from '../account/margin-monitor.ts';
import type { OrderExecution } from '../execution/order-execution.ts';
import type { FillIntent } from '../matching/instrument-matcher.ts';
import { isTerminal } from '../orders/order-states.ts';
import type { OrderRecord } from '../orders/order-view.ts';
import type { PositionBook } from '../positions/position-book.ts';
import type { AccountTimeseries } from '../results/account-timeseries.ts';
import type { DailyFunding } from '../settlement/daily-funding.ts';
import type { MarginWatch } from '../settlement/margin-watch.ts';
import type { EngineEvent, EngineEvents } from '../venue/engine-events.ts';
import type { InstrumentState } from '../venue/instrument-state.ts';
import type { SimTime } from '../venue/sim-time.ts';
import type { VenueOrders } from '../venue/venue-orders.ts';

/** A synchronous cursor over merged base bars (the replay reader after `fill()`). */
export interface BarCursor {
  next(): boolean;
  readonly time: number;
  readonly symbolIndex: number;
  readonly batch: BidAskBarBatch | undefined;
  readonly row: number;
  /** The stored ticks inside the current bar, when there are any (`TickReplay`): fills follow them. */
  readonly ticks?: TickWindow | undefined;
}

export type AdvanceResult = { kind: 'events'; events: EngineEvent[] } | { kind: 'need-data' };

/** What the bar loop drives: the instruments in cursor order and the parts a bar and a minute reach. */
export interface BarLoopParts {
  /** The state of each cursor `symbolIndex`. */
  instruments: readonly InstrumentState[];
  time: SimTime;
  orders: VenueOrders;
  execution: OrderExecution;
  events: EngineEvents;
  funding: DailyFunding;
  marginWatch: MarginWatch;
  margin: MarginMonitor;
  book: PositionBook;
  account: Account;
  timeseries: AccountTimeseries;
  /** Whether a volume-participation limit is configured (each bar then starts with none consumed). */
  participation: boolean;
  /** Check the accounting identity after every group of bars. */
  assertIdentity: boolean;
}

const MINUTE_MS = 60_000;

/**
 * The clock and bar loop (docs/engine.md "A run, bar by bar"): groups base bars by start time, lets
 * each instrument's matcher fill resting orders on its bar, builds candles and marks, and at the close
 * of each simulated minute closes candles, charges funding, expires DAY orders, watches the margin and
 * offers the timeseries point. It stops at every batch of events.
 */
export class BarLoop {
  private readonly instruments: readonly InstrumentState[];
  private readonly time: SimTime;
  private readonly orders: VenueOrders;
  private readonly execution: OrderExecution;
  private readonly events: EngineEvents;
  private readonly funding: DailyFunding;
  private readonly marginWatch: MarginWatch;
  private readonly margin: MarginMonitor;
  private readonly book: PositionBook;
  private readonly account: Account;
  private readonly timeseries: AccountTimeseries;
  private readonly participation: boolean;
  private readonly assertIdentity: boolean;
  private groupTime: number | undefined;
  private pending = false;

  constructor(parts: BarLoopParts) {
    this.instruments = parts.instruments;
    this.time = parts.time;
    this.orders = parts.orders;
    this.execution = parts.execution;
    this.events = parts.events;
    this.funding = parts.funding;
    this.marginWatch = parts.marginWatch;
    this.margin = parts.margin;
    this.book = parts.book;
    this.account = parts.account;
    this.timeseries = parts.timeseries;
    this.participation = parts.participation;
    this.assertIdentity = parts.assertIdentity;
  }

  /**
   * Processes bars until a batch of events is ready or the cursor needs data. A bar of a later start
   * closes the current group first and stays pending (not consumed) for the next call.
   */
  advance(cursor: BarCursor): AdvanceResult {
    for (;;) {
      if (!this.pending) {
        if (!cursor.next()) return { kind: 'need-data' };
        this.pending = true;
      }
      const t = cursor.time;
      if (this.groupTime !== undefined && t !== this.groupTime) {
        this.closeGroup(this.groupTime + MINUTE_MS);
        this.groupTime = undefined;
        if (this.events.size > 0) return { kind: 'events', events: this.events.take() };
      }
      if (this.groupTime === undefined && t > this.time.clock) {
        // A hole in the data: what falls in it (rollovers, DAY expiries, candle closes) happens at its
        // own time, at the last quotes, before the next bar.
        this.closeGroup(t);
        if (this.events.size > 0) return { kind: 'events', events: this.events.take() };
      }
      this.groupTime = t;
      this.time.stamp = t + MINUTE_MS;
      this.onBar(
        this.instruments[cursor.symbolIndex] as InstrumentState,
        cursor.batch as BidAskBarBatch,
        cursor.row,
        cursor.ticks,
      );
      this.pending = false;
    }
  }

  /** Ends the replay: closes the last group and returns its events (if any). */
  endOfData(): EngineEvent[] {
    if (this.groupTime !== undefined) this.closeGroup(this.groupTime + MINUTE_MS);
    this.groupTime = undefined;
    return this.events.take();
  }

  private onBar(
    state: InstrumentState,
    batch: BidAskBarBatch,
    row: number,
    ticks: TickWindow | undefined,
  ): void {
    state.volume = batch.volume[row] as number;
    state.volumeDecimals = batch.volumeDecimals;
    if (this.participation) state.consumed = DEC_ZERO;
    if (state.matcher.size > 0) {
      const barEnd = (batch.time[row] as number) + MINUTE_MS;
      // With ticks the true order of events is known; on a bar, the stop leg is assumed first. A bar
      // that reaches no resting order is not evaluated further.
      const outcome = ticks
        ? state.matcher.onTicks(ticks)
        : state.matcher.reachedBy(batch, row)
          ? this.onBarPath(state, batch, row)
          : NOTHING_FILLED;
      const records = this.orders.records;
      for (const fill of outcome.fills) {
        const order = records.get(fill.orderId) as OrderRecord;
        // A sibling that filled earlier in this bar has cancelled it (one-cancels-other).
        if (order.status !== 'OPEN' && order.status !== 'PARTIALLY_FILLED') continue;
        this.execution.execute(state, order, fill.price, fill.time ?? barEnd);
        // Filled in part under a volume limit: a triggered stop goes on as a market order.
        const after = records.get(fill.orderId) as OrderRecord;
        if (!isTerminal(after.status) && state.matcher.has(after.id))
          this.orders.addResting(state, after, true);
      }
    }
    for (const aggregator of state.candles) {
      const early = aggregator.add(batch, row);
      if (early) this.events.candle(early);
    }
    state.bid = batch.bidClose[row] as number;
    state.ask = batch.askClose[row] as number;
    state.priceDecimals = batch.priceDecimals;
    state.hasQuote = true;
    state.quote.set(state.bid, state.ask, state.priceDecimals);
    if (state.marked) {
      if (state.mark) state.mark.set(state.bid, state.ask, state.priceDecimals);
      else state.mark = this.book.markTicks(state.spec.symbol, state.bid, state.ask, state.priceDecimals);
    }
  }

  /** The resting orders a bar fills on its assumed path, the stop leg of a bracket first. */
  private onBarPath(state: InstrumentState, batch: BidAskBarBatch, row: number) {
    const outcome = state.matcher.onBar({
      priceDecimals: batch.priceDecimals,
      bid: {
        open: batch.bidOpen[row] as number,
        high: batch.bidHigh[row] as number,
        low: batch.bidLow[row] as number,
        close: batch.bidClose[row] as number,
      },
      ask: {
        open: batch.askOpen[row] as number,
        high: batch.askHigh[row] as number,
        low: batch.askLow[row] as number,
        close: batch.askClose[row] as number,
      },
    });
    return { ...outcome, fills: this.orders.links.stopLegsFirst(outcome.fills) };
  }

  private closeGroup(clock: number): void {
    const previous = this.time.clock;
    this.time.clock = clock;
    this.time.stamp = clock;
    this.funding.charge(previous, clock);
    if (this.orders.expiries.size > 0) this.orders.expireBy(clock);
    for (const state of this.instruments) {
      for (const aggregator of state.candles) {
        const closed = aggregator.closeBy(clock);
        if (closed) this.events.candle(closed);
      }
    }
    const flat = this.book.size === 0;
    let navApprox = this.timeseries.balance.approx;
    if (!flat || this.margin.state !== 'ok') {
      const approx = this.margin.approx();
      navApprox = approx.nav;
      this.marginWatch.check(clock, navApprox, approx.marginUsd);
    }
    if (this.assertIdentity) this.account.assertIdentity();
    this.timeseries.offer(clock, navApprox, flat);
  }
}

const NOTHING_FILLED: { fills: readonly FillIntent[] } = { fills: [] };
