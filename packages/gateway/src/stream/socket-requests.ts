import { errorCodes, type FastifyBaseLogger } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import FindMyWay from 'find-my-way';
import secureJson from 'secure-json-parse';
import type { z } from 'zod';
import type { GatewayContext } from '../http/context.ts';
import { errorAnswer, notFoundError } from '../http/error-handler.ts';
import { meter } from '../http/guards.ts';
import type { Operation, OperationAnswer, OperationInput, OperationSchema } from '../http/operations.ts';
import { requestValidatorCompiler } from '../http/request-validation.ts';
import type { RequestFrame } from './client-frames.ts';

/**
 * REST calls made over the strategy's WebSocket (docs/gateway.md, "REST over the socket"): a
 * `request` frame `{"type":"request","request_id","method","path","body"}` is answered by a
 * `response` frame `{"type":"response","request_id","status","body","timestamp","seq"}` carrying
 * exactly the status and body the same call over HTTP gets.
 *
 * Why: the spec leaves client messages other than `pong` and `event_ack` open, and one ordered
 * connection lets a strategy send an order and its ack together (the order is placed before time
 * moves) and have an order's events before its answer, which HTTP beside the WebSocket cannot
 * promise. Exchanges take orders over their streaming socket too (Binance's WebSocket API, Kraken's
 * and OKX's order entry over WebSocket).
 *
 * A frame runs the same operation (`http/operations.ts`, the trading service) its HTTP route runs,
 * found by `(method, path)` in a table built from the same list, and goes through what Fastify does
 * around it, with the same functions in the same order: the rate limit, the JSON parser's poisoning
 * check, the path then query validators compiled from the operation's schemas, then the response
 * serialiser of the answer's status, or the ApiError of a failure. Not Fastify's `inject`: it builds
 * a mock HTTP request and response per call (about 65 us, more between bars of a backtest with cold
 * caches) around a call that takes a few. Authentication is not repeated: the socket was
 * authenticated at its upgrade. HTTP-only concerns (content types, body parsing, the onSend wait
 * for the call's events) do not apply: the frame's body is JSON already, and its response is queued
 * behind the call's events on the same socket.
 */

type Serializer = (data: unknown) => string;
type Validator = (data: unknown) => { value?: unknown; error?: unknown };

interface Entry {
  operation: Operation;
  params: Validator | undefined;
  query: Validator | undefined;
  /** The response schemas' serialisers by status key (`201`, `2xx`, `default`), as Fastify picks them. */
  serializers: Map<string, Serializer>;
}

export class SocketRequests {
  // Fastify's router options of the gateway server (server.ts), so that paths match alike.
  private readonly router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 200 });
  private calls = 0;

  constructor(
    private readonly ctx: GatewayContext,
    operations: readonly Operation[],
    private readonly log: FastifyBaseLogger,
    /** Log each call at debug, as the server's onResponse hook logs HTTP calls. */
    private readonly logCalls = false,
  ) {
    for (const operation of operations) {
      const { method, url, schema } = operation;
      const validator = (httpPart: 'params' | 'querystring', part: z.ZodType | undefined) =>
        part && (requestValidatorCompiler({ schema: part, method, url, httpPart }) as Validator);
      const serializers = new Map<string, Serializer>();
      for (const [status, part] of Object.entries(schema.response)) {
        serializers.set(status, serializerCompiler({ schema: part, method, url, httpStatus: status }));
      }
      const entry: Entry = {
        operation,
        params: validator('params', schema.params),
        query: validator('querystring', schema.querystring),
        serializers,
      };
      this.router.on(method, url, () => undefined, entry);
    }
  }

  /**
   * Runs the call; resolves with the response frame's text up to its `timestamp` and `seq`, which
   * the stream adds when it sends it (`responseText`).
   */
  async run(frame: RequestFrame): Promise<string> {
    const id = `socket-${++this.calls}`;
    const { status, payload } = await this.call(id, frame.method, frame.path, frame.body);
    if (this.logCalls) {
      this.log.debug({ method: frame.method, url: frame.path, status, via: 'websocket', id }, 'request');
    }
    // The answer is JSON, serialised once and embedded as it is.
    const bodyField = payload === undefined ? '' : `,"body":${payload}`;
    return `{"type":"response","request_id":${JSON.stringify(frame.request_id)},"status":${status}${bodyField}`;
  }

  private async call(
    id: string,
    method: string,
    path: string,
    body: unknown,
  ): Promise<{ status: number; payload: string | undefined }> {
    const found = this.router.find(method as FindMyWay.HTTPMethod, path);
    if (!found) return { status: 400, payload: JSON.stringify(notFoundError(method, path).toBody()) };
    const entry = found.store as Entry;
    try {
      if (!entry.operation.unmetered) meter(this.ctx);
      refusePoisonedBody(body);
      const input = {
        params: validated(entry.params, found.params),
        query: validated(entry.query, found.searchParams),
        body,
      } as OperationInput<OperationSchema>;
      const answer = await entry.operation.run(this.ctx, input);
      return { status: answer.status, payload: serialized(entry, answer) };
    } catch (error) {
      const { status, body: errorBody } = errorAnswer(error, this.log, id);
      return { status, payload: JSON.stringify(errorBody) };
    }
  }
}

/** The body as Fastify serialises it: by the status's response schema, else as JSON. */
function serialized(entry: Entry, answer: OperationAnswer): string | undefined {
  if (answer.body === undefined) return undefined;
  const key = String(answer.status);
  const serialize =
    entry.serializers.get(key) ??
    entry.serializers.get(`${key[0]}xx`) ??
    entry.serializers.get('default') ??
    JSON.stringify;
  return serialize(answer.body);
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

/** A part's value after its validator; a failure is thrown as the operation's error answer. */
function validated(validator: Validator | undefined, data: unknown): unknown {
  if (!validator) return data;
  const result = validator(data);
  if (result.error) throw result.error;
  return result.value;
}

/** Completes a response frame's text with its time and seq (the order of every event's fields). */
export function responseText(head: string, timestamp: string, seq: number): string {
  return `${head},"timestamp":"${timestamp}","seq":${seq}}`;
}
