import { GatewayError } from '../errors.ts';
import type { GatewayContext } from '../http/context.ts';
import type { Awaitable } from '../provider/provider.ts';

/**
 * Every provider call goes through here: the `adapter` breaker is checked first (503
 * PROVIDER_UNAVAILABLE while open); client errors the provider raises (400/404/409/422) pass through
 * and count as healthy answers; PROVIDER_ERROR, PROVIDER_UNAVAILABLE and anything unexpected count as
 * failures (metrics and breaker), unexpected ones leaving as 502 PROVIDER_ERROR.
 */
const FAILURE_CODES = new Set(['PROVIDER_ERROR', 'PROVIDER_UNAVAILABLE']);

export function callProvider<T>(ctx: GatewayContext, action: () => Awaitable<T>): Promise<T> {
  let value: Awaitable<T>;
  try {
    ctx.breakers.check('adapter');
  } catch (error) {
    return Promise.reject(error);
  }
  try {
    value = action();
  } catch (error) {
    return Promise.reject(providerFailure(ctx, error));
  }
  // A simulation answers at once: no await then (an order's path runs thousands of times a backtest).
  if (!(value instanceof Promise)) {
    ctx.breakers.success('adapter');
    return Promise.resolve(value);
  }
  return value.then(
    (answer) => {
      ctx.breakers.success('adapter');
      return answer;
    },
    (error: unknown) => {
      throw providerFailure(ctx, error);
    },
  );
}

/** What a failed provider call throws, counted on the breaker and the metrics when it is the provider's fault. */
function providerFailure(ctx: GatewayContext, error: unknown): unknown {
  if (error instanceof GatewayError && !FAILURE_CODES.has(error.code)) {
    ctx.breakers.success('adapter');
    return error;
  }
  ctx.breakers.failure('adapter');
  ctx.metrics.providerError();
  if (error instanceof GatewayError) return error;
  ctx.log.error({ err: error }, 'provider call failed');
  return new GatewayError(
    'PROVIDER_ERROR',
    `The ${ctx.provider.name} provider failed: ${(error as Error).message}`,
  );
}
