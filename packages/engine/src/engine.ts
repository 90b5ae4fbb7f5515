import {
  type BidAskBarBatch,
  DEC_ZERO,
  Dec,
  type MarketId,
  type SessionCalendar,
  type TickWindow,
  type Timeframe,
  ticksToDecimalString,
  toDecimalString,
} from '@hindsight/core';
import { Account, BalanceMoment } from './account/account.ts';
import { ACCOUNT_CURRENCY, CurrencyConverter, conversionProblems } from './account/currency.ts';
import { Exact } from './account/exact.ts';
import { MarginMonitor, type MarginRequest } from './account/margin-monitor.ts';
import { add, scaledOf, scaledText } from './account/scaled-decimal.ts';
import { TickQuote } from './account/tick-quote.ts';
import { type Candle, CandleAggregator } from './candles/candle-aggregator.ts';
import { EventOutbox } from './event-outbox.ts';
import { flatText } from './flat-text.ts';
import { isoTime } from './iso-time.ts';
import { type FillIntent, InstrumentMatcher, type RestingOrder } from './matching/instrument-matcher.ts';
import { type CommissionSettings, commissionFor, ZERO_COMMISSION } from './models/commission.ts';
import { type FundingSettings, fundingAmount, rolloversBetween } from './models/funding.ts';
import { effectiveLeverage } from './models/margin.ts';
import { applySlippage, NO_SLIPPAGE, type SlippageSettings } from './models/slippage.ts';
import {
  type CancelOutcome,
  type ClosePosition,
  type Denial,
  deny,
  type ExitLegsOutcome,
  type ExitLegView,
  type FieldIssue,
  type ModifyOrder,
  type ModifyOutcome,
  type SetExitLegs,
  type SubmitOrder,
  type SubmitOutcome,
} from './orders/commands.ts';
import { type ExitLeg, type LegKind, OrderLinks } from './orders/order-links.ts';
import {
  type OrderShape,
  orderFieldIssues,
  TRAILING_PERCENT_MESSAGE,
  trailingDistanceTooLarge,
} from './orders/order-rules.ts';
import { isTerminal } from './orders/order-states.ts';
import { OrderTable } from './orders/order-table.ts';
import { assetClassOf, type RejectReason, type Side, type Trade } from './orders/order-types.ts';
import {
  lazyWireOrder,
  newOrderRecord,
  type OrderRecord,
  remainingQuantity,
  withFill,
  withStatus,
} from './orders/order-view.ts';
import { expiresAt, isImmediate } from './orders/time-in-force.ts';
import { lazyWireTrade } from './orders/trade-view.ts';
import {
  type FillFigures,
  figuresOf,
  fillAmountOf,
  fillUnitsOf,
  pricedInUsd,
} from './positions/fill-figures.ts';
import {
  type CapturedPositions,
  type FillOutcome,
  PositionBook,
  type PositionSnapshot,
} from './positions/position-book.ts';
import { buildResultFiles } from './results/result-files.ts';
import { SampleCapture } from './results/sample-capture.ts';
import { type ExactSample, type SampleSource, TimeseriesSampler } from './results/timeseries-sampler.ts';
import type { CloseReason } from './results/trade-lot.ts';

/**
 * Orchestration (docs/engine.md): replays merged base bars, lets each instrument's matcher fill
 * resting orders, builds the subscribed candles, keeps the books, and stops at every batch of events.
 * It handles market, limit, stop, stop-limit and trailing-stop orders, GTC/DAY/IOC/FOK, post-only,
 * reduce-only, margin checks, brackets (exit legs placed on the entry's fill, one-cancels-other, stop
 * first when both touch in one bar, cancelled when the position closes otherwise), client OCO groups,
 * funding, margin calls and stop-outs.
 *
 * Callers speak typed commands (`orders/commands.ts`: `submit`, `modify`, `cancel`, `closePosition`,
 * `closeAllPositions`, `setExitLegs`) and get domain outcomes: accepted, or denied with a DenialCode.
 * The engine never sees wire JSON nor an HTTP status; the gateway's protocol module translates both.
 */

/** A configuration the engine cannot run (the message says what to change). */
export class EngineConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineConfigError';
  }
}

export interface EngineInstrument {
  symbol: string;
  market: MarketId;
  underlying: string;
  denomination: string;
  calendar: SessionCalendar;
}

export type UpdateKind = 'order_update' | 'position_update' | 'account_update' | 'trade_update';

export interface EngineSubscription {
  instrument: string;
  timeframes: readonly Timeframe[];
  updates: readonly UpdateKind[];
}

export interface EngineConfig {
  instruments: readonly EngineInstrument[];
  subscriptions: readonly EngineSubscription[];
  startTime: number;
  endTime: number;
  positionMode: 'netting' | 'hedging';
  initialCapital: string;
  commission?: CommissionSettings;
  slippage?: SlippageSettings;
  funding?: FundingSettings;
  engineVersion?: string;
  /**
   * Volume participation (docs/fills.md): the largest share of a bar's volume that fills may take, a
   * decimal in (0, 1]. Unset: fills are never limited by volume (orders fill whole).
   */
  maxVolumeParticipation?: string;
  /** Check the accounting identity after every group of bars (tests and debug runs). */
  assertIdentity?: boolean;
}

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

/** Events in the gateway's WebSocket shapes (trading-gateway.md, Events), before `seq` is stamped. */
export type EngineEvent = { type: string; timestamp: string } & Record<string, unknown>;

export type AdvanceResult = { kind: 'events'; events: EngineEvent[] } | { kind: 'need-data' };

interface PlaceOptions {
  /** Written on the lots the fill closes (a stop-out writes `Liquidation`). */
  closeReason?: CloseReason;
}

interface InstrumentState {
  spec: EngineInstrument;
  matcher: InstrumentMatcher;
  candles: CandleAggregator[];
  updates: ReadonlySet<UpdateKind>;
  /** Last closing quote, integers at `priceDecimals`. */
  bid: number;
  ask: number;
  priceDecimals: number;
  hasQuote: boolean;
  /** The same quote, its decimals made once per bar when an order needs them. */
  quote: TickQuote;
  /** The asset class's default leverage: positions are margined at it. */
  leverage: Dec;
  /** The last bar's volume (ticks) and what fills have taken of it under a participation limit. */
  volume: number;
  volumeDecimals: number;
  consumed: Dec;
  /** Whether the books need this quote every bar: an open position, or a currency-conversion pair. */
  marked: boolean;
  /** The book's mark of this symbol once it has one (updated in place, bar by bar). */
  mark: TickQuote | undefined;
}

function participationOf(value: string | undefined): Dec | undefined {
  if (value === undefined) return undefined;
  const share = new Dec(value);
  if (!share.gt(0) || share.gt(1))
    throw new EngineConfigError(`maxVolumeParticipation must be in (0, 1], not ${value}`);
  return share;
}

const MINUTE_MS = 60_000;
const iso = isoTime;

