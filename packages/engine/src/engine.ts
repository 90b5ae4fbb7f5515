import { type Dec, ticksToDecimalString } from '@hindsight/core';
import { Account } from './account/account.ts';
import { MarginMonitor } from './account/margin-monitor.ts';
import { CandleAggregator } from './candles/candle-aggregator.ts';
import { type AdvanceResult, type BarCursor, BarLoop } from './clock/bar-loop.ts';
import { ContingentOrders } from './contingent/contingent-orders.ts';
import { OrderCommands } from './execution/order-commands.ts';
import { OrderExecution } from './execution/order-execution.ts';
import { InstrumentMatcher } from './matching/instrument-matcher.ts';
import { ZERO_COMMISSION } from './models/commission.ts';
import { effectiveLeverage } from './models/margin.ts';
import { NO_SLIPPAGE } from './models/slippage.ts';
import { CurrencyConverter, conversionProblems } from './numbers/currency.ts';
import type {
  CancelOutcome,
  ClosePosition,
  ExitLegsOutcome,
  ModifyOrder,
  ModifyOutcome,
  SetExitLegs,
  SubmitOrder,
  SubmitOutcome,
} from './orders/commands.ts';
import { OrderLinks } from './orders/order-links.ts';
import { OrderTable } from './orders/order-table.ts';
import { assetClassOf, type Trade } from './orders/order-types.ts';
import type { OrderRecord } from './orders/order-view.ts';
import type { PositionSnapshot } from './positions/position.ts';
import { PositionBook } from './positions/position-book.ts';
import { AccountTimeseries } from './results/account-timeseries.ts';
import { buildResultFiles } from './results/result-files.ts';
import { TimeseriesSampler } from './results/timeseries-sampler.ts';
import { PreTradeRisk } from './risk/pre-trade-risk.ts';
import { DailyFunding } from './settlement/daily-funding.ts';
import { MarginWatch } from './settlement/margin-watch.ts';
import { type EngineConfig, EngineConfigError, participationOf } from './venue/engine-config.ts';
import { type EngineEvent, EngineEvents } from './venue/engine-events.ts';
import { type InstrumentState, newInstrumentState } from './venue/instrument-state.ts';
import { SimTime } from './venue/sim-time.ts';
import { VenueOrders } from './venue/venue-orders.ts';
import { ENGINE_VERSION } from './version.ts';

export type { AdvanceResult, BarCursor } from './clock/bar-loop.ts';
export {
  type EngineConfig,
  EngineConfigError,
  type EngineInstrument,
  type EngineSubscription,
  type UpdateKind,
} from './venue/engine-config.ts';
export type { EngineEvent } from './venue/engine-events.ts';

/**
 * The simulation engine's facade (docs/engine.md): the one class the gateway and the benchmarks
 * drive. It wires the parts and delegates: the bar loop (`clock/`), order commands and fills
 * (`execution/`), pre-trade risk (`risk/`), brackets and one-cancels-other groups (`contingent/`),
 * funding and the margin watch (`settlement/`), on the books (`positions/`, `account/`) and the
 * venue's shared state (`venue/`). It handles market, limit, stop, stop-limit and trailing-stop
 * orders, GTC/DAY/IOC/FOK, post-only, reduce-only, margin checks, brackets, client OCO groups,
 * funding, margin calls and stop-outs.
 *
 * Callers speak typed commands (`orders/commands.ts`: `submit`, `modify`, `cancel`, `closePosition`,
 * `closeAllPositions`, `setExitLegs`) and get domain outcomes: accepted, or denied with a DenialCode.
 * The engine never sees wire JSON nor an HTTP status; the gateway's protocol module translates both.
 */
export class SimulationEngine {
  private readonly bySymbol = new Map<string, InstrumentState>();
  private readonly time: SimTime;
  private readonly book: PositionBook;
  private readonly account: Account;
  private readonly margin: MarginMonitor;
  private readonly sampler: TimeseriesSampler;
  private readonly timeseries: AccountTimeseries;
  private readonly orders: VenueOrders;
  private readonly events: EngineEvents;
  private readonly contingent: ContingentOrders;
  private readonly execution: OrderExecution;
  private readonly commands: OrderCommands;
  private readonly loop: BarLoop;

