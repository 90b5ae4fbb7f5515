import { GatewayError } from '../errors.ts';

/**
 * The two circuit breakers (trading-gateway.md: Circuit breakers), with the thresholds the spec
 * leaves open (docs/gateway.md):
 * - `adapter` trips after 5 consecutive failed provider calls (502/503 or an unexpected failure);
 *   while open, provider-backed requests get 503 PROVIDER_UNAVAILABLE. After 30 s open, one trial
 *   request is let through: its success closes the breaker, its failure re-opens it for 30 s more.
 * - `exit_order` trips after 3 consecutive failures to re-establish a stop-loss or take-profit leg
 *   (exit-leg moves answering 502 PROVIDER_ERROR); while open, new orders that carry stop_loss/take_profit are refused with 503
 *   PROVIDER_UNAVAILABLE, so no position opens unprotected. Same 30 s trial rule.
 * - `POST /v1/circuit-breakers/reset` closes both and zeroes the counts, at most once per 60 s: a
 *   reset within 60 s of the last successful one is 409 RESET_COOLDOWN.
 */
export type BreakerName = 'adapter' | 'exit_order';

export const BREAKER_THRESHOLDS: Record<BreakerName, number> = { adapter: 5, exit_order: 3 };
export const BREAKER_OPEN_MS = 30_000;
export const RESET_COOLDOWN_MS = 60_000;

export interface BreakerSnapshot {
  state: 'open' | 'closed';
  failure_count: number;
}

class Breaker {
  failures = 0;
  openedAt: number | undefined;
  trial = false;

  constructor(
    private readonly threshold: number,
    private readonly clock: () => number,
  ) {}

  get open(): boolean {
    return this.openedAt !== undefined;
  }

  /** Whether a request may go through now (a trial is allowed once the open period has passed). */
  allows(): boolean {
    if (this.openedAt === undefined) return true;
    if (!this.trial && this.clock() - this.openedAt >= BREAKER_OPEN_MS) {
      this.trial = true;
      return true;
    }
    return false;
  }

  success(): void {
    this.failures = 0;
    this.openedAt = undefined;
    this.trial = false;
  }

  failure(): void {
    this.failures++;
    if (this.trial || this.failures >= this.threshold) {
      this.openedAt = this.clock();
      this.trial = false;
    }
  }

  snapshot(): BreakerSnapshot {
    return { state: this.open ? 'open' : 'closed', failure_count: this.failures };
  }
}

export class CircuitBreakers {
  private readonly breakers: Record<BreakerName, Breaker>;
  private lastReset: number | undefined;

  constructor(private readonly clock: () => number = Date.now) {
    this.breakers = {
      adapter: new Breaker(BREAKER_THRESHOLDS.adapter, clock),
      exit_order: new Breaker(BREAKER_THRESHOLDS.exit_order, clock),
    };
  }

  /** Throws 503 PROVIDER_UNAVAILABLE while the breaker is open. */
  check(name: BreakerName): void {
    if (this.breakers[name].allows()) return;
    const message =
      name === 'adapter'
        ? 'The provider adapter circuit breaker is open after repeated provider failures; retry with backoff or reset it (POST /v1/circuit-breakers/reset).'
        : 'The exit_order circuit breaker is open after repeated stop-loss/take-profit placement failures: orders with stop_loss or take_profit are refused so that no position opens unprotected.';
    throw new GatewayError('PROVIDER_UNAVAILABLE', message, { circuit_breaker: name });
  }

  success(name: BreakerName): void {
    this.breakers[name].success();
  }

  failure(name: BreakerName): void {
    this.breakers[name].failure();
  }

  status(): Record<BreakerName, BreakerSnapshot> {
    return { adapter: this.breakers.adapter.snapshot(), exit_order: this.breakers.exit_order.snapshot() };
  }

  /** Closes both breakers atomically; 409 RESET_COOLDOWN within 60 s of the last reset. */
  reset(): Record<BreakerName, BreakerSnapshot> {
    const now = this.clock();
    if (this.lastReset !== undefined && now - this.lastReset < RESET_COOLDOWN_MS) {
      const retryAfter = Math.ceil((this.lastReset + RESET_COOLDOWN_MS - now) / 1000);
      throw new GatewayError(
        'RESET_COOLDOWN',
        `The circuit breakers were reset less than 60 s ago; wait ${retryAfter} s before resetting again.`,
        {
          retry_after_seconds: retryAfter,
          reset_at: new Date(this.lastReset + RESET_COOLDOWN_MS).toISOString(),
        },
      );
    }
    this.lastReset = now;
    this.breakers.adapter.success();
    this.breakers.exit_order.success();
    return this.status();
  }
}