export class SimulationEngine {
  private readonly instruments: InstrumentState[];
  private readonly bySymbol = new Map<string, InstrumentState>();
  private readonly converter: CurrencyConverter;
  private readonly book: PositionBook;
  private readonly account: Account;
  private readonly sampler: TimeseriesSampler;
  private readonly orders = new OrderTable();
  /** DAY orders and the instant each expires. */
  private readonly expiries = new Map<string, number>();
  /** One-cancels-other groups and the exit legs the engine placed. */
  private readonly links = new OrderLinks();
  private readonly tradeLog: Trade[] = [];
  private readonly participation: Dec | undefined;
  private readonly margin: MarginMonitor;
  private readonly commission: CommissionSettings;
  private readonly slippage: SlippageSettings;
  private readonly outbox = new EventOutbox<EngineEvent>();
  private readonly conversionPairs: ReadonlySet<string>;
  /** Whether any subscription asked for account_update events. */
  private readonly accountUpdates: boolean;
  /** The balance and its version (bumped on every change), for the per-bar path. */
  private balanceVersion = 0;
  private balance: BalanceMoment;
  private flatSample: SampleSource | undefined;
  private groupTime: number | undefined;
  private pending = false;
  private changed = false;
  private tradeSeq = 0;
  /** Simulated time: the end of the last completed group of bars. */
  private clock: number;
  /** The time records and events are stamped with: the clock, or the end of the bar being filled. */
  private stamp: number;

  constructor(
    private readonly config: EngineConfig,
    /** Index of each cursor `symbolIndex` in `config.instruments`. */
    cursorSymbols: readonly string[],
  ) {
    const unconvertible = conversionProblems(config.instruments);
    if (unconvertible.length > 0) throw new EngineConfigError(unconvertible.join(' '));
    this.clock = config.startTime;
    this.stamp = config.startTime;
    this.participation = participationOf(config.maxVolumeParticipation);
    this.commission = config.commission ?? ZERO_COMMISSION;
    this.slippage = config.slippage ?? NO_SLIPPAGE;
    this.converter = new CurrencyConverter(config.instruments);
    this.book = new PositionBook({
      mode: config.positionMode,
      instruments: config.instruments,
      converter: this.converter,
    });
    this.account = new Account({ initialCapital: config.initialCapital, unrealized: this.book });
    this.balance = new BalanceMoment(this.account.balanceScaled);
    this.margin = new MarginMonitor({
      book: this.book,
      account: this.account,
      converter: this.converter,
      leverageOf: (symbol) => (this.bySymbol.get(symbol) as InstrumentState).leverage,
      balanceApprox: () => this.balance.approx,
    });
    this.conversionPairs = new Set(this.converter.conversionSymbols());
    this.accountUpdates = config.subscriptions.some((s) => s.updates.includes('account_update'));
    this.sampler = new TimeseriesSampler({
      startTime: config.startTime,
      endTime: config.endTime,
      initialCapital: config.initialCapital,
    });
    for (const spec of config.instruments) {
      const subscription = config.subscriptions.find((s) => s.instrument === spec.symbol);
      const state: InstrumentState = {
        spec,
        matcher: new InstrumentMatcher(spec.symbol),
        candles: (subscription?.timeframes ?? []).map(
          (tf) => new CandleAggregator(spec.symbol, tf, spec.calendar),
        ),
        updates: new Set(subscription?.updates ?? []),
        bid: 0,
        ask: 0,
        priceDecimals: 0,
        hasQuote: false,
        quote: new TickQuote(0, 0, 0),
        leverage: effectiveLeverage(assetClassOf(spec.market)),
        volume: 0,
        volumeDecimals: 0,
        consumed: DEC_ZERO,
        marked: this.conversionPairs.has(spec.symbol),
        mark: undefined,
      };
      this.bySymbol.set(spec.symbol, state);
    }
    this.instruments = cursorSymbols.map((symbol) => {
      const state = this.bySymbol.get(symbol);
      if (!state) throw new Error(`the bar cursor has ${symbol}, which the engine was not configured with`);
      return state;
    });
  }

