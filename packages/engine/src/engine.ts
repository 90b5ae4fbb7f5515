import {
  type BidAskBarBatch,
  Dec,
  type MarketId,
  type SessionCalendar,
  type Timeframe,
  ticksToDecimalString,
  toDecimalString,
} from '@hindsight/core';
import { Account } from './account/account.ts';
import { CurrencyConverter } from './account/currency.ts';
import { type Candle, CandleAggregator } from './candles/candle-aggregator.ts';
import { InstrumentMatcher, type RestingOrder } from './matching/instrument-matcher.ts';
import { type CommissionSettings, commissionFor, ZERO_COMMISSION } from './models/commission.ts';
import { type FundingSettings, fundingAmount, rolloversBetween } from './models/funding.ts';
import {
  effectiveLeverage,
  exposureDelta,
  MAX_LEVERAGE,
  releasedMargin,
  requiredMargin,
  wouldExceedMargin,
} from './models/margin.ts';
import { applySlippage, NO_SLIPPAGE, type SlippageSettings } from './models/slippage.ts';
import { type ParsedOrderRequest, validateOrderRequest } from './orders/order-request.ts';
import { assetClassOf, type OrderHandle, type RejectReason } from './orders/order-types.ts';
import {
  newOrderRecord,
  type OrderRecord,
  toOrderHandle,
  toWireOrder,
  withFill,
  withStatus,
} from './orders/order-view.ts';
import { expiresAt, isImmediate } from './orders/time-in-force.ts';
import { type FillOutcome, PositionBook, type PositionSnapshot } from './positions/position-book.ts';
import { buildResultFiles } from './results/result-files.ts';
import { TimeseriesSampler } from './results/timeseries-sampler.ts';

/**
 * Orchestration only (docs/engine.md): replays merged base bars, lets each instrument's matcher fill
 * resting orders, builds the subscribed candles, keeps the books, and stops at every batch of events.
 * This version handles market, limit, stop, stop-limit and trailing-stop orders, GTC/DAY/IOC/FOK,
 * post-only, brackets (exit legs placed on the entry's fill, one-cancels-other, stop first when both
 * touch in one bar, cancelled when the position closes otherwise) and client OCO groups; reduce-only,
 * margin checks and funding are wired next.
 */
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
}

/** Events in the gateway's WebSocket shapes (trading-gateway.md, Events), before `seq` is stamped. */
export type EngineEvent = { type: string; timestamp: string } & Record<string, unknown>;

export type AdvanceResult = { kind: 'events'; events: EngineEvent[] } | { kind: 'need-data' };

export type SubmitResult =
  | { ok: true; handle: OrderHandle; rejected?: RejectReason }
  | { ok: false; code: string; message: string; details: unknown };

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
}

const MINUTE_MS = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

export class SimulationEngine {
  private readonly instruments: InstrumentState[];
  private readonly bySymbol = new Map<string, InstrumentState>();
  private readonly converter: CurrencyConverter;
  private readonly book: PositionBook;
  private readonly account: Account;
  private readonly sampler: TimeseriesSampler;
  private readonly orders = new Map<string, OrderRecord>();
  /** DAY orders and the instant each expires. */
  private readonly expiries = new Map<string, number>();
  /** One-cancels-other groups (client `oco_group_id`s and bracket pairs) and each live member's group. */
  private readonly groups = new Map<string, Set<string>>();
  private readonly groupOf = new Map<string, string>();
  /** Bracket exit legs: which leg, and the position they protect (hedging targets it). */
  private readonly legs = new Map<string, { leg: 'stop' | 'take'; positionId: string | undefined }>();
  private readonly commission: CommissionSettings;
  private readonly slippage: SlippageSettings;
  private outbox: EngineEvent[] = [];
  /** Symbols whose quotes the books need every bar: open positions and currency-conversion pairs. */
  private readonly marked = new Set<string>();
  private readonly conversionPairs: ReadonlySet<string>;
  /** Whether any subscription asked for account_update events. */
  private readonly accountUpdates: boolean;
  private groupTime: number | undefined;
  private pending = false;
  private changed = false;
  private orderSeq = 0;
  private tradeSeq = 0;
  /** Simulated time: the end of the last completed group of bars. */
  private clock: number;

