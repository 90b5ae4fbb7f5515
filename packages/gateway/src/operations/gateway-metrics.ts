import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { OrderTelemetry } from '../provider/provider.ts';

/**
 * `/metrics` (trading-gateway.md: "order counts (submitted, filled, rejected, cancelled), order-to-fill
 * latency, provider connection status, and provider error and rejection rates"), one registry per
 * gateway so several gateways can share a process. Rates are counters; Prometheus derives them.
 */
export class GatewayMetrics implements OrderTelemetry {
  readonly registry = new Registry();
  private readonly submitted: Counter;
  private readonly filled: Counter;
  private readonly rejected: Counter;
  private readonly cancelled: Counter;
  private readonly expired: Counter;
  private readonly fillLatency: Histogram;
  private readonly connected: Gauge;
  private readonly providerErrors: Counter;
  private readonly providerRejections: Counter;
  readonly httpRateLimited: Counter;
  readonly wsEvents: Counter;
  /** Wall-clock creation time of orders not yet filled, for the latency histogram. */
  private readonly submittedAt = new Map<string, number>();

  constructor(
    private readonly provider: string,
    connectedNow: () => boolean,
  ) {
    const registers = [this.registry];
    const labelNames = ['provider'] as const;
    const counter = (name: string, help: string) => new Counter({ name, help, labelNames, registers });
    this.submitted = counter(
      'gateway_orders_submitted_total',
      'Orders accepted by POST /v1/orders and position closes.',
    );
    this.filled = counter('gateway_orders_filled_total', 'Orders completely filled.');
    this.rejected = counter('gateway_orders_rejected_total', 'Orders rejected by the provider.');
    this.cancelled = counter(
      'gateway_orders_cancelled_total',
      'Orders cancelled (by the client, OCO or the provider).',
    );
    this.expired = counter('gateway_orders_expired_total', 'Orders whose time in force elapsed.');
    this.providerErrors = counter(
      'gateway_provider_errors_total',
      'Provider calls that failed (502 PROVIDER_ERROR, 503 PROVIDER_UNAVAILABLE, unexpected failures).',
    );
    this.providerRejections = new Counter({
      name: 'gateway_provider_rejections_total',
      help: 'Orders the provider rejected, by RejectReason.',
      labelNames: ['provider', 'reason'] as const,
      registers,
    });
    this.httpRateLimited = counter(
      'gateway_http_rate_limited_total',
      'Requests refused with 429 RATE_LIMITED.',
    );
    this.wsEvents = counter('gateway_ws_events_total', 'Events published on the WebSocket stream.');
    this.fillLatency = new Histogram({
      name: 'gateway_order_fill_latency_seconds',
      help: 'Wall-clock time from order submission to its complete fill.',
      labelNames,
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120, 600],
      registers,
    });
    this.connected = new Gauge({
      name: 'gateway_provider_connected',
      help: '1 while the provider is connected, else 0.',
      labelNames,
      registers,
      collect: () => this.connected.set({ provider }, connectedNow() ? 1 : 0),
    });
    for (const metric of [
      this.submitted,
      this.filled,
      this.rejected,
      this.cancelled,
      this.expired,
      this.providerErrors,
    ])
      metric.inc({ provider }, 0);
    this.httpRateLimited.inc({ provider }, 0);
    this.wsEvents.inc({ provider }, 0);
  }

  orderSubmitted(): void {
    this.submitted.inc({ provider: this.provider });
  }

  providerError(): void {
    this.providerErrors.inc({ provider: this.provider });
  }

  eventsPublished(count: number): void {
    this.wsEvents.inc({ provider: this.provider }, count);
  }

  rateLimited(): void {
    this.httpRateLimited.inc({ provider: this.provider });
  }

  orderEvent(event: string, orderId: string, rejectReason?: string | null): void {
    const provider = this.provider;
    switch (event) {
      case 'ORDER_CREATED':
      case 'BRACKET_ORDER_CREATED':
        this.submittedAt.set(orderId, performance.now());
        return;
      case 'ORDER_FILLED': {
        this.filled.inc({ provider });
        const at = this.submittedAt.get(orderId);
        if (at !== undefined) {
          this.fillLatency.observe({ provider }, (performance.now() - at) / 1000);
          this.submittedAt.delete(orderId);
        }
        return;
      }
      case 'ORDER_REJECTED':
        this.rejected.inc({ provider });
        this.providerRejections.inc({ provider, reason: rejectReason ?? 'UNKNOWN' });
        this.submittedAt.delete(orderId);
        return;
      case 'ORDER_CANCELLED':
        this.cancelled.inc({ provider });
        this.submittedAt.delete(orderId);
        return;
      case 'ORDER_EXPIRED':
        this.expired.inc({ provider });
        this.submittedAt.delete(orderId);
        return;
      default:
        return;
    }
  }
}
