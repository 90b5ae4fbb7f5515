import {
  errorCodes,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
  type RouteOptions,
} from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import FindMyWay from 'find-my-way';
import secureJson from 'secure-json-parse';
import type { z } from 'zod';
import type { GatewayContext } from './context.ts';
import { errorAnswer, notFoundError } from './error-handler.ts';
import { meter } from './guards.ts';
import { requestValidatorCompiler } from './request-validation.ts';

/**
 * The gateway's REST routes, callable without HTTP: how a call made over the strategy's WebSocket
 * runs (`stream/socket-requests.ts`). Every route is captured as Fastify registers it (`onRoute`), so
 * a call runs the route's own handler with its own query and path validators, its own response
 * serializers, the rate limit and the error answers: the same functions an HTTP call goes through,
 * in the same order (metering, then path parameters, then the query string, then the handler).
 *
 * Why not Fastify's `inject`: it builds a mock HTTP request and response (streams, headers, Node's
 * HTTP response machinery) per call, about 65 us on this machine for a call whose handler takes a
 * few, and far more between bars of a backtest, when none of it is in the CPU's caches; most of the
 * time a strategy waited for an order went there. Authentication is not repeated: the socket was
 * authenticated when it opened. HTTP-only concerns (content types, body parsing, the onSend wait for
 * the call's events) do not apply: a request frame's body is JSON already, and its response is
 * queued behind the call's events on the same socket.
 *
 * A route with hooks of its own would be skipped silently here, so registering one throws: give the
 * table a way to run them first. WebSocket routes are not callable.
 */
export interface RouteAnswer {
  status: number;
  /** The body as sent over HTTP: JSON text when `json`, else the text itself; empty for no body. */
  payload: string;
  json: boolean;
}

type Serializer = (data: unknown) => string;
type Validator = (data: unknown) => { value?: unknown; error?: unknown };

interface Route {
  handler: (request: FastifyRequest, reply: FastifyReply) => unknown;
  url: string;
  metered: boolean;
  params?: Validator;
  query?: Validator;
  /** The response schemas' serializers by status key (`201`, `2xx`, `default`), as Fastify picks them. */
  serializers: Map<string, Serializer>;
}

const ROUTE_HOOKS = [
  'onRequest',
  'preParsing',
  'preValidation',
  'preHandler',
  'preSerialization',
  'onSend',
  'onResponse',
] as const;

/** The address a call over the socket shows the routes: not an IP address, so no HTTP client can. */
const SOCKET_ADDRESS = 'websocket';