  constructor(
    private readonly config: EngineConfig,
    /** Index of each cursor `symbolIndex` in `config.instruments`. */
    cursorSymbols: readonly string[],
  ) {
    this.clock = config.startTime;
    this.commission = config.commission ?? ZERO_COMMISSION;
    this.slippage = config.slippage ?? NO_SLIPPAGE;
    this.converter = new CurrencyConverter(config.instruments);
    this.book = new PositionBook({
      mode: config.positionMode,
      instruments: config.instruments,
      converter: this.converter,
    });
    this.account = new Account({ initialCapital: config.initialCapital, unrealized: this.book });
    this.conversionPairs = new Set(this.converter.conversionSymbols());
    this.accountUpdates = config.subscriptions.some((s) => s.updates.includes('account_update'));
    for (const symbol of this.conversionPairs) this.marked.add(symbol);
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
        if (this.outbox.length > 0) return { kind: 'events', events: this.drain() };
      }
      this.groupTime = t;
      this.onBar(
        this.instruments[cursor.symbolIndex] as InstrumentState,
        cursor.batch as BidAskBarBatch,
        cursor.row,
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
    const events = this.outbox;
    this.outbox = [];
    return events;
  }

  submitOrder(body: unknown): SubmitResult {
    const validation = validateOrderRequest(body, {
      knownSymbol: (s) => this.bySymbol.has(s),
      maxLeverage: MAX_LEVERAGE,
    });
    if (!validation.ok)
      return { ok: false, code: validation.code, message: validation.message, details: validation.details };
    const request = validation.order;
    const id = `ord-${String(++this.orderSeq).padStart(9, '0')}`;
    if (validation.rejectReason) {
      const rejected = newOrderRecord(request, {
        id,
        at: this.clock,
        status: 'REJECTED',
        rejectReason: validation.rejectReason,
      });
      this.orders.set(id, rejected);
      this.emitOrder('ORDER_REJECTED', rejected);
      return { ok: true, handle: toOrderHandle(rejected), rejected: validation.rejectReason };
    }
    const state = this.bySymbol.get(request.symbol) as InstrumentState;
    let order = newOrderRecord(request, { id, at: this.clock });
    this.orders.set(id, order);
    this.emitOrder('ORDER_CREATED', order);
    if (state.hasQuote && this.exceedsMargin(state, request))
      return this.reject(order, 'INSUFFICIENT_MARGIN');
    if (request.order_type === 'MARKET') {
      if (!state.hasQuote) return this.reject(order, 'MARKET_CLOSED');
      const base =
        request.side === 'BUY'
          ? ticksOf(state.ask, state.priceDecimals)
          : ticksOf(state.bid, state.priceDecimals);
      this.execute(state, order, base);
      return { ok: true, handle: toOrderHandle(this.orders.get(id) as OrderRecord) };
    }
    const quote = this.marketablePrice(state, request);
    if (quote && request.post_only) return this.reject(order, 'POST_ONLY_VIOLATED');
    if (quote) {
      // Marketable at submission: it trades now at the current quote (a limit gets the better price).
      this.execute(state, order, quote);
      return { ok: true, handle: toOrderHandle(this.orders.get(id) as OrderRecord) };
    }
    if (isImmediate(request.time_in_force)) {
      // IOC/FOK against candle data: all at once or nothing (no volume-participation limit configured).
      const cancelled = withStatus(order, 'CANCELLED', this.clock);
      this.orders.set(id, cancelled);
      this.emitOrder('ORDER_CANCELLED', cancelled);
      return { ok: true, handle: toOrderHandle(cancelled) };
    }
    order = withStatus(order, 'OPEN', this.clock);
    this.orders.set(id, order);
    const expiry = expiresAt(request.time_in_force, state.spec.calendar, this.clock);
    if (expiry !== null) this.expiries.set(id, expiry);
    const resting: RestingOrder = {
      id,
      direction: request.side,
      kind: request.order_type,
      ...(request.limit_price && { limit: request.limit_price }),
      ...(request.stop_price && { stop: request.stop_price }),
      ...(request.order_type === 'TRAILING_STOP' &&
        request.trailing_distance && {
          trailing: {
            type: request.trailing_type ?? 'ABSOLUTE',
            distance: request.trailing_distance,
            best: ticksOf(request.side === 'SELL' ? state.bid : state.ask, state.priceDecimals),
          },
        }),
    };
    state.matcher.add(resting);
    if (request.oco_group_id) this.join(`oco:${request.oco_group_id}`, id);
    return { ok: true, handle: toOrderHandle(order) };
  }

  private join(group: string, orderId: string): void {
    const members = this.groups.get(group) ?? new Set<string>();
    members.add(orderId);
    this.groups.set(group, members);
    this.groupOf.set(orderId, group);
  }

