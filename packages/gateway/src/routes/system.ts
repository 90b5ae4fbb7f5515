import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GatewayContext } from '../http/context.ts';
import { type Operation, ok, operation } from '../http/operations.ts';
import {
  breakersSchema,
  COMMON_ERRORS,
  capabilitiesSchema,
  connectionStatusSchema,
  errorResponses,
  healthSchema,
  liveSchema,
  readySchema,
  security,
} from '../http/schemas.ts';
import {
  getCapabilities,
  getCircuitBreakers,
  getConnectionStatus,
  resetCircuitBreakers,
} from '../trading/trading-service.ts';

/**
 * System endpoints, health probes and metrics (trading-gateway.md: System, Health probes). The /v1
 * ones are trading-service operations (callable over the socket too); the probes and /metrics are
 * HTTP only, outside authentication and the rate limit.
 */
const tags = ['System'];

export const systemOperations: Operation[] = [
  operation({
    method: 'GET',
    url: '/v1/capabilities',
    schema: {
      tags,
      operationId: 'getCapabilities',
      summary: 'What the active provider supports',
      security,
      response: { 200: capabilitiesSchema, ...errorResponses(...COMMON_ERRORS) },
    },
    run: (ctx) => ok(getCapabilities(ctx)),
  }),
  operation({
    method: 'GET',
    url: '/v1/status',
    schema: {
      tags,
      operationId: 'getStatus',
      summary: 'Provider connection status',
      security,
      response: { 200: connectionStatusSchema, ...errorResponses(...COMMON_ERRORS) },
    },
    run: (ctx) => ok(getConnectionStatus(ctx)),
  }),
  operation({
    method: 'GET',
    url: '/v1/circuit-breakers',
    schema: {
      tags,
      operationId: 'getCircuitBreakers',
      summary: 'State of the adapter and exit_order breakers',
      security,
      response: { 200: breakersSchema, ...errorResponses(...COMMON_ERRORS) },
    },
    run: (ctx) => ok(getCircuitBreakers(ctx)),
  }),
  operation({
    method: 'POST',
    url: '/v1/circuit-breakers/reset',
    schema: {
      tags,
      operationId: 'resetCircuitBreakers',
      summary: 'Close both breakers atomically',
      description:
        'No body is accepted. Both breakers close with failure counts 0. A reset within 60 s of the last successful one is 409 RESET_COOLDOWN (details.retry_after_seconds).',
      security,
      response: { 200: breakersSchema, ...errorResponses(...COMMON_ERRORS, 'RESET_COOLDOWN') },
    },
    // An empty HTTP body arrives as undefined (no content type) or '' (text/plain): both are none.
    run: (ctx, { body }) => ok(resetCircuitBreakers(ctx, body !== undefined && body !== null && body !== '')),
  }),
];

/** The probes and /metrics. */
export async function probeRoutes(app: FastifyInstance, { ctx }: { ctx: GatewayContext }) {
  const api = app.withTypeProvider<ZodTypeProvider>();

  const probe = { public: true, unmetered: true };
  api.get(
    '/livez',
    {
      config: probe,
      schema: {
        tags: ['Health'],
        operationId: 'livez',
        summary: 'Liveness: 200 while the process responds',
        security: [],
        response: { 200: liveSchema },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  api.get(
    '/readyz',
    {
      config: probe,
      schema: {
        tags: ['Health'],
        operationId: 'readyz',
        summary: 'Readiness: 503 while shutting down',
        security: [],
        response: { 200: readySchema, 503: readySchema },
      },
    },
    async (_request, reply) => {
      if (ctx.lifecycle.shuttingDown) {
        return reply.code(503).send({
          ready: false,
          providers: [],
          provider_count: 0,
          message: 'The gateway is shutting down.',
        });
      }
      return { ready: true, providers: [ctx.provider.name], provider_count: 1 };
    },
  );

  api.get(
    '/health',
    {
      config: probe,
      schema: {
        tags: ['Health'],
        operationId: 'health',
        summary: 'Detailed health (always 200; stale data gives degraded)',
        security: [],
        response: { 200: healthSchema },
      },
    },
    async () => {
      const health = ctx.provider.health();
      const degraded = !health.connected || health.staleInstruments.length > 0;
      return {
        status: degraded ? ('degraded' as const) : ('connected' as const),
        version: ctx.version,
        git_sha: ctx.settings.gitSha,
        providers: [
          {
            platform: ctx.provider.name,
            connected: health.connected,
            ...(health.staleInstruments.length > 0 && { stale_instruments: health.staleInstruments }),
          },
        ],
      };
    },
  );

  api.get(
    '/metrics',
    {
      config: probe,
      schema: {
        tags: ['Health'],
        operationId: 'metrics',
        summary: 'Prometheus metrics (text exposition format)',
        security: [],
        response: { 200: z.string().meta({ description: 'Prometheus text format 0.0.4.' }) },
      },
    },
    async (_request, reply) => {
      const text = await ctx.metrics.registry.metrics();
      return reply
        .type(ctx.metrics.registry.contentType)
        .serializer((v) => v as string)
        .send(text);
    },
  );
}
