import type { CandleHistory } from './candle-history.ts';
import { decimalText } from './decimal-text.ts';
import type { ParamDefaults, Params } from './params.ts';
import type {
  Account,
  CancelAllResult,
  Candle,
  CloseOptions,
  DecimalInput,
  ExitLegsMoved,
  ExitMoves,
  Order,
  OrderChanges,
  OrderOptions,
  Position,
  Trade,
} from './resources.ts';
import type { Body, Venue } from './venue.ts';

/**
 * The context a handler gets (docs/sdk.md, The context): the run's parameters, simulated time, the
 * candles received, and the calls a strategy makes. Every call goes through `track`, so that the
 * dispatcher acknowledges a batch only once the calls its handlers made have settled (an order
 * placed without `await` still executes at the current bar, and its failure still stops the run).
 */
const DECIMAL_FIELDS = new Set([
  'quantity',
  'limit_price',
  'stop_price',
  'trailing_distance',
  'stop_loss',
  'take_profit',
  'leverage',
]);

export interface CallTracker {
  track<T>(call: Promise<T>): Promise<T>;
}

export class Context<P extends ParamDefaults = ParamDefaults> {
  /** The event being handled: its time is read only when a handler asks (most never do). */
  private event: { timestamp: string } | undefined;
  private timeMs = 0;
  private timeMsOf: { timestamp: string } | undefined;
  private orderCount = 0;

  constructor(
    readonly params: Params<P>,
    private readonly venue: Venue,
    private readonly history: CandleHistory,
    private readonly calls: CallTracker,
    /** Writes a log line (stderr by default). */
    private readonly logLine: (line: string) => void,
    /** The `client_order_id` prefix: deterministic, so that reruns and both runners match. */
    private readonly orderIdPrefix = 'hs',
  ) {}

  /** Simulated time of the last event, ISO-8601 UTC ('' before the first). */
  get time(): string {
    return this.event?.timestamp ?? '';
  }

  /** Simulated time of the last event, epoch ms (0 before the first). */
  get now(): number {
    if (this.timeMsOf !== this.event && this.event) {
      this.timeMs = Date.parse(this.event.timestamp);
      this.timeMsOf = this.event;
    }
    return this.timeMs;
  }

  /** @internal The dispatcher sets the event each handler runs for. */
  setEvent(event: { timestamp: string }): void {
    this.event = event;
  }

  /** The last `count` candles received of a symbol (its first timeframe unless given), oldest first. */
  candles(symbol: string, timeframe?: string, count = Number.POSITIVE_INFINITY): Candle[] {
    return this.history.last(symbol, timeframe, count);
  }

  buy(symbol: string, quantity: DecimalInput, options: OrderOptions = {}): Promise<Order> {
    return this.order('BUY', symbol, quantity, options);
  }

  sell(symbol: string, quantity: DecimalInput, options: OrderOptions = {}): Promise<Order> {
    return this.order('SELL', symbol, quantity, options);
  }

  modify(orderId: string, changes: OrderChanges): Promise<Order> {
    return this.calls.track(this.venue.modifyOrder(orderId, bodyOf(changes)));
  }

  cancel(orderId: string): Promise<Order> {
    return this.calls.track(this.venue.cancelOrder(orderId));
  }

  cancelAll(symbol?: string): Promise<CancelAllResult> {
    return this.calls.track(this.venue.cancelAllOrders(symbol));
  }

  close(positionId: string, options?: CloseOptions): Promise<Order> {
    return this.calls.track(this.venue.closePosition(positionId, options && bodyOf(options)));
  }

  closeAll(symbol?: string): Promise<Order[]> {
    return this.calls.track(this.venue.closeAllPositions(symbol));
  }

  moveExits(positionId: string, moves: ExitMoves): Promise<ExitLegsMoved> {
    return this.calls.track(this.venue.moveExitLegs(positionId, bodyOf(moves)));
  }

  positions(symbol?: string): Promise<Position[]> {
    return this.calls.track(this.venue.positions(symbol));
  }

  orders(symbol?: string): Promise<Order[]> {
    return this.calls.track(this.venue.openOrders(symbol));
  }

  trades(symbol?: string): Promise<Trade[]> {
    return this.calls.track(this.venue.trades(symbol));
  }

  account(): Promise<Account> {
    return this.calls.track(this.venue.account());
  }

  log(...parts: unknown[]): void {
    const text = parts.map((p) => (typeof p === 'string' ? p : JSON.stringify(p))).join(' ');
    this.logLine(`${this.time} ${text}`);
  }

  private order(side: 'BUY' | 'SELL', symbol: string, quantity: DecimalInput, options: OrderOptions) {
    let body: Body;
    try {
      body = {
        symbol,
        side,
        quantity: decimalText(quantity, 'quantity'),
        order_type: 'MARKET',
        ...bodyOf(options),
      };
      body.client_order_id ??= `${this.orderIdPrefix}-${++this.orderCount}`;
    } catch (error) {
      return this.calls.track(Promise.reject(error));
    }
    return this.calls.track(this.venue.placeOrder(body));
  }
}

/** A request body from the SDK's options: decimals written as decimal strings, unset fields left out. */
function bodyOf(options: object): Body {
  const body: Body = {};
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    body[key] = DECIMAL_FIELDS.has(key) ? decimalText(value as DecimalInput, key) : value;
  }
  return body;
}
