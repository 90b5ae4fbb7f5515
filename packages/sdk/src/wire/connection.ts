import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import type { Body } from '../venue.ts';
import type { Answer } from './socket-venue.ts';

/**
 * The strategy's WebSocket to its gateway (docs/protocol.md, The event stream): frames in, `pong`,
 * `event_ack` and `request` frames out. A connection lost before the end of the backtest is opened
 * again with `resume_from_seq` (the last seq received, so nothing is handled twice), after 500 ms
 * doubling to 30 s, at most 5 attempts; requests in flight are sent again then (an order first
 * looked up by its `client_order_id`, in case it was placed).
 */
export interface ConnectionHandlers {
  /** Every frame but ping, response and a request's INVALID_MESSAGE, parsed. */
  event(event: Record<string, unknown>): void;
  /** The backtest ended (`DISCONNECTING`, or a close with 1000 or 4001). */
  ended(error: string | undefined): void;
  /** The connection is lost for good. */
  lost(error: Error): void;
}

interface Pending {
  method: string;
  path: string;
  body: Body | undefined;
  resolve(answer: Answer): void;
  reject(error: Error): void;
}

const REQUEST_TIMEOUT_MS = 10_000;
const RECONNECT_ATTEMPTS = 5;

export class GatewayConnection {
  private ws: WebSocket | undefined;
  private requests = 0;
  private readonly pending = new Map<string, Pending>();
  /** The highest seq received: a resumed connection starts after it. */
  private lastSeqReceived = 0;
  private ended = false;
  /** The last ack sent: repeated on a resumed connection, in case the lost one never delivered it. */
  private lastAck = 0;

  constructor(
    private readonly url: string,
    private readonly apiKey: string | undefined,
    private readonly handlers: ConnectionHandlers,
  ) {}

  async open(): Promise<void> {
    this.ws = await this.connect(undefined);
  }

  /** A REST call as a `request` frame; resolves with the response frame's status and body. */
  request(method: string, path: string, body?: Body): Promise<Answer> {
    const requestId = `q${++this.requests}`;
    return new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.pending.delete(requestId)) {
          resolve({ status: 503, body: { code: 'PROVIDER_UNAVAILABLE', message: 'no answer within 10 s' } });
        }
      }, REQUEST_TIMEOUT_MS);
      timer.unref();
      this.pending.set(requestId, {
        method,
        path,
        body,
        resolve: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.sendRequest(requestId, method, path, body);
    });
  }

  ack(lastSeq: number): void {
    this.lastAck = lastSeq;
    this.send(`{"type":"event_ack","last_seq":${lastSeq}}`);
  }

  close(): void {
    this.ended = true;
    this.ws?.close(1000);
  }

  private sendRequest(requestId: string, method: string, path: string, body: Body | undefined): void {
    this.send(
      JSON.stringify(
        body === undefined
          ? { type: 'request', request_id: requestId, method, path }
          : { type: 'request', request_id: requestId, method, path, body },
      ),
    );
  }

  private send(text: string): void {
    // While reconnecting, frames wait for the new socket (requests are sent again from `pending`).
    if (this.ws?.readyState === WebSocket.OPEN) this.ws.send(text);
  }

  private connect(resumeFrom: number | undefined): Promise<WebSocket> {
    const url = resumeFrom === undefined ? this.url : withResume(this.url, resumeFrom);
    const ws = new WebSocket(url, { headers: this.apiKey ? { 'X-API-Key': this.apiKey } : {} });
    return new Promise<WebSocket>((resolve, reject) => {
      ws.once('open', () => {
        ws.off('error', reject);
        ws.on('error', () => undefined); // the close that follows is what counts
        resolve(ws);
      });
      ws.once('error', reject);
      ws.on('message', (data) => this.frame(ws, data.toString()));
      ws.on('close', (code) => this.closed(ws, code));
    });
  }

  private frame(ws: WebSocket, text: string): void {
    const frame = JSON.parse(text) as Record<string, unknown>;
    const type = frame.type;
    if (type === 'ping') {
      ws.send('{"type":"pong"}');
      return;
    }
    if (typeof frame.seq === 'number' && frame.seq > this.lastSeqReceived) this.lastSeqReceived = frame.seq;
    if (type === 'response') {
      const pending = this.pending.get(frame.request_id as string);
      this.pending.delete(frame.request_id as string);
      pending?.resolve({ status: frame.status as number, body: frame.body });
      return;
    }
    if (type === 'error' && frame.code === 'INVALID_MESSAGE') {
      const requestId = (frame.details as { request_id?: string } | undefined)?.request_id;
      const pending = requestId === undefined ? undefined : this.pending.get(requestId);
      if (pending && requestId !== undefined) {
        this.pending.delete(requestId);
        pending.resolve({ status: 400, body: { code: 'INVALID_REQUEST', message: frame.message } });
        return;
      }
    }
    if (type === 'connection' && frame.event === 'DISCONNECTING') {
      this.ended = true;
      this.handlers.ended(typeof frame.error === 'string' ? frame.error : undefined);
      return;
    }
    this.handlers.event(frame);
  }

  private closed(ws: WebSocket, code: number): void {
    if (ws !== this.ws) return;
    if (this.ended || code === 1000 || code === 4001) {
      if (!this.ended) {
        this.ended = true;
        this.handlers.ended(code === 4001 ? 'the run failed' : undefined);
      }
      return;
    }
    void this.reconnect(code);
  }

  private async reconnect(code: number): Promise<void> {
    this.ws = undefined;
    let lastError: unknown;
    for (let attempt = 1; attempt <= RECONNECT_ATTEMPTS; attempt++) {
      await sleep(Math.random() * Math.min(30_000, 500 * 2 ** (attempt - 1)));
      try {
        this.ws = await this.connect(this.lastSeqReceived);
        await this.resend();
        if (this.lastAck > 0) this.ack(this.lastAck);
        return;
      } catch (error) {
        lastError = error;
      }
    }
    this.handlers.lost(
      new Error(
        `the connection to the gateway closed (${code}) and could not be resumed: ${String(lastError)}`,
      ),
    );
  }

  /** Requests in flight when the socket was lost, sent again; an order only if it was not placed. */
  private async resend(): Promise<void> {
    for (const [requestId, call] of [...this.pending]) {
      const clientOrderId = call.body?.client_order_id;
      if (call.method === 'POST' && call.path === '/v1/orders' && typeof clientOrderId === 'string') {
        this.pending.delete(requestId);
        const found = await this.request(
          'GET',
          `/v1/orders?client_order_id=${encodeURIComponent(clientOrderId)}`,
        );
        const [order] = (found.status === 200 ? found.body : []) as { id: string; status: string }[];
        if (order) {
          call.resolve({
            status: 200,
            body: { id: order.id, status: order.status, client_order_id: clientOrderId },
          });
          continue;
        }
        this.pending.set(requestId, call);
      }
      this.sendRequest(requestId, call.method, call.path, call.body);
    }
  }
}

function withResume(url: string, seq: number): string {
  const parsed = new URL(url);
  parsed.searchParams.set('resume_from_seq', String(seq));
  return parsed.toString();
}
