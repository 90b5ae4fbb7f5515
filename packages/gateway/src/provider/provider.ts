import type {
  AccountView,
  Bar,
  Capabilities,
  ClosePosition,
  Denial,
  Metrics,
  ModifyOrder,
  ModifyOrderResult,
  Order,
  OrderHandle,
  PositionView,
  RejectReason,
  ResultFiles,
  SetExitLegs,
  SubmitOrder,
  Timeframe,
  Trade,
} from '@hindsight/engine';

export type { Bar, Trade };

import type { GatewayMode } from '../settings.ts';

/**
 * What the protocol code needs from a provider (broker or data source). One provider serves a gateway
 * instance; routes, the WebSocket, breakers, limits and metrics never look past this interface, so a
 * paper or live provider plugs in by implementing it.
 *
 * Order and position commands arrive parsed, as the engine's typed commands (the gateway's protocol
 * module read the body), and are answered with an `Outcome`: accepted, or denied with one of the
 * engine's denial codes (the protocol module maps it to the spec's ApiError). Methods may answer
 * synchronously or with a promise. Other client errors (404 on a lookup, 503 while no quote) are
 * thrown as `GatewayError`s of the registry; anything else a method throws counts as a provider
 * failure (502 PROVIDER_ERROR, and a failure for the `adapter` circuit breaker).
 */
export type Awaitable<T> = T | Promise<T>;

export interface Quote {
  symbol: string;
  provider: string;
  bid: string;
  bid_size?: string;
  ask: string;
  ask_size?: string;
  last: string;
  volume?: string;
  timestamp: string;
}

export interface BarQuery {
  timeframe: Timeframe;
  /** Inclusive bar starts, epoch ms. */
  start?: number;
  end?: number;
  limit?: number;
}

export interface ConnectionStatus {
  connected: boolean;
  latency_ms: number;
  last_heartbeat: string;
}

export interface ProviderHealth {
  connected: boolean;
  /** Instruments whose data is stale; empty when all are fresh. */
  staleInstruments: string[];
}

/** A command's answer: accepted with its value, or denied (nothing changed). */
export type Outcome<T> = { ok: true; value: T } | Denial;

/** An accepted order command: the order's handle, and the reason when the provider rejected it. */
export interface PlacedOrder {
  handle: OrderHandle;
  rejected?: RejectReason;
}

export interface ExitLeg {
  order_ids: string[];
  trigger_price: string;
}

export interface ExitLegsMove {
  position_id: string;
  stop_loss: ExitLeg | null;
  take_profit: ExitLeg | null;
}

/** An event before the gateway stamps its `seq` (trading-gateway.md, Events). */
export type ProviderEvent = { type: string; timestamp: string } & Record<string, unknown>;

/** Where a provider's events go: the gateway's event stream. */
export interface EventSink {
  /**
   * Stamps each event with its `seq` and sends it to every strategy connection. The array is handed
   * over: the provider does not touch it again (an in-process strategy queues onto it).
   */
  publish(events: ProviderEvent[]): void;
  /**
   * Whether published events wait for the strategy's acknowledgment (simulation mode gates time on
   * it). If they do, `settled` is called once every one is acknowledged, synchronously from the ack
   * that drains the last; `failed` with `StallError` when the strategy leaves events unacknowledged
   * past the stall timeout, or with an Error when the stream closes. False: nothing waits, and
   * neither is called.
   */
  waitForAcks(settled: () => void, failed: (error: Error) => void): boolean;
}

/** Order lifecycle facts for the metrics (submissions are counted by the protocol code). */
export interface OrderTelemetry {
  /**
   * Every order event the provider produced, delivered to the strategy or not. The order is the
   * event's own (an engine order is written when first read: a sink that ignores it costs nothing).
   */
  orderEvent(event: string, order: Pick<Order, 'id' | 'reject_reason'>): void;
}

export interface ProviderHooks {
  sink: EventSink;
  telemetry: OrderTelemetry;
}

/** How a provider's run ended (simulation: the window was replayed, or the strategy failed it). */
export type RunOutcome =
  | { kind: 'completed' }
  | { kind: 'failed'; errorType: 'strategy' | 'platform'; message: string };

export interface Provider {
  readonly name: string;
  readonly mode: GatewayMode;
  /** The provider's clock, epoch ms (simulated time in a backtest); stamps the gateway's own events. */
  readonly now: number;

  /** Called once, before any other call, with the gateway's event stream and telemetry. */
  attach(hooks: ProviderHooks): void;
  /** A strategy connected to the event stream (simulation: the run starts at the first one). */
  strategyConnected(): void;
  /** Resolves when the provider's run is over; a live provider never finishes. */
  readonly finished: Promise<RunOutcome>;
  /**
   * A backtest's result files and metrics, read once `finished` has completed (the gateway writes
   * them, or hands them to the platform). Absent on a provider that runs no backtest (paper or live
   * trading against a broker).
   */
  results?(): ResultFiles & { metrics: Metrics };
  close(): Promise<void>;

  capabilities(): Capabilities;
  connection(): ConnectionStatus;
  health(): ProviderHealth;
  /** Whether the provider trades or serves data for `symbol` (provider-native, verbatim). */
  knowsSymbol(symbol: string): boolean;

  submitOrder(order: SubmitOrder): Awaitable<Outcome<PlacedOrder>>;
  /** Every order the provider knows, in creation order. */
  orders(): Awaitable<readonly Order[]>;
  order(orderId: string): Awaitable<Order | undefined>;
  modifyOrder(orderId: string, changes: ModifyOrder): Awaitable<Outcome<ModifyOrderResult>>;
  cancelOrder(orderId: string): Awaitable<Outcome<Order>>;

  positions(symbol?: string): Awaitable<readonly PositionView[]>;
  position(positionId: string): Awaitable<PositionView | undefined>;
  closePosition(positionId: string, close: ClosePosition): Awaitable<Outcome<PlacedOrder>>;
  /**
   * Moves the exit legs the gateway placed. A leg that was cancelled and could not be re-established
   * is thrown as PROVIDER_ERROR with `details.unprotected: true` (the gateway then broadcasts
   * POSITION_UNPROTECTED).
   */
  moveExitLegs(positionId: string, legs: SetExitLegs): Awaitable<Outcome<ExitLegsMove>>;

  trades(): Awaitable<readonly Trade[]>;
  account(): Awaitable<AccountView>;
  quote(symbol: string): Awaitable<Quote>;
  bars(symbol: string, query: BarQuery): Awaitable<readonly Bar[]>;
}
