import type { Logger } from 'pino';
import type { GatewayLoggers } from '../log-filter.ts';
import type { CircuitBreakers } from '../operations/circuit-breakers.ts';
import type { GatewayMetrics } from '../operations/gateway-metrics.ts';
import type { IngressRateLimit } from '../operations/rate-limit.ts';
import type { OrderIdempotency } from '../protocol/idempotency.ts';
import type { Provider } from '../provider/provider.ts';
import type { GatewaySettings } from '../settings.ts';
import type { EventStream } from '../stream/event-stream.ts';

/** Everything the routes share: one provider, its event stream and the operational state. */
export interface GatewayContext {
  settings: GatewaySettings;
  provider: Provider;
  stream: EventStream;
  breakers: CircuitBreakers;
  metrics: GatewayMetrics;
  rateLimit: IngressRateLimit;
  idempotency: OrderIdempotency;
  logs: GatewayLoggers;
  log: Logger;
  version: string;
  /** WebSocket ping interval (15 s; tests shorten it). */
  heartbeatMs: number;
  lifecycle: { shuttingDown: boolean };
}
