import type {
  AccountView,
  Capabilities,
  ModifyOrderResult,
  Order,
  PositionView,
  SubmitOrder,
} from '@hindsight/engine';
import { GatewayError } from '../../src/errors.ts';
import type {
  Bar,
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
} from '../../src/provider/provider.ts';

/**
 * A second implementation of the gateway's Provider interface, standing for the paper and live
 * providers of a later issue: a "broker" whose answers the test sets (it fails on demand, lacks
 * TRAILING_STOP and native modify, reports stale data, pushes quotes and connection events). It
 * exercises the protocol code on paths the simulation never takes; the gateway around it is real.
 */
export class ScriptedProvider implements Provider {
  readonly name = 'scripted';
  readonly mode = 'paper' as const;
  readonly finished = new Promise<RunOutcome>(() => undefined);
  /** When set, every provider call throws this (an unexpected failure: 502 PROVIDER_ERROR). */
  failure: Error | undefined;
  stale: string[] = [];
  private hooks: ProviderHooks | undefined;

  get now(): number {
    return Date.now();
  }

  attach(hooks: ProviderHooks): void {
    this.hooks = hooks;
  }

  strategyConnected(): void {}

  async close(): Promise<void> {}

  /** Pushes events as a broker feed would. */
  push(events: ProviderEvent[]): void {
    this.hooks?.sink.publish(events);
  }

  private guard(): void {
    if (this.failure) throw this.failure;
  }

  capabilities(): Capabilities {
    return {
      supported_asset_classes: ['STOCK'],
      supported_order_types: ['MARKET', 'LIMIT'],
      position_mode: 'NETTING',
      features: [],
      max_leverage: '1',
      rate_limits: { requests_per_minute: 600 },
    };
  }

  connection(): ConnectionStatus {
    return {
      connected: this.failure === undefined,
      latency_ms: 12,
      last_heartbeat: new Date().toISOString(),
    };
  }

  health(): ProviderHealth {
    return { connected: this.failure === undefined, staleInstruments: this.stale };
  }

  knowsSymbol(symbol: string): boolean {
    return symbol === 'S:SPY';
  }

  submitOrder(order: SubmitOrder): Outcome<PlacedOrder> {
    this.guard();
    const client_order_id = order.client_order_id ?? null;
    return { ok: true, value: { handle: { id: 'scripted-1', status: 'OPEN', client_order_id } } };
  }

  orders(): readonly Order[] {
    this.guard();
    return [];
  }

  order(_orderId: string): Order | undefined {
    this.guard();
    return undefined;
  }

  modifyOrder(): Outcome<ModifyOrderResult> {
    this.guard();
    throw new GatewayError(
      'UNSUPPORTED_OPERATION',
      'The scripted broker cannot modify orders; cancel and resubmit.',
    );
  }

  cancelOrder(orderId: string): Outcome<Order> {
    this.guard();
    return { ok: false, code: 'UNKNOWN_ORDER', message: `There is no order ${orderId}.`, provided: orderId };
  }

  positions(): readonly PositionView[] {
    this.guard();
    return [];
  }

  position(_positionId: string): PositionView | undefined {
    this.guard();
    return undefined;
  }

  closePosition(positionId: string): Outcome<PlacedOrder> {
    this.guard();
    const message = `There is no open position ${positionId}.`;
    return { ok: false, code: 'POSITION_NOT_FOUND', message, provided: positionId };
  }

  moveExitLegs(positionId: string): Outcome<ExitLegsMove> {
    this.guard();
    throw new GatewayError(
      'PROVIDER_ERROR',
      'The broker cancelled the stop-loss and refused its replacement.',
      {
        position_id: positionId,
        unprotected: true,
        legs: ['stop_loss'],
      },
    );
  }

  trades(): readonly Trade[] {
    this.guard();
    return [];
  }

  account(): AccountView {
    this.guard();
    return {
      balance: '1000',
      equity: '1000',
      margin_used: '0',
      margin_available: '1000',
      unrealized_pnl: '0',
      currency: 'USD',
    };
  }

  quote(symbol: string): Quote {
    this.guard();
    return {
      symbol,
      provider: this.name,
      bid: '400.1',
      ask: '400.2',
      last: '400.15',
      timestamp: new Date().toISOString(),
    };
  }

  bars(): readonly Bar[] {
    this.guard();
    return [];
  }
}