  /** Docs/fills.md: when both legs of a bracket are touchable in one bar, the stop is assumed first. */
  private stopLegsFirst<T extends { orderId: string }>(fills: T[]): T[] {
    if (fills.length < 2) return fills;
    const rank = (f: T) => {
      const leg = this.legs.get(f.orderId);
      const group = this.groupOf.get(f.orderId);
      const bothLegs = leg && group && fills.filter((g) => this.groupOf.get(g.orderId) === group).length > 1;
      return bothLegs && leg.leg === 'stop' ? 0 : 1;
    };
    const stops = fills.filter((f) => rank(f) === 0);
    return stops.length === 0 ? fills : [...stops, ...fills.filter((f) => rank(f) !== 0)];
  }

  /** Cancels the other live members of a filled order's one-cancels-other group. */
  private settleGroup(orderId: string): void {
    this.dissolveGroup(orderId, orderId);
  }

  /** Removes the group of `orderId`, cancelling every live member but `keep`. */
  private dissolveGroup(orderId: string, keep?: string): void {
    const group = this.groupOf.get(orderId);
    if (!group) return;
    const members = this.groups.get(group) ?? new Set<string>();
    this.groups.delete(group);
    for (const member of members) {
      this.groupOf.delete(member);
      this.legs.delete(member);
      const sibling = this.orders.get(member);
      if (member !== keep && sibling && (sibling.status === 'OPEN' || sibling.status === 'PENDING')) {
        this.cancelOrder(member);
      }
    }
  }

  /** Places the exit legs of a filled entry that asked for a stop-loss and/or a take-profit. */
  private placeBracket(state: InstrumentState, entry: OrderRecord, positionId: string | undefined): void {
    const group = `bracket:${entry.id}`;
    const exitSide = entry.side === 'BUY' ? 'SELL' : 'BUY';
    const legs: ['stop' | 'take', Dec | null][] = [
      ['stop', entry.stop_loss],
      ['take', entry.take_profit],
    ];
    for (const [leg, price] of legs) {
      if (!price) continue;
      const id = `ord-${String(++this.orderSeq).padStart(9, '0')}`;
      const record = newOrderRecord(
        {
          symbol: entry.symbol,
          side: exitSide,
          quantity: entry.filled_quantity,
          order_type: leg === 'stop' ? 'STOP' : 'LIMIT',
          time_in_force: 'GTC',
          ...(leg === 'stop' ? { stop_price: price } : { limit_price: price }),
          ...(positionId !== undefined && { position_id: positionId }),
        },
        { id, at: this.clock, parentOrderId: entry.id },
      );
      const open = withStatus(record, 'OPEN', this.clock);
      this.orders.set(id, open);
      state.matcher.add({
        id,
        direction: exitSide,
        kind: leg === 'stop' ? 'STOP' : 'LIMIT',
        ...(leg === 'stop' ? { stop: price } : { limit: price }),
      });
      this.legs.set(id, { leg, positionId });
      this.join(group, id);
      this.emitOrder('BRACKET_ORDER_CREATED', open);
    }
  }

  /** Exit legs whose position is gone (closed by another order) are cancelled. */
  private cancelOrphanedLegs(symbol: string): void {
    const open = this.book.positions(symbol);
    for (const [orderId, leg] of this.legs) {
      const order = this.orders.get(orderId);
      if (!order || order.symbol !== symbol) continue;
      const protectedExists =
        leg.positionId === undefined ? open.length > 0 : open.some((p) => p.view.id === leg.positionId);
      if (!protectedExists) this.dissolveGroup(orderId);
    }
  }

  /**
   * The price an order trades at right now, if the current quote already satisfies it: a limit
   * through the quote, a stop already through its trigger (a stop-limit only if its limit is then
   * marketable too). Buys look at the ask, sells at the bid.
   */
  private marketablePrice(state: InstrumentState, request: ParsedOrderRequest): Dec | undefined {
    if (!state.hasQuote || request.order_type === 'TRAILING_STOP') return undefined;
    const buy = request.side === 'BUY';
    const quote = ticksOf(buy ? state.ask : state.bid, state.priceDecimals);
    const reaches = (price: Dec | undefined, through: 'limit' | 'stop') => {
      if (!price) return false;
      return (through === 'limit') === buy ? quote.lte(price) : quote.gte(price);
    };
    switch (request.order_type) {
      case 'LIMIT':
        return reaches(request.limit_price, 'limit') ? quote : undefined;
      case 'STOP':
        return reaches(request.stop_price, 'stop') ? quote : undefined;
      case 'STOP_LIMIT':
        return reaches(request.stop_price, 'stop') && reaches(request.limit_price, 'limit')
          ? quote
          : undefined;
      default:
        return undefined;
    }
  }

