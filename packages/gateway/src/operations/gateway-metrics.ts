import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { OrderTelemetry } from '../provider/provider.ts';

/**
 * `/metrics` (trading-gateway.md: "order counts (submitted, filled, rejected, cancelled), order-to-fill
 * latency, provider connection status, and provider error and rejection rates"), one registry per
 * gateway so several gateways can share a process. Rates are counters; Prometheus derives them.
 * Every series carries the `provider` label; children are bound once, off the hot path.
 */
type Child = { inc(value?: number): void };

export class GatewayMetrics implements OrderTelemetry {
  readonly registry = new Registry();
  private readonly submitted: Child;
  private readonly filled: Child;
  private readonly rejected: Child;
  private readonly cancelled: Child;
  private readonly expired: Child;
  private readonly providerErrors: Child;
  private readonly rateLimitedRequests: Child;
  /** Events published since the last scrape: a plain count on the per-batch path, added up at scrape. */
  private unscrapedEvents = 0;
  private readonly rejections: Counter<'provider' | 'reason'>;
  private readonly fillLatency: { observe(value: number): void };
  /** Wall-clock creation time of orders not yet filled, for the latency histogram. */
  private readonly createdAt = new Map<string, number>();

  constructor(
    private readonly provider: string,
    connectedNow: () => boolean,
  ) {
    const registers = [this.registry];
    const labelNames = ['provider'] as const;
    const counter = (name: string, help: string): Child => {
      const child = new Counter({ name, help, labelNames, registers }).labels(provider);
      child.inc(0);
      return child;
    };
    this.submitted = counter(
      'gateway_orders_submitted_total',
      'Orders accepted by POST /v1/orders and position closes.',
    );
    this.filled = counter('gateway_orders_filled_total', 'Orders completely filled.');
    this.rejected = counter('gateway_orders_rejected_total', 'Orders rejected by the provider.');
    this.cancelled = counter(
      'gateway_orders_cancelled_total',
      'Orders cancelled (by the client, one-cancels-other or the provider).',
    );
    this.expired = counter('gateway_orders_expired_total', 'Orders whose time in force elapsed.');
    this.providerErrors = counter(
      'gateway_provider_errors_total',
      'Provider calls that failed (502 PROVIDER_ERROR, 503 PROVIDER_UNAVAILABLE, unexpected failures).',
    );
    this.rateLimitedRequests = counter(
      'gateway_http_rate_limited_total',
      'Requests refused with 429 RATE_LIMITED.',
    );
    const wsEvents: Counter<'provider'> = new Counter({
      name: 'gateway_ws_events_total',
      help: 'Events published on the WebSocket stream.',
      labelNames,
      registers,
      collect: (): void => {
        wsEvents.inc({ provider }, this.unscrapedEvents);
        this.unscrapedEvents = 0;
      },
    });
    this.rejections = new Counter({
      name: 'gateway_provider_rejections_total',
      help: 'Orders the provider rejected, by RejectReason.',
      labelNames: ['provider', 'reason'] as const,
      registers,
    });
    this.fillLatency = new Histogram({
      name: 'gateway_order_fill_latency_seconds',
      help: 'Wall-clock time from the creation of an order to its complete fill.',
      labelNames,
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120, 600],
      registers,
    }).labels(provider);
    const connected: Gauge<'provider'> = new Gauge({
      name: 'gateway_provider_connected',
      help: '1 while the provider is connected, else 0.',
      labelNames,
      registers,
      collect: (): void => connected.set({ provider }, connectedNow() ? 1 : 0),
    });
  }

  orderSubmitted(): void {
    this.submitted.inc();
  }

  providerError(): void {
    this.providerErrors.inc();
  }

  eventsPublished(count: number): void {
    this.unscrapedEvents += count;
  }

  rateLimited(): void {
    this.rateLimitedRequests.inc();
  }

  orderEvent(event: string, order: Parameters<OrderTelemetry['orderEvent']>[1]): void {
    const orderId = order.id;
    switch (event) {
      case 'ORDER_CREATED':
      case 'BRACKET_ORDER_CREATED':
        this.createdAt.set(orderId, performance.now());
        return;
      case 'ORDER_FILLED': {
        this.filled.inc();
        const at = this.createdAt.get(orderId);
        if (at !== undefined) {
          this.fillLatency.observe((performance.now() - at) / 1000);
          this.createdAt.delete(orderId);
        }
        return;
      }
      case 'ORDER_REJECTED':
        this.rejected.inc();
        this.rejections.inc({ provider: this.provider, reason: order.reject_reason ?? 'UNKNOWN' });
        this.createdAt.delete(orderId);
        return;
      case 'ORDER_CANCELLED':
        this.cancelled.inc();
        this.createdAt.delete(orderId);
        return;
      case 'ORDER_EXPIRED':
        this.expired.inc();
        this.createdAt.delete(orderId);
        return;
      default:
        return;
    }
  }
}
