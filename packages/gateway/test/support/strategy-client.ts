import WebSocket from 'ws';

/**
 * A real `ws` client speaking the strategy side of the protocol: it records every event, answers
 * pings (unless told not to) and, with `autoAck`, acknowledges each event as it arrives.
 */
// biome-ignore lint/suspicious/noExplicitAny: events are read loosely in tests.
export type WireEvent = Record<string, any> & { type: string };

export interface StrategyClientOptions {
  autoAck?: boolean;
  autoPong?: boolean;
  headers?: Record<string, string>;
  query?: Record<string, string>;
}

export class StrategyClient {
  readonly events: WireEvent[] = [];
  readonly raw: string[] = [];
  closeCode: number | undefined;
  private waiters: { test: (e: WireEvent) => boolean; resolve: (e: WireEvent) => void }[] = [];
  readonly closed: Promise<number>;
  autoAck: boolean;
  autoPong: boolean;
  private requests = 0;

  private constructor(
    readonly socket: WebSocket,
    options: StrategyClientOptions,
  ) {
    this.autoAck = options.autoAck ?? false;
    this.autoPong = options.autoPong ?? true;
    socket.on('message', (data) => {
      const text = data.toString();
      this.raw.push(text);
      const event = JSON.parse(text) as WireEvent;
      this.events.push(event);
      if (event.type === 'ping' && this.autoPong) socket.send(JSON.stringify({ type: 'pong' }));
      if (this.autoAck && typeof event.seq === 'number') this.ack(event.seq);
      this.waiters = this.waiters.filter((w) => {
        if (!w.test(event)) return true;
        w.resolve(event);
        return false;
      });
    });
    this.closed = new Promise((resolve) =>
      socket.on('close', (code) => {
        this.closeCode = code;
        resolve(code);
      }),
    );
  }

  static connect(baseUrl: string, options: StrategyClientOptions = {}): Promise<StrategyClient> {
    const url = new URL('/v1/ws', baseUrl.replace(/^http/, 'ws'));
    for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
    const socket = new WebSocket(url, { headers: options.headers ?? {}, perMessageDeflate: false });
    const client = new StrategyClient(socket, options);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(client));
      socket.once('unexpected-response', (req, res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => {
          body += chunk.toString();
        });
        res.on('end', () => {
          req.destroy();
          reject(
            Object.assign(new Error(`upgrade refused ${res.statusCode}`), { status: res.statusCode, body }),
          );
        });
      });
      socket.once('error', reject);
    });
  }

  /** The first event (already received or future) that passes `test`. */
  waitFor(test: (e: WireEvent) => boolean, what = 'an event', timeoutMs = 20_000): Promise<WireEvent> {
    const found = this.events.find(test);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      this.waiters.push({
        test,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      });
    });
  }

  /** Waits for the next event after the ones seen so far that passes `test`. */
  next(test: (e: WireEvent) => boolean, what = 'an event'): Promise<WireEvent> {
    const seen = this.events.length;
    return this.waitFor((e) => this.events.indexOf(e) >= seen && test(e), what);
  }

  get lastSeq(): number {
    let last = 0;
    for (const e of this.events) if (typeof e.seq === 'number' && e.seq > last) last = e.seq;
    return last;
  }

  ack(lastSeq?: number): void {
    this.send({
      type: 'event_ack',
      correlation_id: `ack-${lastSeq ?? 'all'}`,
      events_processed: [],
      timestamp: Date.now(),
      ...(lastSeq !== undefined && { last_seq: lastSeq }),
    });
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /**
   * Makes a REST call over the socket (a `request` frame) and resolves with its `response` frame, or
   * with the `error` event that refused the frame.
   */
  request(method: string, path: string, body?: unknown): Promise<WireEvent> {
    const id = `req-${++this.requests}`;
    const answer = this.next(
      (e) => (e.type === 'response' || e.type === 'error') && (e.request_id ?? e.details?.request_id) === id,
      `the response to ${method} ${path}`,
    );
    this.send({ type: 'request', request_id: id, method, path, ...(body !== undefined && { body }) });
    return answer;
  }

  /** Acknowledges everything so far and waits for the next candle. */
  async step(): Promise<WireEvent> {
    const next = this.next((e) => e.type === 'candle', 'the next candle');
    this.ack();
    return next;
  }

  close(): Promise<number> {
    this.socket.close(1000);
    return this.closed;
  }
}