  constructor(
    private readonly config: EngineConfig,
    /** Index of each cursor `symbolIndex` in `config.instruments`. */
    cursorSymbols: readonly string[],
  ) {
    const unconvertible = conversionProblems(config.instruments);
    if (unconvertible.length > 0) throw new EngineConfigError(unconvertible.join(' '));
    this.time = new SimTime(config.startTime);
    const participation = participationOf(config.maxVolumeParticipation);
    const converter = new CurrencyConverter(config.instruments);
    this.book = new PositionBook({
      mode: config.positionMode,
      instruments: config.instruments,
      converter,
    });
    this.account = new Account({ initialCapital: config.initialCapital, unrealized: this.book });
    this.margin = new MarginMonitor({
      book: this.book,
      account: this.account,
      converter,
      leverageOf: (symbol) => (this.bySymbol.get(symbol) as InstrumentState).leverage,
      balanceApprox: () => this.timeseries.balance.approx,
    });
    const conversionPairs = new Set(converter.conversionSymbols());
    const accountUpdates = config.subscriptions.some((s) => s.updates.includes('account_update'));
    this.sampler = new TimeseriesSampler({
      startTime: config.startTime,
      endTime: config.endTime,
      initialCapital: config.initialCapital,
    });
    this.timeseries = new AccountTimeseries(this.sampler, this.account, this.book, this.margin);
    for (const spec of config.instruments) {
      const subscription = config.subscriptions.find((s) => s.instrument === spec.symbol);
      const state = newInstrumentState({
        spec,
        matcher: new InstrumentMatcher(spec.symbol),
        candles: (subscription?.timeframes ?? []).map(
          (tf) => new CandleAggregator(spec.symbol, tf, spec.calendar),
        ),
        updates: new Set(subscription?.updates ?? []),
        leverage: effectiveLeverage(assetClassOf(spec.market)),
        marked: conversionPairs.has(spec.symbol),
      });
      this.bySymbol.set(spec.symbol, state);
    }
    const instruments = cursorSymbols.map((symbol) => {
      const state = this.bySymbol.get(symbol);
      if (!state) throw new Error(`the bar cursor has ${symbol}, which the engine was not configured with`);
      return state;
    });
    const links = new OrderLinks();
    this.events = new EngineEvents(
      this.bySymbol,
      links,
      this.time,
      this.account,
      this.margin,
      accountUpdates,
    );
    this.orders = new VenueOrders(new OrderTable(), links, this.bySymbol, this.events, this.time);
    const risk = new PreTradeRisk(this.book, this.margin, links);
    this.contingent = new ContingentOrders(this.orders, this.events, this.time, this.book);
    this.execution = new OrderExecution({
      orders: this.orders,
      events: this.events,
      time: this.time,
      risk,
      contingent: this.contingent,
      book: this.book,
      account: this.account,
      timeseries: this.timeseries,
      converter,
      commission: config.commission ?? ZERO_COMMISSION,
      slippage: config.slippage ?? NO_SLIPPAGE,
      participation,
      conversionPairs,
    });
    this.commands = new OrderCommands(
      this.orders,
      this.execution,
      risk,
      this.contingent,
      this.events,
      this.time,
      this.book,
    );
    this.loop = new BarLoop({
      instruments,
      time: this.time,
      orders: this.orders,
      execution: this.execution,
      events: this.events,
      funding: new DailyFunding(
        config.funding,
        this.book,
        converter,
        this.account,
        this.timeseries,
        this.events,
      ),
      marginWatch: new MarginWatch(this.margin, this.account, this.events, this.commands),
      margin: this.margin,
      book: this.book,
      account: this.account,
      timeseries: this.timeseries,
      participation: participation !== undefined,
      assertIdentity: config.assertIdentity === true,
    });
  }

  /** Simulated time now (epoch ms). */
  get now(): number {
    return this.time.clock;
  }

  /**
   * Processes bars until a batch of events is ready or the cursor needs data. A bar of a later start
   * closes the current group first and stays pending (not consumed) for the next call.
   */
  advance(cursor: BarCursor): AdvanceResult {
    return this.loop.advance(cursor);
  }

