import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import websocket from '@fastify/websocket';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
} from 'fastify-type-provider-zod';
import { z } from 'zod';
import { marketOperations } from '../routes/market.ts';
import { orderOperations } from '../routes/orders.ts';
import { positionOperations } from '../routes/positions.ts';
import { streamRoutes } from '../routes/stream.ts';
import { probeRoutes, systemOperations } from '../routes/system.ts';
import { SocketRequests } from '../stream/socket-requests.ts';
import type { StrategyConnection } from '../stream/strategy-connection.ts';
import type { GatewayContext } from './context.ts';
import { frameworkErrors, registerErrorHandler } from './error-handler.ts';
import { registerGuards } from './guards.ts';
import { ok, operation, registerOperations } from './operations.ts';
import { requestValidatorCompiler } from './request-validation.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

type OpenApiDocument = { paths?: Record<string, Record<string, unknown>> } & Record<string, unknown>;

/**
 * @fastify/websocket hides WebSocket routes from the document; the upgrade is part of the contract,
 * so /v1/ws is described here (its frames are described in docs/gateway.md).
 */
function documentEventStream(doc: OpenApiDocument): OpenApiDocument {
  const error = {
    description: 'ApiError',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ApiError' } } },
  };
  doc.paths = {
    ...doc.paths,
    '/v1/ws': {
      get: {
        tags: ['Events'],
        operationId: 'openEventStream',
        summary: 'WebSocket event stream (upgrade)',
        description:
          'Upgrades to a WebSocket (scheme ws). Each frame is one event: JSON with type, timestamp and a monotonic integer seq (pings carry no seq). Clients answer {"type":"ping"} with {"type":"pong"} and acknowledge processed events with {"type":"event_ack","correlation_id","events_processed","timestamp","last_seq"}; in simulation mode time advances only when everything sent is acknowledged. Any REST call under /v1/ can also be made over the socket (docs/gateway.md, REST over the socket): {"type":"request","request_id","method","path","body"} is answered by {"type":"response","request_id","status","body","timestamp","seq"} with the status and body the same HTTP call gets (body absent when empty); frames take effect in the order sent, so an order sent before an event_ack is placed before time moves. Authenticate with X-API-Key, Authorization: Bearer, or ?api_key=.',
        security: [{ ApiKeyAuth: [] }, { BearerAuth: [] }],
        parameters: [
          {
            name: 'resume_from_seq',
            in: 'query',
            required: false,
            description: 'Replay every buffered event with a seq after this one before live events.',
            schema: { type: 'integer', minimum: 0 },
          },
          {
            name: 'api_key',
            in: 'query',
            required: false,
            description: 'The API key, for clients that cannot set headers (decision 18).',
            schema: { type: 'string' },
          },
        ],
        responses: {
          '101': { description: 'Switching protocols: the event stream.' },
          '400': error,
          '401': error,
        },
      },
    },
  };
  return doc;
}

/** The gateway's HTTP server: REST under /v1, the WebSocket at /v1/ws, probes and /metrics at the root. */
export async function buildGatewayServer(
  ctx: GatewayContext,
  connections: Set<StrategyConnection>,
): Promise<FastifyInstance> {
  const logRequests = ctx.logs.for('gateway::http').isLevelEnabled('debug');
  const app = Fastify({
    loggerInstance: ctx.logs.for('gateway::http') as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: BODY_LIMIT_BYTES,
    // close() must not wait on sockets that will never finish (refused upgrades, idle keep-alive).
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors,
  });
  app.setValidatorCompiler(requestValidatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  registerGuards(app, ctx);
  // The events of an order call wait for the end of this round of I/O (stream/event-stream.ts); the
  // answer follows them, so a strategy has the order's events when it has the handle. (A call over
  // the socket does not come this way: its response frame is queued behind those events.)
  app.addHook('onSend', (_request, _reply, payload, done) => {
    ctx.stream.afterFlush(() => done(null, payload));
  });
  app.addHook('onResponse', async (request, reply) => {
    // A refused WebSocket upgrade (401, 400 ...): nobody owns the raw socket, so end it here, or
    // it would stay half-open and keep the server from closing.
    if (request.headers.upgrade !== undefined && reply.statusCode >= 400) request.raw.socket.end();
    if (logRequests) {
      request.log.debug({ method: request.method, url: request.url, status: reply.statusCode }, 'request');
    }
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Hindsight trading gateway',
        version: ctx.version,
        description:
          'One provider per instance; REST under /v1, the event stream at /v1/ws. Errors are the bare ApiError {code, message, details?}; branch on code. Decimals are strings. Decisions where the spec is silent: docs/gateway.md.',
      },
      components: {
        securitySchemes: {
          ApiKeyAuth: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
          BearerAuth: { type: 'http', scheme: 'bearer', description: 'GATEWAY_API_KEY as a bearer token.' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: (input) => documentEventStream(jsonSchemaTransformObject(input) as OpenApiDocument),
  });
  if (ctx.settings.enableSwagger) {
    await app.register(swaggerUi, { routePrefix: '/swagger-ui', uiConfig: { url: '/v1/openapi.json' } });
  }
  // Client frames are checked for UTF-8 by the connection (client-frames.ts): an invalid one gets an
  // INVALID_MESSAGE error event instead of a closed socket, and the common ack skips the check.
  await app.register(websocket, {
    options: { perMessageDeflate: false, skipUTF8Validation: true, maxPayload: 1024 * 1024 },
  });

  const openApi = operation({
    method: 'GET',
    url: '/v1/openapi.json',
    public: true,
    unmetered: true,
    schema: {
      tags: ['Reference'],
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document',
      security: [],
      response: {
        200: z.looseObject({
          openapi: z.string(),
          info: z.object({ title: z.string(), version: z.string() }),
        }),
      },
    },
    run: () => ok(app.swagger()),
  });
  const trading = [...orderOperations, ...positionOperations, ...marketOperations, ...systemOperations];
  // Every operation under /v1/ is callable over the strategy's socket too, from the same list
  // (socket-requests.ts, which runs the guards' rate limit itself: a new global hook must be run
  // there too).
  const requests = new SocketRequests(ctx, [...trading, openApi], app.log, logRequests);
  await app.register(async (scope) => registerOperations(scope, ctx, trading));
  await app.register(probeRoutes, { ctx });
  await app.register(streamRoutes, { ctx, connections, requests });
  registerOperations(app, ctx, [openApi]);
  return app;
}
