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

export async function callProvider<T>(ctx: GatewayContext, action: () => Awaitable<T>): Promise<T> {
  ctx.breakers.check('adapter');
  try {
    const value = await action();
    ctx.breakers.success('adapter');
    return value;
  } catch (error) {
    if (error instanceof GatewayError && !FAILURE_CODES.has(error.code)) {
      ctx.breakers.success('adapter');
      throw error;
    }
    ctx.breakers.failure('adapter');
    ctx.metrics.providerError();
    if (error instanceof GatewayError) throw error;
    ctx.log.error({ err: error }, 'provider call failed');
    throw new GatewayError(
      'PROVIDER_ERROR',
      `The ${ctx.provider.name} provider failed: ${(error as Error).message}`,
    );
  }
}