export class RouteTable {
  // Fastify's router with the gateway server's options, so that paths match the same routes.
  private readonly router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 200 });
  private calls = 0;

  constructor(
    private readonly ctx: GatewayContext,
    private readonly log: FastifyBaseLogger,
    /** Log each call at debug, as the server's onResponse hook logs HTTP calls. */
    private readonly logCalls = false,
  ) {}

  /** Registers a route as Fastify does (pass to `app.addHook('onRoute', ...)`). */
  add(options: RouteOptions): void {
    // Calls over the socket reach REST paths under /v1/ only (not the probes, /metrics or Swagger UI).
    if ((options as { websocket?: boolean }).websocket || !options.url.startsWith('/v1/')) return;
    const methods = [options.method].flat().filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
    if (methods.length === 0) return;
    const hooks = ROUTE_HOOKS.filter((hook) => options[hook] !== undefined);
    if (hooks.length > 0) {
      throw new Error(
        `${options.url} has route hooks (${hooks.join(', ')}), which calls over the socket would skip`,
      );
    }
    const schema = (options.schema ?? {}) as {
      params?: z.ZodType;
      querystring?: z.ZodType;
      response?: Record<string, z.ZodType>;
    };
    const url = options.url;
    const validator = (httpPart: 'params' | 'querystring', part: z.ZodType | undefined) =>
      part &&
      (requestValidatorCompiler({ schema: part, method: methods[0] as string, url, httpPart }) as Validator);
    const serializers = new Map<string, Serializer>();
    for (const [status, part] of Object.entries(schema.response ?? {})) {
      serializers.set(
        status,
        serializerCompiler({ schema: part, method: methods[0] as string, url, httpStatus: status }),
      );
    }
    const route: Route = {
      handler: options.handler as Route['handler'],
      url,
      metered: !options.config?.unmetered,
      serializers,
      ...(schema.params && { params: validator('params', schema.params) }),
      ...(schema.querystring && { query: validator('querystring', schema.querystring) }),
    };
    for (const method of methods) this.router.on(method as FindMyWay.HTTPMethod, url, () => undefined, route);
  }

  /** Runs `method path` (a path under /v1/ with its query string) with `body` (parsed JSON, or undefined). */
  async call(method: string, path: string, body: unknown): Promise<RouteAnswer> {
    const id = `socket-${++this.calls}`;
    const answer = await this.run(id, method, path, body);
    if (this.logCalls) {
      this.log.debug({ method, url: path, status: answer.status, via: 'websocket', id }, 'request');
    }
    return answer;
  }

  private async run(id: string, method: string, path: string, body: unknown): Promise<RouteAnswer> {
    const found = this.router.find(method as FindMyWay.HTTPMethod, path);
    if (!found) return jsonAnswer(400, notFoundError(method, path).toBody());
    const route = found.store as Route;
    try {
      if (route.metered) meter(this.ctx);
      refusePoisonedBody(body);
      const params = validated(route.params, found.params);
      const query = validated(route.query, found.searchParams);
      const reply = new SocketReply();
      const request = {
        id,
        method,
        url: path,
        ip: SOCKET_ADDRESS,
        params,
        query,
        body,
        headers: {},
        log: this.log,
        routeOptions: { url: route.url },
      } as unknown as FastifyRequest;
      const returned = await route.handler(request, reply as unknown as FastifyReply);
      const payload = reply.sent ? reply.payload : returned;
      return this.answer(route, reply, payload);
    } catch (error) {
      const { status, body: errorBody } = errorAnswer(error, this.log, id);
      return jsonAnswer(status, errorBody);
    }
  }

  /** The response as Fastify serialises it: the status's response schema, else JSON. */
  private answer(route: Route, reply: SocketReply, payload: unknown): RouteAnswer {
    const status = reply.statusCode;
    if (payload === undefined) return { status, payload: '', json: false };
    // Fastify sends a string as it is: JSON only when its content type says so.
    if (typeof payload === 'string') return { status, payload, json: reply.typedJson };
    const key = String(status);
    const serialize =
      reply.customSerializer ??
      route.serializers.get(key) ??
      route.serializers.get(`${key[0]}xx`) ??
      route.serializers.get('default') ??
      JSON.stringify;
    return { status, payload: serialize(payload), json: true };
  }
}

/**
 * A body Fastify's JSON parser refuses (`__proto__` or `constructor.prototype` keys, its default
 * poisoning protection) is refused alike: the frame's body was parsed by plain `JSON.parse`.
 */
function refusePoisonedBody(body: unknown): void {
  if (body === null || typeof body !== 'object') return;
  try {
    secureJson.scan(body, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    throw new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY();
  }
}

/** A part's value after its validator; a failure is thrown as the route's error answer. */
function validated(validator: Validator | undefined, data: unknown): unknown {
  if (!validator) return data;
  const result = validator(data);
  if (result.error) throw result.error;
  return result.value;
}

const jsonAnswer = (status: number, body: unknown): RouteAnswer => ({
  status,
  payload: JSON.stringify(body),
  json: true,
});

/** The part of Fastify's reply the routes use. */
class SocketReply {
  statusCode = 200;
  sent = false;
  payload: unknown;
  /** A content type saying JSON was set (a string payload is text otherwise). */
  typedJson = false;
  customSerializer: Serializer | undefined;

  code(status: number): this {
    this.statusCode = status;
    return this;
  }

  status(status: number): this {
    return this.code(status);
  }

  type(contentType: string): this {
    this.typedJson = contentType.startsWith('application/json');
    return this;
  }

  header(name: string, value: string): this {
    if (name.toLowerCase() === 'content-type') this.type(value);
    return this;
  }

  serializer(serialize: Serializer): this {
    this.customSerializer = serialize;
    return this;
  }

  send(payload: unknown): this {
    this.payload = payload;
    this.sent = true;
    return this;
  }
}
