import type { InjectOptions, LightMyRequestResponse } from 'fastify';
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
 * and OKX's order entry over WebSocket). Per order it costs what HTTP does: the route's work
 * dominates either way (bench/gateway.ts, sequential orders).
 *
 * The call runs through the gateway's own routes with Fastify's `inject` (no socket, no HTTP
 * parsing), so validation, errors, idempotency, the rate limit, the circuit breakers, shutdown and
 * metrics are the REST ones, with nothing written twice. The socket authenticated at its upgrade,
 * so the call carries the gateway's key.
 */
export type Inject = (options: InjectOptions) => Promise<LightMyRequestResponse>;

/**
 * The remote address a call over the socket shows the routes: not an IP address, so no HTTP client
 * can present it. The server's reply hook reads it (`isSocketRequest`): such a response need not
 * wait for the call's events to be written, since it is queued behind them on the same socket.
 */
const SOCKET_ADDRESS = 'websocket';

export const isSocketRequest = (request: { ip: string }): boolean => request.ip === SOCKET_ADDRESS;

export class SocketRequests {
  private readonly headers: Record<string, string>;

  constructor(
    private readonly inject: Inject,
    apiKey: string | undefined,
  ) {
    this.headers = apiKey === undefined ? {} : { 'x-api-key': apiKey };
  }

  /**
   * Runs the call; resolves with the response frame's text up to its `timestamp` and `seq`, which
   * the stream adds when it sends it (`responseText`).
   */
  async run(frame: RequestFrame): Promise<string> {
    const hasBody = frame.body !== undefined;
    const response = await this.inject({
      method: frame.method,
      url: frame.path,
      remoteAddress: SOCKET_ADDRESS,
      headers: hasBody ? { ...this.headers, 'content-type': 'application/json' } : this.headers,
      ...(hasBody && { payload: JSON.stringify(frame.body) }),
    });
    // The routes answer JSON (serialised once, here embedded as it is); anything else travels as text.
    const body = response.payload;
    const json = String(response.headers['content-type'] ?? '').startsWith('application/json');
    const bodyField = body.length === 0 ? '' : `,"body":${json ? body : JSON.stringify(body)}`;
    return `{"type":"response","request_id":${JSON.stringify(frame.request_id)},"status":${response.statusCode}${bodyField}`;
  }
}

/** Completes a response frame's text with its time and seq (the order of every event's fields). */
export function responseText(head: string, timestamp: string, seq: number): string {
  return `${head},"timestamp":"${timestamp}","seq":${seq}}`;
}