  cancelOrder(orderId: string): OrderRecord | undefined {
    const order = this.orders.get(orderId);
    if (!order) return undefined;
    const state = this.bySymbol.get(order.symbol) as InstrumentState;
    state.matcher.remove(orderId);
    this.expiries.delete(orderId);
    this.legs.delete(orderId);
    const group = this.groupOf.get(orderId);
    if (group) {
      this.groupOf.delete(orderId);
      this.groups.get(group)?.delete(orderId);
    }
    const cancelled = withStatus(order, 'CANCELLED', this.clock);
    this.orders.set(orderId, cancelled);
    this.emitOrder('ORDER_CANCELLED', cancelled);
    return cancelled;
  }

  order(orderId: string): OrderRecord | undefined {
    return this.orders.get(orderId);
  }

  positions() {
    return this.book.positions();
  }

  accountView() {
    return this.account.view(this.marginUsed());
  }

  /** Margin locked by open positions: notional in USD at the current price over the leverage. */
  marginUsed(): Dec {
    let used = new Dec(0);
    for (const position of this.book.positions()) used = used.plus(this.positionMargin(position));
    return used;
  }

  private positionMargin(position: PositionSnapshot): Dec {
    const spec = (this.bySymbol.get(position.symbol) as InstrumentState).spec;
    const notional = this.converter.toUsd(position.quantity.times(position.currentPrice), position.currency);
    return requiredMargin(notional, effectiveLeverage(assetClassOf(spec.market)));
  }

