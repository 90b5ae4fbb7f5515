import swagger from '@fastify/swagger';
import { defaultLogStream } from '@hindsight/gateway';
import Fastify, { type FastifyInstance, LogController } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { PlatformMetrics } from '../operations/platform-metrics.ts';
import { apiKeyRoutes } from '../routes/api-keys.ts';
import { appApiRoutes } from '../routes/app-api/index.ts';
import { authRoutes } from '../routes/auth.ts';
import { catalogRoutes } from '../routes/catalog.ts';
import { configurationRoutes } from '../routes/configurations.ts';
import { eventRoutes } from '../routes/events.ts';
import { type HealthSources, healthRoutes } from '../routes/health.ts';
import { metricsRoutes } from '../routes/metrics.ts';
import { registryRoutes } from '../routes/registry.ts';
import { scenarioRoutes } from '../routes/scenarios.ts';
import { strategyRoutes } from '../routes/strategies.ts';
import { templateRoutes } from '../routes/templates.ts';
import { versionRoutes } from '../routes/versions.ts';
import { webAppRoutes } from '../routes/web-app.ts';
import { registerAuthentication } from './authentication.ts';
import { clientErrorHandler } from './client-errors.ts';
import type { PlatformContext } from './context.ts';
import { registerErrorHandler } from './error-handler.ts';
import { registerJsonBodyParser } from './json-body.ts';
import { JSON_LIMITS_SUMMARY } from './json-limits.ts';
import { registerOwnedResource } from './owned-resource.ts';
import { requestValidatorCompiler } from './request-validation.ts';
import { errorBody } from './schemas.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * Any operation may meet a database outage (error-handler.ts answers it with the spec's retryable
 * SERVICE_UNAVAILABLE), so every documented operation lists 503 beside its own statuses.
 */
const documentServiceUnavailable: typeof jsonSchemaTransform = (input) => {
  const response = input.schema?.response as Record<string, unknown> | undefined;
  if (!response || '503' in response) return jsonSchemaTransform(input);
  return jsonSchemaTransform({
    ...input,
    schema: { ...input.schema, response: { ...response, 503: errorBody } },
  });
};

export interface ServerOptions {
  logLevel?: string;
  /** What /readyz knows of this process's worker, and the metrics /metrics serves (absent: none). */
  operations?: {
    workerExpected: boolean;
    worker: HealthSources['worker'];
    metrics?: PlatformMetrics | undefined;
  };
}

/** Builds the management API: one plugin per resource, sharing auth, errors and schemas. */
export async function buildServer(
  ctx: PlatformContext,
  options: ServerOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: options.logLevel ?? 'info', stream: defaultLogStream() },
    // One line per request only at debug (the onResponse hook below), not two at info.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    clientErrorHandler,
  });
  app.setValidatorCompiler(requestValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  registerAuthentication(app, ctx);
  registerOwnedResource(app);
  registerJsonBodyParser(app);
  if (app.log.level === 'debug' || app.log.level === 'trace') {
    app.addHook('onResponse', async (request, reply) => {
      const ms = Math.round(reply.elapsedTime * 10) / 10;
      request.log.debug(
        { method: request.method, url: request.url, status: reply.statusCode, ms },
        'request',
      );
    });
  }

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hindsight management API',
        version: ctx.version,
        description:
          'Strategies, versions, saved configurations, scenarios (backtest runs), results and the instrument catalog. Every error is `{error: {code, message, details?}}`; branch on `code`. ' +
          `Request JSON: a body of at most ${BODY_LIMIT_BYTES / 1024 / 1024} MiB. ${JSON_LIMITS_SUMMARY}`,
      },
      components: {
        securitySchemes: {
          ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          BearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key sent as a bearer token.' },
          SessionAuth: {
            type: 'http',
            scheme: 'bearer',
            bearerFormat: 'JWT',
            description: 'Web-app session token.',
          },
        },
      },
    },
    transform: documentServiceUnavailable,
    transformObject: jsonSchemaTransformObject,
  });

  await app.register(authRoutes, { ctx });
  await app.register(apiKeyRoutes, { ctx });
  await app.register(strategyRoutes, { ctx });
  await app.register(versionRoutes, { ctx });
  await app.register(configurationRoutes, { ctx });
  await app.register(scenarioRoutes, { ctx });
  await app.register(catalogRoutes, { ctx });
  await app.register(templateRoutes, { ctx });
  await app.register(eventRoutes, { ctx });
  await app.register(registryRoutes, { ctx });
  await app.register(appApiRoutes, { ctx });
  app.get(
    '/v1/openapi.json',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['Reference'],
        operationId: 'getOpenApiDocument',
        summary: 'This OpenAPI 3.1 document',
        description: 'The bare document (no envelope); the source of truth for the `/v1` shape.',
        security: [],
        response: {
          200: z.looseObject({
            openapi: z.string(),
            info: z.object({ title: z.string(), version: z.string() }),
          }),
        },
      },
    },
    () => app.swagger() as unknown as { openapi: string; info: { title: string; version: string } },
  );
  const operations = options.operations;
  await healthRoutes(app, {
    db: ctx.db,
    workerExpected: operations?.workerExpected ?? false,
    worker: operations?.worker ?? (() => undefined),
  });
  if (operations?.metrics) await metricsRoutes(app, { metrics: operations.metrics });
  await webAppRoutes(app, { version: ctx.version });
  return app;
}