  /** Simulated time now (epoch ms). */
  get now(): number {
    return this.clock;
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
        if (this.outbox.size > 0) return { kind: 'events', events: this.drain() };
      }
      if (this.groupTime === undefined && t > this.clock) {
        // A hole in the data: what falls in it (rollovers, DAY expiries, candle closes) happens at its
        // own time, at the last quotes, before the next bar.
        this.closeGroup(t);
        if (this.outbox.size > 0) return { kind: 'events', events: this.drain() };
      }
      this.groupTime = t;
      this.stamp = t + MINUTE_MS;
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
    return this.drain();
  }

  /** Events produced by order calls between batches (same simulated time). */
  drain(): EngineEvent[] {
    return this.outbox.take();
  }

  /**
   * A new order. Denied (nothing recorded) when its fields conflict, when a hedging order's
   * `position_id` cannot take it, or when an entry that fills at once has a bracket price already
   * through the market. Otherwise the order is recorded: REJECTED with its reason (an unknown symbol,
   * the margin, reduce-only, post-only, no quote for a market order), filled at once, or resting.
   */
  submit(command: SubmitOrder): SubmitOutcome {
    if (trailingDistanceTooLarge(command.trailing_type, command.trailing_distance)) {
      return deny('TRAILING_DISTANCE_TOO_LARGE', TRAILING_PERCENT_MESSAGE, {
        field: 'trailing_distance',
        provided: toDecimalString(command.trailing_distance as Dec),
      });
    }
    const issues = orderFieldIssues(command);
    if (issues.length > 0) return conflict(issues);
    const state = this.bySymbol.get(command.symbol);
    if (!state) return this.place(command, 'SYMBOL_NOT_TRADEABLE');
    if (this.config.positionMode === 'hedging' && command.position_id !== undefined) {
      const bracket = this.bracketOnPositionTarget(command.position_id, command);
      if (bracket) return bracket;
      const problem = this.positionTargetProblem(command);
      if (problem) {
        return deny('POSITION_TARGET_MISMATCH', problem, {
          field: 'position_id',
          provided: command.position_id,
        });
      }
    }
    if (command.stop_loss !== undefined || command.take_profit !== undefined) {
      const through = this.bracketThroughMarket(state, command);
      if (through) return through;
    }
    return this.place(command, null);
  }

  /**
   * Hedging: `position_id` names the open position an order reduces (docs/fills.md). It must be open, on
   * the order's symbol and on the other side; otherwise the command is denied.
   */
  private positionTargetProblem(request: SubmitOrder): string | undefined {
    const target = this.book.position(request.position_id as string);
    if (!target) return `position_id ${request.position_id} is not an open position.`;
    if (target.symbol !== request.symbol)
      return `position_id ${target.id} is a ${target.symbol} position, not ${request.symbol}.`;
    if ((target.side === 'LONG') === (request.side === 'BUY'))
      return `position_id ${target.id} is ${target.side}: a ${request.side} cannot reduce it (omit position_id to open a new position).`;
    return undefined;
  }

  /**
   * The rule `setExitLegs` applies to a moved leg, applied to a new bracket: an entry that fills at
   * once (a market order, or one marketable at the current quote) places its exit legs at once, so a
   * stop-loss or take-profit already through the market would exit as soon as the position opens.
   * A resting entry's legs are placed when it fills, on the entry's side of the price
   * (`orderFieldIssues` checks them against the entry's limit or stop).
   */
  private bracketThroughMarket(state: InstrumentState, command: SubmitOrder): Denial | undefined {
    if (!state.hasQuote) return undefined;
    if (command.order_type !== 'MARKET' && !this.marketablePrice(state, command)) return undefined;
    const exitSide: Side = command.side === 'BUY' ? 'SELL' : 'BUY';
    for (const [leg, price] of [
      ['stop', command.stop_loss],
      ['take', command.take_profit],
    ] as const) {
      if (!price) continue;
      const through = this.legThroughMarket(state, exitSide, leg, price);
      if (!through) continue;
      const field = leg === 'stop' ? 'stop_loss' : 'take_profit';
      const quote = toDecimalString(through);
      return deny(
        'BRACKET_THROUGH_MARKET',
        `${field} ${toDecimalString(price)} of a ${command.side} order that fills at once is already through the market (${exitSide === 'SELL' ? 'bid' : 'ask'} ${quote}): its exit would fill at once.`,
        { field, provided: toDecimalString(price), facts: { market: quote } },
      );
    }
    return undefined;
  }

  /**
   * The one rule for an exit leg's trigger against the market: the current quote on the exit's side
   * when a leg at `price` would fill at once (a stop already reached, a take-profit limit already
   * marketable), else undefined.
   */
  private legThroughMarket(
    state: InstrumentState,
    exitSide: Side,
    leg: LegKind,
    price: Dec,
  ): Dec | undefined {
    return this.marketablePrice(state, {
      side: exitSide,
      order_type: leg === 'stop' ? 'STOP' : 'LIMIT',
      limit_price: leg === 'take' ? price : null,
      stop_price: leg === 'stop' ? price : null,
    });
  }

  /** Places a validated request: refusals, immediate fills, or a resting order. */
  private place(
    request: SubmitOrder,
    rejectReason: RejectReason | null,
    options: PlaceOptions = {},
  ): SubmitOutcome {
    const id = this.nextOrderId();
    const correlationId = correlationOf(id);
    if (rejectReason) {
      const rejected = newOrderRecord(request, {
        id,
        at: this.stamp,
        correlationId,
        status: 'REJECTED',
        rejectReason,
      });
      this.orders.set(id, rejected);
      this.emitOrder('ORDER_REJECTED', rejected);
      return { ok: true, order: rejected, rejected: rejectReason };
    }
    const state = this.bySymbol.get(request.symbol) as InstrumentState;
    let order = newOrderRecord(request, { id, at: this.stamp, correlationId });
    this.orders.set(id, order);
    this.emitOrder('ORDER_CREATED', order);
    if (request.reduce_only && this.reduction(order).units.isZero())
      return this.reject(order, 'REDUCE_ONLY_VIOLATED');
    if (state.hasQuote && !this.isReducing(order) && this.margin.exceeds(this.marginRequest(state, request)))
      return this.reject(order, 'INSUFFICIENT_MARGIN');
    if (request.order_type === 'MARKET' && !state.hasQuote) return this.reject(order, 'MARKET_CLOSED');
    const quote = this.marketablePrice(state, request);
    if (quote && request.post_only) return this.reject(order, 'POST_ONLY_VIOLATED');
    // In its group before it can fill: a fill at once cancels the group's other members.
    if (request.oco_group_id) this.links.joinClientGroup(request.oco_group_id, id);
    if (request.order_type === 'MARKET') {
      this.fillNow(state, order, state.quote, options.closeReason);
      return { ok: true, order: this.orders.get(id) as OrderRecord };
    }
    if (quote) {
      // Marketable at submission: it trades now at the current quote (a limit gets the better price).
      this.fillNow(state, order, quote);
      return { ok: true, order: this.orders.get(id) as OrderRecord };
    }
    if (isImmediate(request.time_in_force)) {
      // IOC/FOK get one attempt, at once: nothing is marketable, so nothing fills.
      return { ok: true, order: this.cancelLive(id) };
    }
    order = this.addResting(state, order);
    return { ok: true, order };
  }

  /**
   * An order that trades at once at `price`. Without a volume limit it fills whole. With one, it fills
   * what the current bar's volume allows: FOK only when all of it fits (else it is cancelled), IOC
   * cancels the rest, any other order rests with the rest (a market order or a triggered stop as a
   * market order filling at the next bars' opens).
   */
  private fillNow(
    state: InstrumentState,
    order: OrderRecord,
    price: BasePrice,
    closeReason?: CloseReason,
  ): void {
    const available = this.availableUnits(state);
    if (order.time_in_force === 'FOK' && available?.lt(remainingQuantity(order))) {
      this.cancelLive(order.id);
      return;
    }
    this.execute(state, order, price, this.stamp, closeReason);
    const after = this.orders.get(order.id) as OrderRecord;
    if (isTerminal(after.status)) return;
    if (isImmediate(after.time_in_force)) this.cancelLive(after.id);
    else this.addResting(state, after, true);
  }

  /**
   * Puts a live order in its instrument's book (OPEN unless partly filled), with its DAY expiry.
   * `triggered`: it already traded at once, so a stop rests as a market order and a stop-limit as its
   * limit.
   */
  private addResting(state: InstrumentState, order: OrderRecord, triggered = false): OrderRecord {
    const live = order.status === 'PENDING' ? withStatus(order, 'OPEN', this.stamp) : order;
    this.orders.set(order.id, live);
    const expiry = expiresAt(live.time_in_force, state.spec.calendar, live.created_at);
    if (expiry !== null) this.expiries.set(live.id, expiry);
    let kind: RestingOrder['kind'] = live.order_type;
    if (triggered && (kind === 'STOP' || kind === 'TRAILING_STOP')) kind = 'MARKET';
    if (triggered && kind === 'STOP_LIMIT') kind = 'LIMIT';
    if (state.matcher.has(live.id)) {
      state.matcher.update(live.id, { kind });
      return live;
    }
    state.matcher.add({
      id: live.id,
      direction: live.side,
      kind,
      ...(live.limit_price && { limit: live.limit_price }),
      ...(live.stop_price && { stop: live.stop_price }),
      ...(kind === 'TRAILING_STOP' &&
        live.trailing_distance && {
          trailing: {
            type: live.trailing_type ?? 'ABSOLUTE',
            distance: live.trailing_distance,
            best: quoteOn(state.quote, live.side),
          },
        }),
    });
    return live;
  }

  /**
   * Units the current bar still offers an order under the volume-participation limit: the limit x the
   * bar's volume, less what fills took from it; undefined when no limit is configured.
   */
  private availableUnits(state: InstrumentState): Dec | undefined {
    if (!this.participation) return undefined;
    const volume = new Dec(ticksToDecimalString(state.volume, state.volumeDecimals));
    const left = this.participation.times(volume).minus(state.consumed);
    return left.gt(DEC_ZERO) ? left : DEC_ZERO;
  }

  private nextOrderId(): string {
    return this.orders.nextId();
  }

  /**
   * Orders that may only reduce: reduce-only orders, the exit legs the engine placed, and (hedging)
   * orders aimed at a position with `position_id`. Their fills are trimmed to what the position holds.
   */
  private isReducing(order: OrderRecord): boolean {
    return (
      order.reduce_only === true ||
      this.links.isLeg(order.id) ||
      (this.config.positionMode === 'hedging' && order.position_id !== null)
    );
  }

  /**
   * What a reducing order may fill now: netting, the symbol's position when it is on the other side;
   * hedging, its `position_id` (or, for a reduce-only order without one, the oldest position on the
   * other side). Zero when there is nothing to reduce.
   */
  private reduction(order: OrderRecord): { units: Dec; positionId?: string } {
    const target = this.positionReducedBy(order.symbol, order.side, order.position_id);
    if (!target) return { units: DEC_ZERO };
    return this.config.positionMode === 'hedging'
      ? { units: target.quantity, positionId: target.id }
      : { units: target.quantity };
  }

  /**
   * The open position an order of `side` on `symbol` reduces, if any: netting, the symbol's position
   * when it is on the other side; hedging, the position named (or the oldest on the other side).
   */
  private positionReducedBy(
    symbol: string,
    side: Side,
    positionId: string | null | undefined,
  ): PositionSnapshot | undefined {
    const opposite = side === 'BUY' ? 'SHORT' : 'LONG';
    const target =
      this.config.positionMode === 'netting'
        ? this.book.positionOf(symbol)
        : positionId
          ? this.book.position(positionId)
          : this.book.positions(symbol).find((p) => p.side === opposite);
    return target && target.symbol === symbol && target.side === opposite ? target : undefined;
  }

  /** Whether an exit leg protects `position` (hedging: the position it names; netting: the symbol's). */
  private legProtects(leg: ExitLeg, position: PositionSnapshot): boolean {
    return this.config.positionMode === 'hedging'
      ? leg.positionId === position.id
      : leg.positionId === undefined;
  }

  /** Cancels the other live members of a filled order's one-cancels-other group. */
  private settleGroup(orderId: string): void {
    this.dissolveGroup(orderId, orderId);
  }

  /** Ends the group of `orderId`, cancelling every live member but `keep`. */
  private dissolveGroup(orderId: string, keep?: string): void {
    for (const member of this.links.dissolve(orderId, keep)) {
      const sibling = this.orders.get(member);
      if (sibling && !isTerminal(sibling.status)) this.cancelLive(member);
    }
  }

  /**
   * An entry with a stop-loss and/or take-profit filled `units`: its first fill places the exit legs,
   * sized to it; each later fill (under a volume limit) grows the live legs by its units.
   */
  private bracketOnFill(state: InstrumentState, entry: OrderRecord, units: Dec, outcome: FillOutcome): void {
    const live = this.links.legsOfEntry(entry.id);
    if (live.length === 0) {
      const opened = outcome.events.find(
        (e) => e.type === 'POSITION_OPENED' || e.type === 'POSITION_MODIFIED',
      );
      const positionId = this.config.positionMode === 'hedging' ? opened?.position.view.id : undefined;
      this.placeBracket(state, entry, positionId, units);
      return;
    }
    for (const legId of live) {
      const leg = this.orders.get(legId) as OrderRecord;
      const grown: OrderRecord = { ...leg, quantity: leg.quantity.plus(units), updated_at: this.stamp };
      this.orders.set(legId, grown);
      this.emitOrder('BRACKET_ORDER_MODIFIED', grown);
    }
  }

  /** Places the exit legs of a filled entry that asked for a stop-loss and/or a take-profit. */
  private placeBracket(
    state: InstrumentState,
    entry: OrderRecord,
    positionId: string | undefined,
    quantity: Dec,
  ): void {
    const exitSide = entry.side === 'BUY' ? 'SELL' : 'BUY';
    const legs: ['stop' | 'take', Dec | null][] = [
      ['stop', entry.stop_loss],
      ['take', entry.take_profit],
    ];
    for (const [leg, price] of legs) {
      if (!price) continue;
      const id = this.nextOrderId();
      const record = newOrderRecord(
        {
          symbol: entry.symbol,
          side: exitSide,
          quantity,
          order_type: leg === 'stop' ? 'STOP' : 'LIMIT',
          time_in_force: 'GTC',
          ...(leg === 'stop' ? { stop_price: price } : { limit_price: price }),
          ...(positionId !== undefined && { position_id: positionId }),
        },
        { id, at: this.stamp, correlationId: entry.correlation_id, parentOrderId: entry.id },
      );
      const open = withStatus(record, 'OPEN', this.stamp);
      this.orders.set(id, open);
      state.matcher.add({
        id,
        direction: exitSide,
        kind: leg === 'stop' ? 'STOP' : 'LIMIT',
        ...(leg === 'stop' ? { stop: price } : { limit: price }),
      });
      this.links.addLeg(entry.id, id, { leg, positionId });
      this.emitOrder('BRACKET_ORDER_CREATED', open);
    }
  }

  /**
   * Exit legs follow the position they protect: legs whose position is gone (closed or reversed by
   * another order) are cancelled with their sibling; a leg larger than what remains of its position is
   * resized down to it (BRACKET_ORDER_MODIFIED), so an exit never opens a new position.
   */
  private reconcileLegs(symbol: string, at: number): void {
    for (const [orderId, leg] of this.links.allLegs()) {
      const order = this.orders.get(orderId);
      if (!order || order.symbol !== symbol || isTerminal(order.status)) continue;
      const held = this.protectedUnits(order.symbol, order.side, leg.positionId);
      if (held.isZero()) {
        this.dissolveGroup(orderId);
        continue;
      }
      if (remainingQuantity(order).lte(held)) continue;
      const resized: OrderRecord = { ...order, quantity: order.filled_quantity.plus(held), updated_at: at };
      this.orders.set(orderId, resized);
      this.emitOrder('BRACKET_ORDER_MODIFIED', resized);
    }
  }

  /** Units of the position an exit of `exitSide` protects (netting: the symbol's; hedging: its own). */
  private protectedUnits(symbol: string, exitSide: Side, positionId: string | undefined): Dec {
    return this.positionReducedBy(symbol, exitSide, positionId)?.quantity ?? DEC_ZERO;
  }

  /**
   * The price an order trades at right now, if the current quote already satisfies it: a limit
   * through the quote, a stop already through its trigger (a stop-limit only if its limit is then
   * marketable too). Buys look at the ask, sells at the bid.
   */
  private marketablePrice(
    state: InstrumentState,
    request: {
      side: Side;
      order_type: SubmitOrder['order_type'];
      limit_price?: Dec | null | undefined;
      stop_price?: Dec | null | undefined;
    },
  ): Dec | undefined {
    const type = request.order_type;
    if (!state.hasQuote || (type !== 'LIMIT' && type !== 'STOP' && type !== 'STOP_LIMIT')) return undefined;
    const buy = request.side === 'BUY';
    const quote = quoteOn(state.quote, request.side);
    switch (type) {
      case 'LIMIT':
        return reaches(quote, buy, request.limit_price, 'limit') ? quote : undefined;
      case 'STOP':
        return reaches(quote, buy, request.stop_price, 'stop') ? quote : undefined;
      default:
        return reaches(quote, buy, request.stop_price, 'stop') &&
          reaches(quote, buy, request.limit_price, 'limit')
          ? quote
          : undefined;
    }
  }

  /** Cancels a live order; an unknown or terminal one is denied. */
  cancel(orderId: string): CancelOutcome {
    const live = this.liveOrder(orderId, 'cancelled');
    return live.ok ? { ok: true, order: this.cancelLive(orderId) } : live;
  }

  /** The order behind a cancel or modify: denied when unknown or terminal. */
  private liveOrder(
    orderId: string,
    verb: 'cancelled' | 'modified',
  ): { ok: true; order: OrderRecord } | Denial {
    const order = this.orders.get(orderId);
    if (!order) return deny('UNKNOWN_ORDER', `There is no order ${orderId}.`, { provided: orderId });
    if (isTerminal(order.status)) {
      return deny(
        'ORDER_NOT_MODIFIABLE',
        `Order ${orderId} is ${order.status}: a terminal order cannot be ${verb}.`,
        { provided: orderId },
      );
    }
    return { ok: true, order };
  }

  /** Cancels a live order: out of the book, its expiry, its leg tracking and its group. */
  private cancelLive(orderId: string): OrderRecord {
    const order = this.orders.get(orderId) as OrderRecord;
    const state = this.bySymbol.get(order.symbol) as InstrumentState;
    state.matcher.remove(orderId);
    this.expiries.delete(orderId);
    this.links.forget(orderId);
    const cancelled = withStatus(order, 'CANCELLED', this.stamp);
    this.orders.set(orderId, cancelled);
    this.emitOrder('ORDER_CANCELLED', cancelled);
    return cancelled;
  }

  /**
   * Changes the quantity (at least the filled quantity), prices, bracket prices or trailing distance
   * of a live order, in place (docs/fills.md "Modifying orders"); the modified order must pass the
   * rules between its fields. A change that makes a resting order marketable trades it at once at the
   * current quote, as a new order would; a post-only order is denied that change instead. New bracket
   * prices on an entry whose legs are already placed move the legs too. No change: the order as it is.
   */
  modify(orderId: string, changes: ModifyOrder): ModifyOutcome {
    const live = this.liveOrder(orderId, 'modified');
    if (!live.ok) return live;
    const order = live.order;
    const refused = this.modificationProblem(order, changes);
    if (refused) return refused;
    if (!changesAnything(changes)) return { ok: true, order };
    const state = this.bySymbol.get(order.symbol) as InstrumentState;
    const resting = state.matcher.get(orderId);
    let next: OrderRecord = {
      ...order,
      ...(changes.quantity && { quantity: changes.quantity }),
      ...(changes.limit_price && { limit_price: changes.limit_price }),
      ...(changes.stop_price && { stop_price: changes.stop_price }),
      ...(changes.stop_loss && { stop_loss: changes.stop_loss }),
      ...(changes.take_profit && { take_profit: changes.take_profit }),
      ...(changes.trailing_distance && { trailing_distance: changes.trailing_distance }),
      updated_at: this.stamp,
    };
    const quote = resting
      ? this.marketablePrice(state, {
          side: next.side,
          order_type: resting.triggered ? 'LIMIT' : next.order_type,
          limit_price: next.limit_price,
          stop_price: next.stop_price,
        })
      : undefined;
    if (quote && next.post_only) {
      const field = changes.limit_price ? 'limit_price' : 'stop_price';
      return deny(
        'POST_ONLY_WOULD_TRADE',
        `${field} would make this post-only order trade at once; it was left unchanged.`,
        { field, provided: toDecimalString((changes[field] ?? next[field]) as Dec) },
      );
    }
    if (remainingQuantity(next).isZero()) next = withStatus(next, 'FILLED', this.stamp);
    this.orders.set(orderId, next);
    if (resting) {
      if (next.status === 'FILLED') {
        state.matcher.remove(orderId);
        this.expiries.delete(orderId);
      } else {
        state.matcher.update(orderId, {
          ...(next.limit_price && { limit: next.limit_price }),
          ...(next.stop_price && { stop: next.stop_price }),
          ...(resting.trailing &&
            next.trailing_distance && {
              trailing: { ...resting.trailing, distance: next.trailing_distance },
            }),
        });
      }
    }
    this.emitOrder(this.links.isLeg(orderId) ? 'BRACKET_ORDER_MODIFIED' : 'ORDER_MODIFIED', next);
    if (next.status === 'FILLED') this.settleGroup(orderId);
    if (changes.stop_loss || changes.take_profit) this.moveBracketOf(orderId, changes);
    if (quote && resting) this.fillNow(state, this.orders.get(orderId) as OrderRecord, quote);
    return { ok: true, order: this.orders.get(orderId) as OrderRecord };
  }

  /**
   * Why a live order cannot take `changes`, checked in this order: a quantity below the filled
   * quantity, a PERCENT trailing distance of 100 or more, the modified order's fields in conflict, a
   * bracket on an order aimed at a position, an exit leg grown beyond its position.
   */
  private modificationProblem(order: OrderRecord, changes: ModifyOrder): Denial | undefined {
    if (changes.quantity?.lt(order.filled_quantity)) {
      const filled = toDecimalString(order.filled_quantity);
      return deny('QUANTITY_BELOW_FILLED', `quantity must be at least the filled quantity ${filled}.`, {
        field: 'quantity',
        provided: toDecimalString(changes.quantity),
        facts: { filled_quantity: filled },
      });
    }
    if (trailingDistanceTooLarge(order.trailing_type, changes.trailing_distance)) {
      return deny('TRAILING_DISTANCE_TOO_LARGE', TRAILING_PERCENT_MESSAGE, {
        field: 'trailing_distance',
        provided: toDecimalString(changes.trailing_distance as Dec),
      });
    }
    const orNull = (d: Dec | null | undefined) => d ?? undefined;
    const merged: OrderShape = {
      side: order.side,
      order_type: order.order_type,
      time_in_force: order.time_in_force,
      quantity: changes.quantity ?? order.quantity,
      limit_price: changes.limit_price ?? orNull(order.limit_price),
      stop_price: changes.stop_price ?? orNull(order.stop_price),
      stop_loss: changes.stop_loss ?? orNull(order.stop_loss),
      take_profit: changes.take_profit ?? orNull(order.take_profit),
      trailing_distance: changes.trailing_distance ?? orNull(order.trailing_distance),
      trailing_type: order.trailing_type ?? undefined,
      display_quantity: orNull(order.display_quantity),
      reduce_only: order.reduce_only ?? undefined,
      post_only: order.post_only ?? undefined,
    };
    const issues = orderFieldIssues(merged, changes);
    if (issues.length > 0) return conflict(issues);
    const bracket = this.bracketOnPositionTarget(order.position_id, changes);
    if (bracket) return bracket;
    const leg = this.links.leg(order.id);
    if (leg && changes.quantity) {
      const held = this.protectedUnits(order.symbol, order.side, leg.positionId);
      const most = order.filled_quantity.plus(held);
      if (changes.quantity.gt(most)) {
        const max = toDecimalString(most);
        return deny(
          'LEG_EXCEEDS_POSITION',
          `An exit leg cannot exceed the position it protects: quantity may be at most ${max}.`,
          { field: 'quantity', provided: toDecimalString(changes.quantity), facts: { max_quantity: max } },
        );
      }
    }
    return undefined;
  }

  /**
   * The one home of the rule that a hedging order with `position_id` carries no `stop_loss` or
   * `take_profit`, at submission and in a modification alike: it only reduces the position it names
   * and opens none for legs to protect (its legs would be live with nothing on their exit side).
   * Under netting `position_id` is ignored, so brackets are allowed.
   */
  private bracketOnPositionTarget(
    positionId: string | null | undefined,
    prices: { stop_loss?: Dec | undefined; take_profit?: Dec | undefined },
  ): Denial | undefined {
    if (this.config.positionMode !== 'hedging' || positionId === null || positionId === undefined)
      return undefined;
    if (!prices.stop_loss && !prices.take_profit) return undefined;
    const field = prices.stop_loss ? 'stop_loss' : 'take_profit';
    const message = `An order with position_id reduces that position and opens none for ${field} to protect.`;
    return deny('BRACKET_ON_POSITION_TARGET', message, {
      field,
      provided: toDecimalString((prices.stop_loss ?? prices.take_profit) as Dec),
    });
  }

  /** An entry's new bracket prices move the legs it has already placed. */
  private moveBracketOf(entryId: string, prices: { stop_loss?: Dec; take_profit?: Dec }): void {
    for (const legId of this.links.legsOfEntry(entryId)) {
      const leg = this.links.leg(legId);
      const price = leg?.leg === 'stop' ? prices.stop_loss : prices.take_profit;
      if (leg && price) this.repriceLeg(legId, leg.leg, price);
    }
  }

  /** Moves a live exit leg's trigger in place (the id is kept) and tells the strategy. */
  private repriceLeg(legId: string, leg: 'stop' | 'take', price: Dec): void {
    const order = this.orders.get(legId) as OrderRecord;
    const state = this.bySymbol.get(order.symbol) as InstrumentState;
    const moved: OrderRecord =
      leg === 'stop'
        ? { ...order, stop_price: price, updated_at: this.stamp }
        : { ...order, limit_price: price, updated_at: this.stamp };
    this.orders.set(legId, moved);
    state.matcher.update(legId, leg === 'stop' ? { stop: price } : { limit: price });
    this.emitOrder('BRACKET_ORDER_MODIFIED', moved);
  }

  /** Every order, in creation order (the gateway filters them). */
  listOrders(): readonly OrderRecord[] {
    return [...this.orders.values()];
  }

  order(orderId: string): OrderRecord | undefined {
    return this.orders.get(orderId);
  }

  /** Every fill so far, in order (`GET /v1/trades`). */
  trades(): readonly Trade[] {
    return this.tradeLog;
  }

  /** The last completed base bar's closing bid and ask (the engine's current quote). */
  quote(symbol: string): { bid: string; ask: string; time: number } | undefined {
    const state = this.bySymbol.get(symbol);
    if (!state?.hasQuote) return undefined;
    return {
      bid: ticksToDecimalString(state.bid, state.priceDecimals),
      ask: ticksToDecimalString(state.ask, state.priceDecimals),
      time: this.clock,
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
  closePosition(positionId: string, close: ClosePosition = FULL_CLOSE): SubmitOutcome {
    const position = this.book.position(positionId);
    if (!position) {
      return deny('POSITION_NOT_FOUND', `There is no open position ${positionId}.`, { provided: positionId });
    }
    if (close.quantity?.gt(position.quantity)) {
      const held = toDecimalString(position.quantity);
      return deny('CLOSE_EXCEEDS_POSITION', `quantity must not exceed the position's ${held}.`, {
        field: 'quantity',
        provided: toDecimalString(close.quantity),
        facts: { position_quantity: held },
      });
    }
    if (close.cancel_associated_orders) this.cancelAssociatedOrders(position);
    const limitPrice = close.order_type === 'LIMIT' ? close.limit_price : undefined;
    return this.place(this.closingRequest(position, close.quantity, close.order_type, limitPrice), null);
  }

  /** Closes every open position (of `symbol`) at market, in id order. */
  closeAllPositions(symbol?: string): SubmitOutcome[] {
    return this.book.positions(symbol).map((p) => this.closePosition(p.id));
  }

  private closingRequest(
    position: PositionSnapshot,
    quantity: Dec | undefined,
    orderType: 'MARKET' | 'LIMIT',
    limitPrice?: Dec,
  ): SubmitOrder {
    return {
      symbol: position.symbol,
      side: position.side === 'LONG' ? 'SELL' : 'BUY',
      quantity: quantity ?? position.quantity,
      order_type: orderType,
      time_in_force: 'GTC',
      reduce_only: true,
      ...(limitPrice && { limit_price: limitPrice }),
      ...(this.config.positionMode === 'hedging' && { position_id: position.id }),
    };
  }

  /** The position's exit legs, and the resting orders aimed at it (hedging) or reducing it (netting). */
  private cancelAssociatedOrders(position: PositionSnapshot): void {
    const state = this.bySymbol.get(position.symbol) as InstrumentState;
    const hedging = this.config.positionMode === 'hedging';
    for (const orderId of state.matcher.ids()) {
      const order = this.orders.get(orderId) as OrderRecord;
      if (isTerminal(order.status)) continue;
      const leg = this.links.leg(orderId);
      const associated = leg
        ? this.legProtects(leg, position)
        : hedging
          ? order.position_id === position.id
          : order.reduce_only === true;
      if (!associated) continue;
      if (leg) this.dissolveGroup(orderId);
      else this.cancelLive(orderId);
    }
  }

  /**
   * Moves the exit legs the engine placed for the position. The simulation modifies natively, so ids
   * are kept; every resting part of a leg moves together; the stop leg moves first, then the
   * take-profit, and a denied second move leaves the first moved. A move is denied (the leg left where
   * it was) when the leg is not tracked or the new trigger is already through the market (it would
   * fill at once). The leg is never cancelled, so a position is never left unprotected here.
   */
  setExitLegs(positionId: string, legs: SetExitLegs): ExitLegsOutcome {
    const position = this.book.position(positionId);
    if (!position) {
      return deny('POSITION_NOT_FOUND', `There is no open position ${positionId}.`, { provided: positionId });
    }
    const state = this.bySymbol.get(position.symbol) as InstrumentState;
    const exitSide: Side = position.side === 'LONG' ? 'SELL' : 'BUY';
    for (const [leg, price] of [
      ['stop', legs.stop_loss],
      ['take', legs.take_profit],
    ] as const) {
      if (!price) continue;
      const name = leg === 'stop' ? 'stop_loss' : 'take_profit';
      const ids = this.legIdsOf(position, leg);
      if (ids.length === 0) {
        return deny(
          'EXIT_LEG_NOT_FOUND',
          `Position ${positionId} has no ${name} leg placed by the gateway to move.`,
          { field: name, facts: { leg: name } },
        );
      }
      const through = this.legThroughMarket(state, exitSide, leg, price);
      if (through) {
        const quote = toDecimalString(through);
        return deny(
          'EXIT_LEG_THROUGH_MARKET',
          `The ${name} ${toDecimalString(price)} is already through the market (${quote}): the move was rejected and the original leg restored.`,
          { field: name, provided: toDecimalString(price), facts: { leg: name, market: quote } },
        );
      }
      for (const id of ids) this.repriceLeg(id, leg, price);
    }
    return {
      ok: true,
      position_id: positionId,
      stop_loss: this.legView(position, 'stop'),
      take_profit: this.legView(position, 'take'),
    };
  }

  private legIdsOf(position: PositionSnapshot, kind: 'stop' | 'take'): string[] {
    const ids: string[] = [];
    for (const [orderId, leg] of this.links.allLegs()) {
      const order = this.orders.get(orderId) as OrderRecord;
      if (leg.leg !== kind || order.symbol !== position.symbol || isTerminal(order.status)) continue;
      if (this.legProtects(leg, position)) ids.push(orderId);
    }
    return ids;
  }

  private legView(position: PositionSnapshot, kind: 'stop' | 'take'): ExitLegView | null {
    const ids = this.legIdsOf(position, kind);
    const first = ids[0] ? this.orders.get(ids[0]) : undefined;
    if (!first) return null;
    const price = kind === 'stop' ? first.stop_price : first.limit_price;
    return { order_ids: ids, trigger_price: toDecimalString(price as Dec) };
  }

  accountView() {
    return this.account.view(this.margin.marginUsed());
  }

  /** Margin locked by open positions: notional in USD at the current price over the leverage. */
  marginUsed(): Dec {
    return this.margin.marginUsed();
  }

  /** A new order's margin question, at its own price or the current quote. */
  private marginRequest(state: InstrumentState, request: SubmitOrder): MarginRequest {
    return {
      symbol: request.symbol,
      side: request.side,
      quantity: request.quantity,
      price: request.limit_price ?? request.stop_price ?? undefined,
      quote: state.quote,
      leverage: effectiveLeverage(assetClassOf(state.spec.market), request.leverage ?? null),
      denomination: state.spec.denomination,
      netting: this.config.positionMode === 'netting',
    };
  }

  /** The three result files and the metrics, from everything replayed so far. */
  results() {
    const timeseries = this.sampler.finish();
    return buildResultFiles({
      engineVersion: this.config.engineVersion ?? '0.1.0',
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
      for (const fill of outcome.fills) {
        const order = this.orders.get(fill.orderId) as OrderRecord;
        // A sibling that filled earlier in this bar has cancelled it (one-cancels-other).
        if (order.status !== 'OPEN' && order.status !== 'PARTIALLY_FILLED') continue;
        this.execute(state, order, fill.price, fill.time ?? barEnd);
        // Filled in part under a volume limit: a triggered stop goes on as a market order.
        const after = this.orders.get(fill.orderId) as OrderRecord;
        if (!isTerminal(after.status) && state.matcher.has(after.id)) this.addResting(state, after, true);
      }
    }
    for (const aggregator of state.candles) {
      const early = aggregator.add(batch, row);
      if (early) this.emitCandle(early);
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

  /** DAY orders whose session ended by `clock` expire, stamped with their session end. */
  private expireBy(clock: number): void {
    for (const [orderId, expiry] of this.expiries) {
      if (expiry > clock) continue;
      this.expiries.delete(orderId);
      const order = this.orders.get(orderId) as OrderRecord;
      (this.bySymbol.get(order.symbol) as InstrumentState).matcher.remove(orderId);
      const expired = withStatus(order, 'EXPIRED', expiry);
      this.orders.set(orderId, expired);
      this.emitOrder('ORDER_EXPIRED', expired);
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
    return { ...outcome, fills: this.links.stopLegsFirst(outcome.fills) };
  }

  private closeGroup(clock: number): void {
    const previous = this.clock;
    this.clock = clock;
    this.stamp = clock;
    this.chargeFunding(previous, clock);
    if (this.expiries.size > 0) this.expireBy(clock);
    for (const state of this.instruments) {
      for (const aggregator of state.candles) {
        const closed = aggregator.closeBy(clock);
        if (closed) this.emitCandle(closed);
      }
    }
    const flat = this.book.size === 0;
    let navApprox = this.balance.approx;
    if (!flat || this.margin.state !== 'ok') {
      const approx = this.margin.approx();
      navApprox = approx.nav;
      this.checkMargin(clock, navApprox, approx.marginUsd);
    }
    if (this.config.assertIdentity) this.account.assertIdentity();
    this.sampler.offerLazy(
      clock,
      navApprox,
      this.balanceVersion,
      this.changed,
      this.sampleSource(),
      // Flat, the NAV is the balance: at hand without computing.
      flat ? this.balance.value : undefined,
    );
    this.changed = false;
  }

  /**
   * The exact sample values of this moment, computed later only if the sampler keeps the point: the
   * balance and the positions' numbers are immutable values captured now, with the marks' ticks, into
   * a capture the sampler has released when there is one.
   */
  private sampleSource(): SampleSource {
    const balance = this.balance;
    if (this.book.size === 0) {
      this.flatSample ??= {
        sample: () => ({ balance: balance.text, nav: balance.text, marginUsed: '0', canonical: true }),
      };
      return this.flatSample;
    }
    const released = this.sampler.releasedSource();
    const capture = released instanceof SampleCapture ? released : new SampleCapture(this.valueSample);
    capture.balance = balance;
    this.book.capture(capture.positions);
    return capture;
  }

  private readonly valueSample = (balance: BalanceMoment, positions: CapturedPositions): ExactSample =>
    this.sampleOf(balance, positions);

  /**
   * A kept point's exact values. As the account's equity, NAV is the exact balance plus the unrealized
   * P&L. In scaled integers when every position allows it (USD, marked, a finite 1 / leverage), which
   * gives the same numbers as the decimal path, written directly as text.
   */
  private sampleOf(balance: BalanceMoment, positions: CapturedPositions): ExactSample {
    const scaled = positions.scaled();
    const marginUsed = scaled && this.margin.marginTextOf(scaled);
    if (scaled && marginUsed !== undefined) {
      const nav = scaledText(add(balance.scaled, scaled.unrealizedUsd));
      return { balance: balance.text, nav, marginUsed, canonical: true };
    }
    const value = positions.exact();
    const nav = new Dec(new Exact(balance.value).plus(value.unrealizedUsd));
    return { balance: balance.value, nav, marginUsed: this.margin.marginOf(value) };
  }

  /** After the balance changed: its version and values follow. */
  private afterBalanceChange(): void {
    this.balanceVersion += 1;
    this.balance = new BalanceMoment(this.account.balanceScaled);
    this.flatSample = undefined;
  }

  /**
   * Margin levels at the close of each minute (docs/fills.md "Margin"): a move to a worse state emits
   * MARGIN_WARNING or MARGIN_CALL (always, whatever the subscription: they are alerts); at stop-out the
   * positions are liquidated at market one at a time, largest loss first, until the level is above the
   * stop-out level again.
   */
  private checkMargin(clock: number, navApprox: number, marginApprox: number): void {
    const change = this.margin.check(navApprox, marginApprox);
    if (!change) return;
    if (change.event) {
      const account = this.account.view(change.marginUsed);
      this.outbox.push({ type: 'account', event: change.event, account, timestamp: iso(clock) });
    }
    if (change.state !== 'stop_out') return;
    for (let next = this.margin.nextLiquidation(); next; next = this.margin.nextLiquidation()) {
      this.liquidate(next.position, next.levelPct, clock);
    }
    this.margin.recheck();
  }

  /** Closes a position at market with `close_reason` Liquidation and reports it (`error` LIQUIDATION). */
  private liquidate(position: PositionSnapshot, levelPct: Dec, clock: number): void {
    this.cancelAssociatedOrders(position);
    const result = this.place(this.closingRequest(position, undefined, 'MARKET'), null, {
      closeReason: 'Liquidation',
    });
    const orderId = result.ok ? result.order.id : null;
    const level = toDecimalString(levelPct.toDecimalPlaces(2, Dec.ROUND_DOWN));
    this.outbox.push({
      type: 'error',
      code: 'LIQUIDATION',
      message: `Stop-out at margin level ${level}%: ${position.side} ${position.view.quantity} ${position.symbol} (position ${position.id}) was closed at market.`,
      details: {
        position_id: position.id,
        symbol: position.symbol,
        side: position.side,
        quantity: position.view.quantity,
        order_id: orderId,
        margin_level_pct: level,
      },
      timestamp: iso(clock),
    });
  }

  /**
   * Daily funding (decision 5): at each 17:00 New York rollover in (from, to], every position opened
   * before it is charged units x its closing side price (bid long, ask short) in USD x rate x
   * days_charged / day_count_basis. The price is the last quote at the rollover's bar close.
   */
  private chargeFunding(from: number, to: number): void {
    const settings = this.config.funding;
    if (!settings || settings.model === 'disabled') return;
    for (const rollover of rolloversBetween(from, to)) {
      for (const position of this.book.positions()) {
        if (position.openedAt >= rollover) continue;
        const valueUsd = this.converter.toUsd(
          position.quantity.times(position.currentPrice),
          position.currency,
        );
        const amount = fundingAmount(settings, position.side, valueUsd, rollover);
        if (amount.isZero()) continue;
        this.account.bookFunding(amount);
        this.afterBalanceChange();
        this.changed = true;
        this.emitAccount(rollover);
      }
    }
  }

  /**
   * Fills the remaining quantity at `basePrice` plus slippage, and books it. A reducing order is
   * trimmed to what its position holds (the rest is cancelled), and cancelled when there is nothing
   * left to reduce.
   */
  private execute(
    state: InstrumentState,
    order: OrderRecord,
    basePrice: BasePrice,
    at = this.stamp,
    closeReason?: CloseReason,
  ): void {
    let units = remainingQuantity(order);
    let positionId: string | undefined;
    /** Trimmed to its position: the rest can never fill and is cancelled. */
    let trimmed = false;
    if (this.isReducing(order)) {
      const reduction = this.reduction(order);
      if (reduction.units.isZero()) {
        this.cancelLive(order.id);
        return;
      }
      if (reduction.units.lt(units)) {
        units = reduction.units;
        trimmed = true;
      }
      positionId = reduction.positionId;
    }
    const available = this.availableUnits(state);
    if (available !== undefined) {
      // Volume-limited: the rest waits for the next bars.
      if (available.isZero()) return;
      if (available.lt(units)) {
        units = available;
        trimmed = false;
      }
      state.consumed = state.consumed.plus(units);
    }
    const figures = this.priceFill(state, order.side, units, basePrice);
    const outcome: FillOutcome = this.book.applyPriced(
      {
        // One literal with every field (absent ones undefined): conditional spreads copied the object
        // through the runtime and gave the book a shape per combination.
        positionId,
        orderId: order.id,
        symbol: order.symbol,
        side: order.side,
        time: at,
        closeReason,
        // Read only for position_update events, and by a hedging bracket for its position's id.
        events:
          state.updates.has('position_update') ||
          (this.config.positionMode === 'hedging' && !!(order.stop_loss || order.take_profit)),
      },
      figures,
    );
    this.account.bookAmounts(outcome.realizedUsd, outcome.commission);
    this.afterBalanceChange();
    // Decision 4: positions are marked at the last completed bar's bid (long) or ask (short) at once.
    if (state.hasQuote) {
      state.mark = this.book.markTicks(order.symbol, state.bid, state.ask, state.priceDecimals);
    }
    state.marked = this.book.holds(order.symbol) || this.conversionPairs.has(order.symbol);
    const isLeg = this.links.isLeg(order.id);
    const filled = withFill(order, units, figures.priceText, at);
    this.orders.set(order.id, filled);
    this.changed = true;
    this.emitOrder(filled.status === 'FILLED' ? 'ORDER_FILLED' : 'ORDER_PARTIALLY_FILLED', filled);
    const trade = lazyWireTrade({
      sequence: ++this.tradeSeq,
      orderId: order.id,
      symbol: order.symbol,
      side: order.side,
      unitsText: figures.unitsText,
      priceText: figures.priceText,
      commission: figures.commission,
      at,
    });
    this.tradeLog.push(trade);
    if (state.updates.has('trade_update'))
      this.outbox.push({ type: 'trade', event: 'TRADE_FILLED', trade, timestamp: iso(at) });
    if (state.updates.has('position_update')) {
      for (const event of outcome.events) {
        this.outbox.push({
          type: 'position',
          event: event.type,
          position: event.position.view,
          timestamp: iso(at),
        });
      }
    }
    this.emitAccount(at);
    if (filled.status === 'FILLED') {
      state.matcher.remove(order.id);
      this.expiries.delete(order.id);
    }
    // A partly filled exit leg shrinks its sibling (below) instead of cancelling it.
    if (!isLeg || filled.status === 'FILLED') this.settleGroup(order.id);
    // A trimmed reducing order has nothing left to do: its remainder is cancelled.
    if (trimmed) this.cancelLive(order.id);
    if (!isLeg && (filled.stop_loss || filled.take_profit)) this.bracketOnFill(state, filled, units, outcome);
    this.reconcileLegs(order.symbol, at);
  }

  /**
   * A fill's price after slippage and its commission (docs/fills.md), as the figures the books, the
   * trade and the order's average take. A USD-quoted fill is priced in scaled integers when no step of
   * the decimal formulas rounds (the same numbers), any other in decimals.
   */
  private priceFill(state: InstrumentState, side: Side, units: Dec, base: BasePrice): FillFigures {
    const currency = state.spec.denomination;
    if (currency === ACCOUNT_CURRENCY) {
      const baseAmount = base instanceof TickQuote ? base.amountOn(side) : fillAmountOf(scaledOf(base));
      const figures = pricedInUsd(fillUnitsOf(units), baseAmount, side, this.slippage, this.commission);
      if (figures) return figures;
    }
    const basePrice = base instanceof TickQuote ? quoteOn(base, side) : base;
    const notionalUsd = this.converter.toUsd(units.times(basePrice), currency);
    const slipped = applySlippage(this.slippage, side, basePrice, notionalUsd);
    const commissionUsd = commissionFor(
      this.commission,
      this.converter.toUsd(units.times(slipped.price), currency),
    );
    return figuresOf({
      units,
      price: slipped.price,
      basePrice,
      slippageBps: slipped.bps,
      commissionUsd,
    });
  }

  private reject(order: OrderRecord, reason: RejectReason): SubmitOutcome {
    const rejected = withStatus(order, 'REJECTED', this.stamp, reason);
    this.orders.set(order.id, rejected);
    this.emitOrder('ORDER_REJECTED', rejected);
    return { ok: true, order: rejected, rejected: reason };
  }

  private emitOrder(event: string, order: OrderRecord): void {
    const state = this.bySymbol.get(order.symbol);
    if (!state?.updates.has('order_update')) return;
    // The order's strings are written when the event is read or serialised.
    const wire: EngineEvent = {
      type: 'order',
      event,
      order: lazyWireOrder(order),
      timestamp: iso(this.stamp),
    };
    // The event names the entry while the engine tracks the exit leg it placed (trading-gateway.md).
    if (order.parent_order_id !== null && this.links.isLeg(order.id))
      wire.parent_order_id = order.parent_order_id;
    this.outbox.push(wire);
  }

  private emitAccount(at: number): void {
    if (!this.accountUpdates) return;
    this.outbox.push({
      type: 'account',
      event: 'BALANCE_UPDATED',
      account: this.accountView(),
      timestamp: iso(at),
    });
  }

  private emitCandle(candle: Candle): void {
    // The candle is the wire Bar (its strings are made when read or serialised).
    this.outbox.push({ type: 'candle', bar: candle, timestamp: iso(candle.end) });
  }
}

const NOTHING_FILLED: { fills: readonly FillIntent[] } = { fills: [] };

/** The default close: the whole position at market, its associated orders cancelled first. */
const FULL_CLOSE: ClosePosition = { order_type: 'MARKET', cancel_associated_orders: true };

const conflict = (issues: FieldIssue[]): Denial =>
  deny('ORDER_FIELDS_CONFLICT', issues.map((issue) => issue.message).join('; '), { issues });

const MODIFIABLE_FIELDS = [
  'quantity',
  'limit_price',
  'stop_price',
  'stop_loss',
  'take_profit',
  'trailing_distance',
] as const satisfies readonly (keyof ModifyOrder)[];

/** Whether a modification changes any field. */
function changesAnything(changes: ModifyOrder): boolean {
  for (const field of MODIFIABLE_FIELDS) if (changes[field] !== undefined) return true;
  return false;
}

/**
 * The tracing id of an order the engine records (the spec's Gateway-assigned `correlation_id`): made
 * from its sequence, so a rerun stamps the same ids (`ord-000000042` -> `corr-000000042`). Exit legs
 * carry their entry's: the request that placed the entry placed them.
 */
function correlationOf(orderId: string): string {
  return flatText('corr-', orderId.slice(4));
}

/** The price a `side` order trades at on `quote`: the ask for a buy, the bid for a sell. */
const quoteOn = (quote: TickQuote, side: Side): Dec => (side === 'BUY' ? quote.ask : quote.bid);

/**
 * The price a fill starts from: a decimal, or the instrument's current quote on the order's side (a
 * market order), read as its ticks so that a USD fill makes no decimal of it.
 */
type BasePrice = Dec | TickQuote;

/** Whether `quote` already satisfies a buy's or sell's limit (at or through it) or stop (reached). */
function reaches(
  quote: Dec,
  buy: boolean,
  price: Dec | null | undefined,
  through: 'limit' | 'stop',
): boolean {
  if (!price) return false;
  return (through === 'limit') === buy ? quote.lte(price) : quote.gte(price);
}