  /**
   * An order that would add exposure beyond the free margin is refused (INSUFFICIENT_MARGIN), judged at
   * submission at its own price or the current quote. Closing exposure (netting) frees its margin first.
   */
  private exceedsMargin(state: InstrumentState, request: ParsedOrderRequest): boolean {
    const quote = ticksOf(request.side === 'BUY' ? state.ask : state.bid, state.priceDecimals);
    const price = request.limit_price ?? request.stop_price ?? quote;
    const orderUnits = request.side === 'BUY' ? request.quantity : request.quantity.neg();
    let current = new Dec(0);
    let held = new Dec(0);
    if (this.config.positionMode === 'netting') {
      for (const p of this.book.positions(request.symbol)) {
        current = current.plus(p.side === 'LONG' ? p.quantity : p.quantity.neg());
        held = held.plus(this.positionMargin(p));
      }
    }
    const leverage = effectiveLeverage(assetClassOf(state.spec.market), request.leverage ?? null);
    const delta = exposureDelta(current, orderUnits);
    const additionalMargin = requiredMargin(
      this.converter.toUsd(delta.times(price), state.spec.denomination),
      leverage,
    );
    const marginUsed = this.marginUsed().minus(releasedMargin(current, orderUnits, held));
    return wouldExceedMargin({ equity: this.account.equity, marginUsed, additionalMargin });
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
      trades: this.book.lots(),
    });
  }

  private onBar(state: InstrumentState, batch: BidAskBarBatch, row: number): void {
    if (state.matcher.size > 0) {
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
      for (const fill of this.stopLegsFirst(outcome.fills)) {
        const order = this.orders.get(fill.orderId) as OrderRecord;
        // A sibling that filled earlier in this bar has cancelled it (one-cancels-other).
        if (order.status !== 'OPEN' && order.status !== 'PARTIALLY_FILLED') continue;
        this.expiries.delete(fill.orderId);
        this.execute(state, order, fill.price, (batch.time[row] as number) + MINUTE_MS);
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
    if (this.marked.has(state.spec.symbol)) {
      this.book.mark(
        state.spec.symbol,
        ticksOf(state.bid, state.priceDecimals),
        ticksOf(state.ask, state.priceDecimals),
      );
    }
  }

  private closeGroup(clock: number): void {
    const previous = this.clock;
    this.clock = clock;
    this.chargeFunding(previous, clock);
    for (const [orderId, expiry] of this.expiries) {
      if (expiry > clock) continue;
      this.expiries.delete(orderId);
      const order = this.orders.get(orderId) as OrderRecord;
      (this.bySymbol.get(order.symbol) as InstrumentState).matcher.remove(orderId);
      const expired = withStatus(order, 'EXPIRED', expiry);
      this.orders.set(orderId, expired);
      this.emitOrder('ORDER_EXPIRED', expired);
    }
    for (const state of this.instruments) {
      for (const aggregator of state.candles) {
        const closed = aggregator.closeBy(clock);
        if (closed) this.emitCandle(closed);
      }
    }
    if (this.config.assertIdentity) this.account.assertIdentity();
    const balance = this.account.balance;
    this.sampler.offer({
      time: clock,
      balance,
      nav: this.account.equity,
      marginUsed: this.marked.size > 0 ? this.marginUsed() : '0',
      changed: this.changed,
    });
    this.changed = false;
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
        this.changed = true;
        this.emitAccount(rollover);
      }
    }
  }

  /** Fills the whole remaining quantity at `basePrice` plus slippage, and books it. */
  private execute(state: InstrumentState, order: OrderRecord, basePrice: Dec, at = this.clock): void {
    const units = order.quantity.minus(order.filled_quantity);
    const currency = state.spec.denomination;
    const notionalUsd = this.converter.toUsd(units.times(basePrice), currency);
    const slipped = applySlippage(this.slippage, order.side, basePrice, notionalUsd);
    const commissionUsd = commissionFor(
      this.commission,
      this.converter.toUsd(units.times(slipped.price), currency),
    );
    const leg = this.legs.get(order.id);
    const outcome: FillOutcome = this.book.applyFill({
      ...(this.config.positionMode === 'hedging' &&
        leg?.positionId !== undefined && { positionId: leg.positionId }),
      orderId: order.id,
      symbol: order.symbol,
      side: order.side,
      units,
      price: slipped.price,
      basePrice,
      slippageBps: slipped.bps,
      commissionUsd,
      time: at,
    });
    this.account.bookFill(outcome);
    // Decision 4: positions are marked at the last completed bar's bid (long) or ask (short) at once.
    if (state.hasQuote) {
      this.book.mark(
        order.symbol,
        ticksOf(state.bid, state.priceDecimals),
        ticksOf(state.ask, state.priceDecimals),
      );
    }
    if (this.book.positions(order.symbol).length > 0 || this.conversionPairs.has(order.symbol))
      this.marked.add(order.symbol);
    else this.marked.delete(order.symbol);
    const filled = withFill(order, units, slipped.price, at);
    this.orders.set(order.id, filled);
    this.changed = true;
    this.emitOrder('ORDER_FILLED', filled);
    this.emit(state, 'trade_update', {
      type: 'trade',
      event: 'TRADE_FILLED',
      trade: {
        id: `trd-${String(++this.tradeSeq).padStart(9, '0')}`,
        order_id: order.id,
        symbol: order.symbol,
        side: order.side,
        quantity: toDecimalString(units),
        price: toDecimalString(slipped.price),
        commission: toDecimalString(commissionUsd),
        commission_currency: 'USD',
        timestamp: iso(at),
      },
      timestamp: iso(at),
    });
    for (const event of outcome.events) {
      this.emit(state, 'position_update', {
        type: 'position',
        event: event.type,
        position: event.position.view,
        timestamp: iso(at),
      });
    }
    this.emitAccount(at);
    this.settleGroup(order.id);
    if (!leg && (filled.stop_loss || filled.take_profit)) {
      const opened = outcome.events.find(
        (e) => e.type === 'POSITION_OPENED' || e.type === 'POSITION_MODIFIED',
      );
      this.placeBracket(
        state,
        filled,
        this.config.positionMode === 'hedging' ? opened?.position.view.id : undefined,
      );
    }
    this.cancelOrphanedLegs(order.symbol);
  }

  private reject(order: OrderRecord, reason: RejectReason): SubmitResult {
    const rejected = withStatus(order, 'REJECTED', this.clock, reason);
    this.orders.set(order.id, rejected);
    this.emitOrder('ORDER_REJECTED', rejected);
    return { ok: true, handle: toOrderHandle(rejected), rejected: reason };
  }

  private emitOrder(event: string, order: OrderRecord): void {
    const state = this.bySymbol.get(order.symbol);
    const wire: EngineEvent = { type: 'order', event, order: toWireOrder(order), timestamp: iso(this.clock) };
    // The event names the entry while the engine tracks the exit leg it placed (trading-gateway.md).
    if (order.parent_order_id !== null && this.legs.has(order.id))
      wire.parent_order_id = order.parent_order_id;
    if (state) this.emit(state, 'order_update', wire);
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

  private emit(state: InstrumentState, kind: UpdateKind, event: EngineEvent): void {
    if (state.updates.has(kind)) this.outbox.push(event);
  }

  private emitCandle(candle: Candle): void {
    this.outbox.push({
      type: 'candle',
      bar: {
        symbol: candle.symbol,
        provider: 'simulation',
        timeframe: candle.timeframe,
        timestamp: iso(candle.start),
        open: candle.open,
        high: candle.high,
        low: candle.low,
        close: candle.close,
        volume: candle.volume,
      },
      timestamp: iso(candle.end),
    });
  }
}

const ticksOf = (ticks: number, decimals: number): Dec => new Dec(ticksToDecimalString(ticks, decimals));