  /** Ends the replay: closes the last group and returns its events (if any). */
  endOfData(): EngineEvent[] {
    return this.loop.endOfData();
  }

  /** Events produced by order calls between batches (same simulated time). */
  drain(): EngineEvent[] {
    return this.events.take();
  }

  /**
   * A new order. Denied (nothing recorded) when its fields conflict, when a hedging order's
   * `position_id` cannot take it, or when an entry that fills at once has a bracket price already
   * through the market. Otherwise the order is recorded: REJECTED with its reason (an unknown symbol,
   * the margin, reduce-only, post-only, no quote for a market order), filled at once, or resting.
   */
  submit(command: SubmitOrder): SubmitOutcome {
    return this.commands.submit(command);
  }

  /** Cancels a live order; an unknown or terminal one is denied. */
  cancel(orderId: string): CancelOutcome {
    return this.commands.cancel(orderId);
  }

  /**
   * Changes the quantity, prices, bracket prices or trailing distance of a live order in place
   * (docs/fills.md "Modifying orders"). No change: the order as it is.
   */
  modify(orderId: string, changes: ModifyOrder): ModifyOutcome {
    return this.commands.modify(orderId, changes);
  }

  /** Every order, in creation order (the gateway filters them). */
  listOrders(): readonly OrderRecord[] {
    return [...this.orders.records.values()];
  }

  order(orderId: string): OrderRecord | undefined {
    return this.orders.records.get(orderId);
  }

  /** Every fill so far, in order (`GET /v1/trades`). */
  trades(): readonly Trade[] {
    return this.execution.trades();
  }

  /** The last completed base bar's closing bid and ask (the engine's current quote). */
  quote(symbol: string): { bid: string; ask: string; time: number } | undefined {
    const state = this.bySymbol.get(symbol);
    if (!state?.hasQuote) return undefined;
    return {
      bid: ticksToDecimalString(state.bid, state.priceDecimals),
      ask: ticksToDecimalString(state.ask, state.priceDecimals),
      time: this.time.clock,
    };
  }

  /** Open positions in id order, optionally of one symbol. */
  positions(symbol?: string): PositionSnapshot[] {
    return this.book.positions(symbol);
  }

  position(positionId: string): PositionSnapshot | undefined {
    return this.book.position(positionId);
  }

  /**
   * Closes an open position with a reduce-only MARKET (default) or LIMIT order for the whole position
   * or `quantity` of it. With `cancel_associated_orders` (default true) the position's exit legs and
   * the orders aimed at it are cancelled first; otherwise legs stay and shrink with the position.
   */
  closePosition(positionId: string, close?: ClosePosition): SubmitOutcome {
    return this.commands.closePosition(positionId, close);
  }

  /** Closes every open position (of `symbol`) at market, in id order. */
  closeAllPositions(symbol?: string): SubmitOutcome[] {
    return this.commands.closeAllPositions(symbol);
  }

  /**
   * Moves the exit legs the engine placed for the position, ids kept; denied when a leg is not tracked
   * or its new trigger is already through the market.
   */
  setExitLegs(positionId: string, legs: SetExitLegs): ExitLegsOutcome {
    return this.contingent.setExitLegs(positionId, legs);
  }

  accountView() {
    return this.account.view(this.margin.marginUsed());
  }

  /** Margin locked by open positions: notional in USD at the current price over the leverage. */
  marginUsed(): Dec {
    return this.margin.marginUsed();
  }

  /** The three result files and the metrics, from everything replayed so far. */
  results() {
    const timeseries = this.sampler.finish();
    return buildResultFiles({
      engineVersion: this.config.engineVersion ?? ENGINE_VERSION,
      startTime: this.config.startTime,
      endTime: this.config.endTime,
      initialCapital: this.config.initialCapital,
      allCrypto: this.config.instruments.every((i) => i.symbol.startsWith('C:')),
      timeseries,
      navValues: this.sampler.navValues(),
      trades: this.book.lots(),
      lotTotals: this.book.lotTotals,
    });
  }
}
