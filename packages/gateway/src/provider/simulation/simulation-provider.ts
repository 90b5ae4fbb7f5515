import { calendarOf, Dec, expandEvents, type InstrumentDefinition, toDecimalString } from '@hindsight/core';
import {
  type AccountView,
  assetClassOf,
  type Capabilities,
  type ClosePosition,
  ENGINE_VERSION,
  type EngineConfig,
  type EngineEvent,
  type FundingSettings,
  MAX_LEVERAGE,
  type ModifyOrder,
  type ModifyOrderResult,
  ORDER_TYPES,
  type Order,
  type OrderRecord,
  type PositionView,
  type SetExitLegs,
  SimulationEngine,
  type SubmitOrder,
  type SubmitOutcome,
  toOrderHandle,
  toWireOrder,
  type UpdateKind,
} from '@hindsight/engine';
import { type BarStore, ReplayReader, TickReplay } from '@hindsight/marketdata';
import { GatewayError } from '../../errors.ts';
import { StallError, StreamClosedError } from '../../stream/event-stream.ts';
import type {
  Bar,
  BarQuery,
  ConnectionStatus,
  ExitLegsMove,
  Outcome,
  PlacedOrder,
  Provider,
  ProviderEvent,
  ProviderHealth,
  ProviderHooks,
  Quote,
  RunOutcome,
  Trade,
} from '../provider.ts';
import { BarHistory } from './bar-history.ts';
import type { Scenario } from './scenario.ts';

/**
 * The `simulation` provider: a backtest of one scenario through the simulation engine
 * (docs/engine.md). The replay starts when the first strategy connects; each batch of events is
 * published and simulated time stands still until the strategy acknowledges it (ack-gated time).
 * Order calls run at the current simulated time, and their events form a batch of their own.
 * A strategy that leaves events unacknowledged past the stall timeout fails the run.
 *
 * In `paper` mode the same replay runs in wall-clock time instead: `replaySpeed` simulated minutes
 * per minute (1 = real time), acknowledgments are informational, and orders fill against the
 * replayed data as it plays.
 */
export interface SimulationProviderOptions {
  scenario: Scenario;
  store: BarStore;
  /** Stamped in the result metadata; default the engine's ENGINE_VERSION (the platform passes it too). */
  engineVersion?: string;
  rateLimitPerMinute: number;
  /** `simulation` (default): ack-gated time; `paper`: wall-clock time at `replaySpeed`. */
  mode?: 'simulation' | 'paper';
  replaySpeed?: number;
}

