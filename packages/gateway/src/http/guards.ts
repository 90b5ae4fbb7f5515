import type { FastifyInstance, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors.ts';
import type { GatewayContext } from './context.ts';

/**
 * Request guards, in the order they answer: authentication (401), the ingress rate limit (429).
 * Routes opt out with `config.public` (the probes, /metrics, the OpenAPI document and Swagger UI)
 * and out of the rate limit with `config.unmetered`.
 */
declare module 'fastify' {
  interface FastifyContextConfig {
    public?: boolean;
    unmetered?: boolean;
  }
}

/** The key from `X-API-Key`, `Authorization: Bearer`, or (WebSocket only, decision 18) `?api_key=`. */
export function presentedKey(request: FastifyRequest, allowQuery: boolean): string | undefined {
  const header = request.headers['x-api-key'];
  if (typeof header === 'string' && header.length > 0) return header;
  const authorization = request.headers.authorization;
  const match = typeof authorization === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(authorization) : null;
  if (match?.[1]) return match[1];
  if (allowQuery) {
    const query = request.query as Record<string, unknown> | undefined;
    if (typeof query?.api_key === 'string' && query.api_key.length > 0) return query.api_key;
  }
  return undefined;
}

function sameKey(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

export function registerGuards(app: FastifyInstance, ctx: GatewayContext): void {
  const apiKey = ctx.settings.apiKey;
  app.addHook('onRequest', async (request) => {
    const config = request.routeOptions.config;
    if (config.public || request.routeOptions.url === undefined) return;
    if (apiKey !== undefined) {
      const isSocket = request.routeOptions.url === '/v1/ws';
      const key = presentedKey(request, isSocket);
      if (key === undefined) {
        throw new GatewayError(
          'UNAUTHORIZED',
          isSocket
            ? 'Send the API key as X-API-Key, Authorization: Bearer <key>, or ?api_key=<key> on the upgrade request.'
            : 'Send the API key as X-API-Key: <key> or Authorization: Bearer <key>.',
        );
      }
      if (!sameKey(key, apiKey))
        throw new GatewayError('UNAUTHORIZED', 'The API key is not valid for this gateway.');
    }
    if (!config.unmetered) meter(ctx);
  });
}

/**
 * The ingress rate limit (429 RATE_LIMITED), with its `rate_limit` events before and at the limit:
 * for every metered route, over HTTP and over the socket (`stream/socket-requests.ts`).
 */
export function meter(ctx: GatewayContext): void {
  const decision = ctx.rateLimit.take();
  if (decision.allowed) {
    if (decision.warn) {
      ctx.stream.broadcast({
        type: 'rate_limit',
        event: 'RATE_LIMIT_WARNING',
        requests_remaining: decision.remaining,
        reset_at: new Date(decision.resetAt).toISOString(),
        timestamp: new Date(ctx.provider.now).toISOString(),
      });
    }
    return;
  }
  ctx.metrics.rateLimited();
  if (decision.firstRefusal) {
    ctx.stream.broadcast({
      type: 'rate_limit',
      event: 'RATE_LIMIT_HIT',
      requests_remaining: 0,
      reset_at: new Date(decision.resetAt).toISOString(),
      timestamp: new Date(ctx.provider.now).toISOString(),
    });
  }
  throw new GatewayError(
    'RATE_LIMITED',
    `The gateway accepts ${ctx.rateLimit.limit} requests per minute; retry after ${decision.retryAfterSeconds} s.`,
    {
      retry_after_seconds: decision.retryAfterSeconds,
      reset_at: new Date(decision.resetAt).toISOString(),
    },
  );
}

/** 503 SHUTTING_DOWN for requests that would open new orders once SIGTERM arrived. */
export function refuseWhenShuttingDown(ctx: GatewayContext): void {
  if (ctx.lifecycle.shuttingDown) {
    throw new GatewayError(
      'SHUTTING_DOWN',
      'The gateway is shutting down and accepts no new orders; use another instance.',
    );
  }
}
