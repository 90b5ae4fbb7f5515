/**
 * Gateway ingress limit (trading-gateway.md: 429 RATE_LIMITED, the `rate_limit` event, capabilities
 * `rate_limits`). The numbers are the gateway's own (docs/gateway.md): `limit` requests per fixed
 * one-minute window (GATEWAY_RATE_LIMIT_PER_MINUTE, default 60,000), counted over every `/v1` REST
 * request; the probes, `/metrics`, the OpenAPI document and the WebSocket upgrade are not counted.
 * A RATE_LIMIT_WARNING event is sent once per window when 10% of the window's requests remain,
 * and RATE_LIMIT_HIT when a request is refused (once per window).
 */
export const WARNING_FRACTION = 0.1;
const WINDOW_MS = 60_000;

export type RateDecision =
  | { allowed: true; remaining: number; resetAt: number; warn: boolean }
  | { allowed: false; remaining: 0; resetAt: number; retryAfterSeconds: number; firstRefusal: boolean };

export class IngressRateLimit {
  private windowStart = Number.NEGATIVE_INFINITY;
  private used = 0;
  private warned = false;
  private refused = false;

  constructor(
    readonly limit: number,
    private readonly clock: () => number = Date.now,
  ) {}

  take(): RateDecision {
    const now = this.clock();
    if (now - this.windowStart >= WINDOW_MS) {
      this.windowStart = now;
      this.used = 0;
      this.warned = false;
      this.refused = false;
    }
    const resetAt = this.windowStart + WINDOW_MS;
    if (this.used >= this.limit) {
      const firstRefusal = !this.refused;
      this.refused = true;
      return {
        allowed: false,
        remaining: 0,
        resetAt,
        retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)),
        firstRefusal,
      };
    }
    this.used++;
    const remaining = this.limit - this.used;
    const warn = !this.warned && remaining <= Math.floor(this.limit * WARNING_FRACTION);
    if (warn) this.warned = true;
    return { allowed: true, remaining, resetAt, warn };
  }
}