/** The longest delay `setTimeout` honours (a longer one fires after 1 ms); the pacer waits again. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const COMPLETED: RunOutcome = { kind: 'completed' };
const SHUT_DOWN: RunOutcome = { kind: 'failed', errorType: 'platform', message: 'the gateway shut down' };

const ALL_UPDATES: readonly UpdateKind[] = [
  'order_update',
  'position_update',
  'account_update',
  'trade_update',
];
const UPDATE_OF_TYPE = new Map<string, UpdateKind>([
  ['order', 'order_update'],
  ['position', 'position_update'],
  ['account', 'account_update'],
  ['trade', 'trade_update'],
]);

export class SimulationProvider implements Provider {
  readonly name = 'simulation';
  readonly mode: 'simulation' | 'paper';
  readonly finished: Promise<RunOutcome>;
  private readonly engine: SimulationEngine;
  /** Base bars, with the stored ticks inside them where there are any (fills follow the ticks). */
  private readonly reader: TickReplay;
  private readonly history: BarHistory;
  private readonly instruments = new Map<string, InstrumentDefinition>();
  /** Per symbol, the update kinds its subscription delivers to the strategy. */
  private readonly delivered = new Map<string, ReadonlySet<UpdateKind>>();
  private readonly accountUpdates: boolean;
  private hooks: ProviderHooks | undefined;
  private start: (() => void) | undefined;
  private stopped = false;

  constructor(private readonly options: SimulationProviderOptions) {
    const { scenario } = options;
    this.mode = options.mode ?? 'simulation';
    for (const definition of scenario.instruments) this.instruments.set(definition.symbol, definition);
    for (const subscription of scenario.subscriptions) {
      const updates = new Set<UpdateKind>();
      for (const pattern of subscription.events) {
        if ((ALL_UPDATES as readonly string[]).includes(pattern)) updates.add(pattern as UpdateKind);
      }
      this.delivered.set(subscription.instrument, updates);
    }
    this.accountUpdates = [...this.delivered.values()].some((u) => u.has('account_update'));
    const symbols = scenario.instruments.map((i) => i.symbol);
    this.engine = new SimulationEngine(this.engineConfig(), symbols);
    this.reader = new TickReplay(
      new ReplayReader(
        options.store,
        scenario.instruments.map((i) => ({ symbol: i.symbol, spreadModel: i.spreadModel })),
        scenario.window,
      ),
      options.store,
      symbols,
    );
    this.history = new BarHistory(options.store);
    const started = new Promise<void>((resolve) => {
      this.start = resolve;
    });
    this.finished = started.then(() => this.run());
  }

  private engineConfig(): EngineConfig {
    const { scenario } = this.options;
    const costs = scenario.costs;
    return {
      instruments: scenario.instruments.map((i) => ({
        symbol: i.symbol,
        market: i.market,
        underlying: i.underlying,
        denomination: i.denomination,
        calendar: calendarOf(i.market),
      })),
      // Order events are always produced, so that the metrics see every order; `deliver` filters
      // them for strategies that did not subscribe to order_update.
      subscriptions: scenario.subscriptions.map((s) => ({
        instrument: s.instrument,
        timeframes: expandEvents(s.events).timeframes,
        updates: [...new Set<UpdateKind>(['order_update', ...(this.delivered.get(s.instrument) ?? [])])],
      })),
      startTime: scenario.window.start,
      endTime: scenario.window.end,
      positionMode: scenario.positionMode,
      initialCapital: toDecimalString(new Dec(scenario.initialCapital)),
      ...(costs?.commission && { commission: costs.commission }),
      ...(costs?.slippage && { slippage: costs.slippage }),
      ...(costs?.funding && { funding: costs.funding as FundingSettings }),
      engineVersion: this.options.engineVersion ?? ENGINE_VERSION,
    };
  }

  attach(hooks: ProviderHooks): void {
    this.hooks = hooks;
  }

  strategyConnected(): void {
    this.start?.();
    this.start = undefined;
  }

  get now(): number {
    return this.engine.now;
  }

  /** Results of the replay so far (the files, once `finished` has completed). */
  results() {
    return this.engine.results();
  }

  async close(): Promise<void> {
    this.stopped = true;
  }

  /**
   * Replays the window, one step at a time: wait (for the strategy's acks in simulation mode, for
   * wall-clock time in paper mode), advance the engine, publish. A wait for acks ends in a callback
   * from the ack that drains the last event, before its frame handler returns, rather than a promise
   * and a turn of the microtask queue: a backtest waits once per bar.
   */
  private run(): Promise<RunOutcome> {
    const sink = this.sink();
    const paced = this.mode === 'paper' ? this.pacer() : undefined;
    return new Promise<RunOutcome>((finish) => {
      const fail = (error: unknown) => finish(this.failure(error));
      // The reader has no more bars (`exhausted`); the end of the data is published (`replayed`).
      let exhausted = false;
      let replayed = false;
      const step = (): void => {
        try {
          for (;;) {
            if (exhausted && !replayed) {
              replayed = true;
              this.deliver(this.engine.endOfData());
            }
            if (paced) {
              const wait = replayed ? 0 : paced();
              if (wait > 0) {
                setTimeout(step, Math.min(wait, MAX_TIMER_MS));
                return;
              }
            } else if (sink.waitForAcks(step, fail)) {
              return;
            }
            if (replayed || this.stopped) {
              finish(replayed ? COMPLETED : SHUT_DOWN);
              return;
            }
            const next = this.engine.advance(this.reader);
            if (next.kind === 'events') {
              this.deliver(next.events);
              continue;
            }
            this.reader.fill().then((more) => {
              exhausted = !more;
              step();
            }, fail);
            return;
          }
        } catch (error) {
          fail(error);
        }
      };
      step();
    });
  }

  private failure(error: unknown): RunOutcome {
    if (error instanceof StallError) return { kind: 'failed', errorType: 'strategy', message: error.message };
    if (this.stopped || error instanceof StreamClosedError) return SHUT_DOWN;
    return {
      kind: 'failed',
      errorType: 'platform',
      message: `the replay failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }

  /** Paper mode: how long to wait until wall-clock time has caught up with simulated time (ms). */
  private pacer(): () => number {
    const speed = this.options.replaySpeed ?? 1;
    const wallStart = Date.now();
    const simStart = this.options.scenario.window.start;
    return () => wallStart + (this.engine.now - simStart) / speed - Date.now();
  }

  private sink() {
    if (!this.hooks) throw new Error('the simulation provider is not attached to a gateway');
    return this.hooks.sink;
  }

  /** Publishes what the strategy subscribed to; every order event also goes to the telemetry. */
  private deliver(events: EngineEvent[]): void {
    if (events.length === 0) return;
    const hooks = this.hooks;
    // The engine's own array goes out unless an event is left out (a copy only then): this runs per bar.
    let out: ProviderEvent[] | undefined;
    for (let i = 0; i < events.length; i++) {
      const event = events[i] as EngineEvent;
      if (event.type === 'order') {
        const order = event.order as Order;
        hooks?.telemetry.orderEvent(event.event as string, order);
      }
      if (this.subscribed(event)) out?.push(event);
      else out ??= events.slice(0, i);
    }
    const published = out ?? events;
    if (published.length > 0) hooks?.sink.publish(published);
  }

  private subscribed(event: EngineEvent): boolean {
    // Candles, most events by far, are the engine's only for what was subscribed.
    if (event.type === 'candle') return true;
    const kind = UPDATE_OF_TYPE.get(event.type);
    if (kind === undefined) return true;
    if (kind === 'account_update') return this.accountUpdates;
    const symbol = symbolOf(event);
    return symbol !== undefined && (this.delivered.get(symbol)?.has(kind) ?? false);
  }

  /** Runs an order call and publishes the events it produced (same simulated time). */
  private call<T>(action: () => T): T {
    try {
      return action();
    } finally {
      this.deliver(this.engine.drain());
    }
  }

  /** Fixed for the scenario, and asked on every order (supported order types): built once. */
  private capabilityList: Capabilities | undefined;

  capabilities(): Capabilities {
    this.capabilityList ??= this.describeCapabilities();
    return this.capabilityList;
  }

  private describeCapabilities(): Capabilities {
    const { scenario } = this.options;
    const classes = [...new Set(scenario.instruments.map((i) => assetClassOf(i.market)))];
    return {
      supported_asset_classes: classes,
      supported_order_types: [...ORDER_TYPES],
      position_mode: scenario.positionMode === 'hedging' ? 'HEDGING' : 'NETTING',
      features: [
        'bracket_orders',
        'oco',
        'trailing_stop',
        'stop_limit',
        'reduce_only',
        'post_only',
        'day_orders',
        'ioc',
        'fok',
        'native_modify',
        'exit_leg_move',
        'partial_close',
        ...(scenario.positionMode === 'hedging' ? ['hedging'] : []),
        ...(scenario.costs?.funding?.model === 'daily' ? ['funding'] : []),
      ],
      max_leverage: MAX_LEVERAGE,
      rate_limits: { requests_per_minute: this.options.rateLimitPerMinute },
    };
  }

  connection(): ConnectionStatus {
    return { connected: true, latency_ms: 0, last_heartbeat: new Date().toISOString() };
  }

  health(): ProviderHealth {
    return { connected: true, staleInstruments: [] };
  }

  knowsSymbol(symbol: string): boolean {
    return this.instruments.has(symbol);
  }

  submitOrder(order: SubmitOrder): Outcome<PlacedOrder> {
    return this.call(() => placed(this.engine.submit(order)));
  }

  orders(): readonly Order[] {
    return this.engine.listOrders().map((record) => this.wire(record));
  }

  order(orderId: string): Order | undefined {
    const record = this.engine.order(orderId);
    return record && toWireOrder(record);
  }

  /** Engine records are replaced on every change: a strategy polling its open orders renders each once. */
  private readonly wireOrders = new WeakMap<OrderRecord, Order>();

  private wire(record: OrderRecord): Order {
    let order = this.wireOrders.get(record);
    if (!order) {
      order = toWireOrder(record);
      this.wireOrders.set(record, order);
    }
    return order;
  }

  modifyOrder(orderId: string, changes: ModifyOrder): Outcome<ModifyOrderResult> {
    return this.call(() => {
      const result = this.engine.modify(orderId, changes);
      if (!result.ok) return result;
      const order = toWireOrder(result.order);
      return {
        ok: true,
        value:
          result.previousOrderId === undefined
            ? { order }
            : { order, previous_order_id: result.previousOrderId },
      };
    });
  }

  cancelOrder(orderId: string): Outcome<Order> {
    return this.call(() => {
      const result = this.engine.cancel(orderId);
      return result.ok ? { ok: true, value: toWireOrder(result.order) } : result;
    });
  }

  positions(symbol?: string): readonly PositionView[] {
    return this.engine.positions(symbol).map((p) => p.view);
  }

  position(positionId: string): PositionView | undefined {
    return this.engine.position(positionId)?.view;
  }

  closePosition(positionId: string, close: ClosePosition): Outcome<PlacedOrder> {
    return this.call(() => placed(this.engine.closePosition(positionId, close)));
  }

  /** The simulation moves legs natively and never cancels one, so no move leaves a position unprotected. */
  moveExitLegs(positionId: string, legs: SetExitLegs): Outcome<ExitLegsMove> {
    return this.call(() => {
      const result = this.engine.setExitLegs(positionId, legs);
      if (!result.ok) return result;
      const { position_id, stop_loss, take_profit } = result;
      return { ok: true, value: { position_id, stop_loss, take_profit } };
    });
  }

  trades(): readonly Trade[] {
    return this.engine.trades();
  }

  account(): AccountView {
    return this.engine.accountView();
  }

  quote(symbol: string): Quote {
    if (!this.knowsSymbol(symbol)) throw symbolNotFound(symbol);
    const quote = this.engine.quote(symbol);
    if (!quote) {
      throw new GatewayError(
        'PROVIDER_UNAVAILABLE',
        `No quote for ${symbol} yet: the replay has not reached its first bar. Retry after the first candle.`,
        { symbol },
      );
    }
    const last = toDecimalString(new Dec(quote.bid).plus(quote.ask).div(2));
    return {
      symbol,
      provider: this.name,
      bid: quote.bid,
      ask: quote.ask,
      last,
      timestamp: new Date(quote.time).toISOString(),
    };
  }

  async bars(symbol: string, query: BarQuery): Promise<readonly Bar[]> {
    const definition = this.instruments.get(symbol);
    if (!definition) throw symbolNotFound(symbol);
    return this.history.bars(
      { symbol, calendar: calendarOf(definition.market), spreadModel: definition.spreadModel },
      query,
      this.engine.now,
    );
  }
}

function symbolOf(event: EngineEvent): string | undefined {
  const resource = (event.order ?? event.position ?? event.trade) as { symbol?: string } | undefined;
  return resource?.symbol;
}

function symbolNotFound(symbol: string): GatewayError {
  return new GatewayError(
    'SYMBOL_NOT_FOUND',
    `${symbol} is not an instrument of this scenario; use a subscribed symbol, exactly as subscribed.`,
    { symbol },
  );
}

function placed(result: SubmitOutcome): Outcome<PlacedOrder> {
  if (!result.ok) return result;
  const handle = toOrderHandle(result.order);
  return { ok: true, value: result.rejected ? { handle, rejected: result.rejected } : { handle } };
}
