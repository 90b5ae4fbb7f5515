import type { Metrics, ResultFiles } from '@hindsight/engine';
import { GATEWAY_VERSION } from '../gateway.ts';
import type { GatewayContext } from '../http/context.ts';
import { GatewayLoggers, parseLogFilter } from '../log-filter.ts';
import { CircuitBreakers } from '../operations/circuit-breakers.ts';
import { GatewayMetrics } from '../operations/gateway-metrics.ts';
import { IngressRateLimit } from '../operations/rate-limit.ts';
import { OrderIdempotency } from '../protocol/idempotency.ts';
import type { EventSink, Provider, ProviderEvent, RunOutcome } from '../provider/provider.ts';
import { DEFAULT_RATE_LIMIT_PER_MINUTE, type GatewaySettings } from '../settings.ts';
import { EventStream } from '../stream/event-stream.ts';
import * as trading from '../trading/trading-service.ts';

/**
 * A gateway without a server, for a strategy in the same process as the engine (the SDK's
 * in-process runner, docs/sdk.md): its calls run the trading service's functions, the ones the
 * REST routes and socket requests run (the same parsing, idempotency, errors and provider calls), and
 * the provider's events reach the strategy as objects, synchronously, with no `seq` and no text.
 * Time is gated as over the socket: the provider steps once the strategy has drained what it got.
 * Ingress metering, authentication and serialisation are transport matters and do not apply.
 */
export interface InProcessStrategy {
  /**
   * The provider's events, in order, as it publishes them (inside an order call too). The array is
   * handed over: the strategy may keep it and add to it.
   */
  receive(events: ProviderEvent[]): void;
  /** Whether received events or their calls are still being handled. */
  readonly busy: boolean;
}

export interface InProcessRunEnd {
  outcome: RunOutcome;
  /** A completed backtest's files and metrics. */
  files?: ResultFiles & { metrics: Metrics };
}

const IN_PROCESS_SETTINGS: GatewaySettings = {
  provider: 'simulation',
  mode: 'simulation',
  host: 'in-process',
  port: 0,
  apiKey: undefined,
  enableSwagger: false,
  log: parseLogFilter('warn') as Exclude<ReturnType<typeof parseLogFilter>, string>,
  scenarioFile: undefined,
  dataDir: '',
  resultsDir: undefined,
  // Nothing stalls in-process: a handler that never settles is the strategy's own wait.
  stallTimeoutMs: 0,
  rateLimitPerMinute: DEFAULT_RATE_LIMIT_PER_MINUTE,
  replaySpeed: 1,
  gitSha: 'in-process',
};

export class InProcessGateway implements EventSink {
  readonly ctx: GatewayContext;
  private strategy: InProcessStrategy | undefined;
  private settle: (() => void) | undefined;

  constructor(readonly provider: Provider) {
    const logs = new GatewayLoggers(IN_PROCESS_SETTINGS.log, process.stderr);
    const metrics = new GatewayMetrics(provider.name, () => true);
    this.ctx = {
      settings: IN_PROCESS_SETTINGS,
      provider,
      // Only the provider's own error events go to a stream (POSITION_UNPROTECTED), which a
      // simulation never raises; none has a connection here, nor resumes from its buffer.
      stream: new EventStream({ stallTimeoutMs: 0, bufferSize: 1 }),
      breakers: new CircuitBreakers(Date.now),
      metrics,
      rateLimit: new IngressRateLimit(IN_PROCESS_SETTINGS.rateLimitPerMinute, Date.now),
      idempotency: new OrderIdempotency(),
      logs,
      log: logs.for('gateway'),
      version: GATEWAY_VERSION,
      heartbeatMs: 0,
      lifecycle: { shuttingDown: false },
    };
    // Order telemetry feeds the gateway's Prometheus metrics, which nobody scrapes in-process.
    provider.attach({ sink: this, telemetry: { orderEvent() {} } });
  }

  /** Connects the strategy and starts the run; resolves with its end and, when completed, its results. */
  async run(strategy: InProcessStrategy): Promise<InProcessRunEnd> {
    if (this.strategy) throw new Error('an in-process gateway runs one strategy');
    this.strategy = strategy;
    this.provider.strategyConnected();
    const outcome = await this.provider.finished;
    this.ctx.lifecycle.shuttingDown = true;
    const files = outcome.kind === 'completed' ? this.provider.results?.() : undefined;
    return files ? { outcome, files } : { outcome };
  }

  /** The strategy has handled everything it received: time may move. */
  drained(): void {
    const settle = this.settle;
    this.settle = undefined;
    settle?.();
  }

  publish(events: ProviderEvent[]): void {
    this.strategy?.receive(events);
  }

  waitForAcks(settled: () => void): boolean {
    if (!this.strategy?.busy) return false;
    this.settle = settled;
    return true;
  }

  // The REST operations a strategy makes, by the trading service (`trading/trading-service.ts`).
  placeOrder = (body: unknown) => trading.placeOrder(this.ctx, body).then((placed) => placed.handle);
  /** An order the strategy was just handed the id of, as GET /v1/orders/{id} answers it. */
  order = (orderId: string) => this.provider.order(orderId);
  openOrders = (symbol: string | undefined) => trading.listOrders(this.ctx, { symbol }, false);
  modifyOrder = (orderId: string, body: unknown) => trading.modifyOrder(this.ctx, orderId, body);
  cancelOrder = (orderId: string) => trading.cancelOrder(this.ctx, orderId);
  cancelAllOrders = (symbol: string | undefined) => trading.cancelAllOrders(this.ctx, symbol);
  positions = (symbol: string | undefined) => trading.listPositions(this.ctx, symbol);
  closePosition = (positionId: string, body: unknown) => trading.closePosition(this.ctx, positionId, body);
  closeAllPositions = (symbol: string | undefined) => trading.closeAllPositions(this.ctx, symbol);
  moveExitLegs = (positionId: string, body: unknown) => trading.moveExitLegs(this.ctx, positionId, body);
  trades = (symbol: string | undefined) => trading.listTrades(this.ctx, { symbol });
  account = () => trading.getAccount(this.ctx);
}
