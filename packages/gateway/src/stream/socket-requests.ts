import type { RouteAnswer } from '../http/route-table.ts';
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
 * The call runs the gateway's own routes through the route table (`http/route-table.ts`, no mock
 * HTTP request), so validation, errors, idempotency, the rate limit, the circuit breakers, shutdown
 * and metrics are the REST ones, with nothing written twice. The socket authenticated at its upgrade.
 */
export interface RouteCaller {
  call(method: string, path: string, body: unknown): Promise<RouteAnswer>;
}

export class SocketRequests {
  constructor(private readonly routes: RouteCaller) {}

  /**
   * Runs the call; resolves with the response frame's text up to its `timestamp` and `seq`, which
   * the stream adds when it sends it (`responseText`).
   */
  async run(frame: RequestFrame): Promise<string> {
    const answer = await this.routes.call(frame.method, frame.path, frame.body);
    // The routes answer JSON (serialised once, here embedded as it is); anything else travels as text.
    const body = answer.payload;
    const bodyField = body.length === 0 ? '' : `,"body":${answer.json ? body : JSON.stringify(body)}`;
    return `{"type":"response","request_id":${JSON.stringify(frame.request_id)},"status":${answer.status}${bodyField}`;
  }
}

/** Completes a response frame's text with its time and seq (the order of every event's fields). */
export function responseText(head: string, timestamp: string, seq: number): string {
  return `${head},"timestamp":"${timestamp}","seq":${seq}}`;
}
