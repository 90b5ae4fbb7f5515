/**
 * SMA(10)/SMA(30) crossover on the 1-minute candles of one instrument.
 *
 * Golden cross (the fast SMA crosses above the slow one): go long. Death cross (it crosses below): go
 * short. The position is ORDER_QUANTITY (default "0.01") long or short; each crossover is one MARKET
 * order (twice the quantity for a reversal, which closes the position and opens the opposite one in
 * one fill on a netting account). Orders go to the trading gateway as REST calls made over its event
 * socket (a `request` frame, answered by a `response` frame with the HTTP status and body; one
 * ordered connection, so an order's events arrive before its answer). A lost socket is opened again
 * with `resume_from_seq`. The platform passes the gateway's address and key in the environment:
 *
 *   PROXY_WS_URL              ws://host:port/v1/ws
 *   PLATFORM_GATEWAY_API_KEY  sent as X-API-Key on the WebSocket upgrade
 *   PLATFORM_SUBSCRIPTIONS    JSON array of {instrument, events}; the first one with candle_1m is traded
 *
 * Runs on Node 20 with the `ws` package.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';

const FAST_PERIOD = 10;
const SLOW_PERIOD = 30;
const TIMEFRAME = '1m';
const CANDLE_EVENT = `candle_${TIMEFRAME}`;

// Quantities and prices stay decimal strings end to end; only the indicator parses closes to numbers.
const POSITIVE_DECIMAL = /^(?=.*[1-9])[0-9]+(\.[0-9]+)?$/;

// The gateway's retry advice: 500 ms doubling up to 30 s with full jitter, at most 5 attempts or
// 60 s in all; only these codes are worth retrying (a call in flight when the socket is lost is sent
// again on the resumed one: Gateway.resend).
const RETRYABLE_CODES = new Set(['RATE_LIMITED', 'PROVIDER_UNAVAILABLE', 'PROVIDER_ERROR']);
const MAX_ATTEMPTS = 5;
const RETRY_BUDGET_MS = 60_000;
const REQUEST_TIMEOUT_MS = 10_000;
// A lost socket is opened again on the same schedule. After these close codes there is nothing to
// resume: the end of the run (1000), a gateway shutting down (1001), a failed run (4001).
const FINAL_CLOSE_CODES = new Set([1000, 1001, 4001]);

type Side = 'BUY' | 'SELL';
type Position = 'flat' | 'long' | 'short';

interface Bar {
  symbol: string;
  timeframe: string;
  timestamp: string;
  close: string;
}

interface GatewayEvent {
  type: string;
  seq?: number;
  event?: string;
  bar?: Bar;
  order?: { id: string; reject_reason?: string | null };
  code?: string;
  message?: string;
  details?: { request_id?: string };
  // response frames
  request_id?: string;
  status?: number;
  body?: unknown;
}

interface OrderHandle {
  id: string;
  status: string;
  client_order_id: string | null;
}

interface ApiError {
  code?: string;
  message?: string;
  details?: { retry_after_seconds?: number; reset_at?: string };
}

interface Config {
  wsUrl: string;
  apiKey: string | undefined;
  symbol: string;
  quantity: string;
}

/** Reads the environment the platform sets; exits with status 2 when something is missing. */
function readConfig(env: NodeJS.ProcessEnv): Config {
  const fail = (message: string): never => {
    console.error(message);
    process.exit(2);
  };
  const wsUrl = env.PROXY_WS_URL || fail('PROXY_WS_URL is not set');
  const quantity = env.ORDER_QUANTITY ?? '0.01';
  if (!POSITIVE_DECIMAL.test(quantity)) {
    fail(`ORDER_QUANTITY must be a positive decimal string such as "0.01", not ${JSON.stringify(quantity)}`);
  }
  let subscriptions: { instrument: string; events: string[] }[] = [];
  try {
    subscriptions = JSON.parse(env.PLATFORM_SUBSCRIPTIONS ?? '[]');
  } catch {
    fail('PLATFORM_SUBSCRIPTIONS is not valid JSON');
  }
  const symbol =
    subscriptions.find((s) => s.events?.includes(CANDLE_EVENT))?.instrument ??
    fail(`no subscription includes ${CANDLE_EVENT}; subscribe one instrument to it`);
  const apiKey = env.PLATFORM_GATEWAY_API_KEY || undefined;
  return { wsUrl, apiKey, symbol, quantity };
}

/** A failed gateway call. `code` is the gateway's ApiError code, or NETWORK_ERROR. */
class GatewayError extends Error {
  constructor(
    readonly status: number | undefined,
    readonly code: string,
    message: string,
    readonly details: { retry_after_seconds?: number; reset_at?: string } = {},
  ) {
    super(`${status ?? 'no response'} ${code}: ${message}`);
  }

  /** The gateway's retry_after_seconds, else the time until reset_at, else the backoff. */
  retryDelayMs(backoffMs: number): number {
    if (this.details.retry_after_seconds !== undefined) return this.details.retry_after_seconds * 1000;
    if (this.details.reset_at !== undefined)
      return Math.max(0, Date.parse(this.details.reset_at) - Date.now());
    return backoffMs;
  }
}

interface Call {
  method: string;
  path: string;
  body: unknown;
  resolve: (body: unknown) => void;
  reject: (error: GatewayError) => void;
  timer: NodeJS.Timeout;
}

/**
 * The gateway's REST calls, made over the event socket: each call is a `request` frame with its own
 * `request_id`, settled by the `response` frame (or the INVALID_MESSAGE error) that names it. The
 * socket's frames take effect in the order sent, and the order's events arrive before its response.
 */
class Gateway {
  private calls = 0;
  private ws: WebSocket | undefined;
  private readonly pending = new Map<string, Call>();

  /** The socket calls go over from now on (a new one after a reconnect). */
  use(ws: WebSocket): void {
    this.ws = ws;
  }

  private call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const id = `${RUN_ID}-r${++this.calls}`;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          this.settle(
            id,
            new GatewayError(undefined, 'NETWORK_ERROR', `no answer within ${REQUEST_TIMEOUT_MS} ms`),
          ),
        REQUEST_TIMEOUT_MS,
      );
      this.pending.set(id, {
        method,
        path,
        body,
        resolve: resolve as (body: unknown) => void,
        reject,
        timer,
      });
      this.send(id);
    });
  }

  /** Sends a call's `request` frame; while the socket is down it waits for `resend`. */
  private send(id: string): void {
    const call = this.pending.get(id);
    if (call && this.ws?.readyState === WebSocket.OPEN) {
      const { method, path, body } = call;
      this.ws.send(JSON.stringify({ type: 'request', request_id: id, method, path, body }));
    }
  }

  /**
   * On a resumed connection, the calls the lost socket left unanswered are sent again (their answers
   * are not replayed). An order may have been placed with only its answer lost, so it is looked up by
   * its client_order_id first and sent again only if the gateway has none (protocol.md, Idempotency).
   */
  async resend(): Promise<void> {
    for (const [id, call] of [...this.pending]) {
      const clientOrderId = (call.body as { client_order_id?: string } | undefined)?.client_order_id;
      if (call.method === 'POST' && clientOrderId !== undefined) {
        const query = `/v1/orders?client_order_id=${encodeURIComponent(clientOrderId)}`;
        const found = this.call<(OrderHandle & { reject_reason?: string })[]>('GET', query);
        const [order] = await found.catch(() => []);
        console.warn(`order ${clientOrderId}: ${order ? 'placed' : 'not placed'} before the socket was lost`);
        if (order?.status === 'REJECTED') {
          this.settle(
            id,
            new GatewayError(422, 'ORDER_REJECTED', `order ${order.id}: ${order.reject_reason}`),
          );
          continue;
        }
        if (order) {
          this.settle(id, undefined, { id: order.id, status: order.status, client_order_id: clientOrderId });
          continue;
        }
      }
      this.send(id);
    }
  }

  /** Whether a call is waiting for its answer. */
  get calling(): boolean {
    return this.pending.size > 0;
  }

  /** Settles the call a `response` frame or a refusal names; false when the event is neither. */
  answer(event: GatewayEvent): boolean {
    if (event.type === 'response' && event.request_id !== undefined) {
      const status = event.status ?? 0;
      if (status >= 200 && status < 300) return this.settle(event.request_id, undefined, event.body);
      const { code, message, details } = (event.body ?? {}) as ApiError;
      return this.settle(
        event.request_id,
        new GatewayError(status, code ?? `HTTP_${status}`, message ?? '', details),
      );
    }
    const refused = event.type === 'error' ? event.details?.request_id : undefined;
    if (refused === undefined) return false;
    return this.settle(
      refused,
      new GatewayError(undefined, event.code ?? 'INVALID_MESSAGE', `${event.message}`),
    );
  }

  /** Fails every call still waiting (the socket is gone). */
  abandon(reason: string): void {
    for (const id of [...this.pending.keys()])
      this.settle(id, new GatewayError(undefined, 'NETWORK_ERROR', reason));
  }

  private settle(id: string, error: GatewayError | undefined, body?: unknown): boolean {
    const call = this.pending.get(id);
    if (!call) return false;
    this.pending.delete(id);
    clearTimeout(call.timer);
    if (error) call.reject(error);
    else call.resolve(body);
    return true;
  }

  /**
   * POST /v1/orders, retrying transient failures. Every retry reuses the client_order_id, so a call
   * that did reach the gateway returns the existing order instead of placing a second one.
   */
  async submitMarketOrder(symbol: string, side: Side, quantity: string): Promise<OrderHandle> {
    const order = {
      symbol,
      side,
      quantity,
      order_type: 'MARKET',
      client_order_id: `sma-${randomUUID()}`,
    };
    const deadline = Date.now() + RETRY_BUDGET_MS;
    let backoffMs = 500;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.call<OrderHandle>('POST', '/v1/orders', order);
      } catch (error) {
        if (!(error instanceof GatewayError)) throw error;
        const delayMs = error.retryDelayMs(Math.random() * backoffMs);
        const lastTry = attempt === MAX_ATTEMPTS || Date.now() + delayMs > deadline;
        if (!RETRYABLE_CODES.has(error.code) || lastTry) throw error;
        console.warn(`order ${order.client_order_id}: ${error.message}; retrying in ${delayMs} ms`);
        await sleep(delayMs);
        backoffMs = Math.min(backoffMs * 2, 30_000);
      }
    }
  }
}

/** The decimal string of twice a positive decimal string, digit for digit (no float rounding). */
function twice(quantity: string): string {
  const [whole = '', fraction = ''] = quantity.split('.');
  const digits = (BigInt(whole + fraction) * 2n).toString().padStart(fraction.length + 1, '0');
  return fraction === '' ? digits : `${digits.slice(0, -fraction.length)}.${digits.slice(-fraction.length)}`;
}

/** Keeps both SMAs and a flat/long/short state, and turns crossovers into orders. */
class SmaCrossover {
  private readonly closes: number[] = [];
  private position: Position = 'flat';
  /** +1 fast above slow, -1 below, 0 not known yet. */
  private sideOfSlow = 0;
  private readonly reversal: string;

  constructor(
    private readonly gateway: Gateway,
    private readonly symbol: string,
    private readonly quantity: string,
  ) {
    this.reversal = twice(quantity);
  }

  /** Updates the SMAs; on a crossover, returns the orders' promise (most bars place none: undefined). */
  onBar(bar: Bar): Promise<void> | undefined {
    if (bar.symbol !== this.symbol || bar.timeframe !== TIMEFRAME) return;
    this.closes.push(Number(bar.close));
    if (this.closes.length > SLOW_PERIOD) this.closes.shift();
    if (this.closes.length < SLOW_PERIOD) return;
    const fast = mean(this.closes, FAST_PERIOD);
    const slow = mean(this.closes, SLOW_PERIOD);
    const side = Math.sign(fast - slow);
    if (side === 0) return; // touching is not crossing
    const crossed = this.sideOfSlow !== 0 && side !== this.sideOfSlow;
    this.sideOfSlow = side;
    if (!crossed) return;
    const cross = `${side > 0 ? 'golden' : 'death'} cross at ${bar.timestamp} (fast ${fast}, slow ${slow})`;
    return this.moveTo(side > 0 ? 'long' : 'short', cross);
  }

  /**
   * One order for the difference between the position and the target (as backtrader's
   * order_target_size does): the quantity from flat, twice the quantity for a reversal.
   */
  private async moveTo(target: 'long' | 'short', why: string): Promise<void> {
    if (this.position === target) return;
    const side: Side = target === 'long' ? 'BUY' : 'SELL';
    const quantity = this.position === 'flat' ? this.quantity : this.reversal;
    let handle: OrderHandle;
    try {
      handle = await this.gateway.submitMarketOrder(this.symbol, side, quantity);
    } catch (error) {
      console.error(`${why}: ${side} ${quantity} ${this.symbol} failed: ${error}; staying ${this.position}`);
      return;
    }
    // One line per order: a backtest writes thousands, each a synchronous write to a file or pipe.
    console.log(`${why}: ${side} ${quantity} ${this.symbol}, now ${target} (order ${handle.id})`);
    this.position = target;
  }
}

/** The mean of the last `count` values, summed oldest first. */
function mean(values: number[], count: number): number {
  let sum = 0;
  for (let i = values.length - count; i < values.length; i++) sum += values[i] as number;
  return sum / count;
}

/** Acks and calls are numbered for log correlation: `<run id>-<n>`, unique without a UUID each. */
const RUN_ID = randomUUID().slice(0, 8);
let acks = 0;

/**
 * An `event_ack`; without `lastSeq` it drains every event the gateway has sent (see `handleInbox`).
 * Written as text rather than through JSON.stringify (one per bar): every part is a plain token
 * (`RUN_ID` is hex, `processed` holds `type:seq`), so nothing needs escaping.
 */
function eventAck(processed: string[], lastSeq?: number): string {
  const events = processed.length === 0 ? '' : `"${processed.join('","')}"`;
  const last = lastSeq === undefined ? '' : `,"last_seq":${lastSeq}`;
  return `{"type":"event_ack","correlation_id":"${RUN_ID}-${++acks}","events_processed":[${events}],"timestamp":${Date.now()}${last}}`;
}

function main(): void {
  const config = readConfig(process.env);
  const gateway = new Gateway();
  const strategy = new SmaCrossover(gateway, config.symbol, config.quantity);
  console.log(
    `trading ${config.symbol} on ${TIMEFRAME} candles, SMA(${FAST_PERIOD})/SMA(${SLOW_PERIOD}), ${config.quantity} per order`,
  );
  let ws: WebSocket;
  let finished = false;
  const send = (text: string) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(text);
  };
  const fail = (error: unknown) => {
    console.error('failed to handle a gateway message:', error);
    finished = true;
    process.exitCode = 1;
    ws.close(1011);
  };

  /** Handles one event; returns a promise only when it places orders. */
  const handle = (event: GatewayEvent): Promise<void> | undefined => {
    if (event.type === 'candle' && event.bar) return strategy.onBar(event.bar);
    if (event.type === 'connection' && event.event === 'DISCONNECTING') {
      console.log('the gateway is disconnecting: the run is over');
      finished = true;
      ws.close(1000);
    } else if (
      event.type === 'order' &&
      (event.event === 'ORDER_REJECTED' || event.event === 'ORDER_EXPIRED')
    ) {
      console.warn(`order ${event.order?.id}: ${event.event} ${event.order?.reject_reason ?? ''}`);
    } else if (event.type === 'error') {
      console.warn(`gateway error ${event.code}: ${event.message}`);
    }
  };

  // Events are handled strictly in order, each after the previous one (and its orders) is done.
  // What arrives meanwhile waits in the inbox; once it is empty, one acknowledgment covers every
  // event handled (its last_seq), since a backtest holds its simulated clock until it arrives.
  //
  // A bar that places an order is acknowledged at once, right behind the order, without waiting for
  // its answer: the socket's frames take effect in the order sent, so the order is placed at this
  // bar's time, and an ack without last_seq drains the order's own events too (they, its answer and
  // then the next bar arrive together). One round trip per order instead of two. The order's
  // answer still comes before the next bar, so the position is known when that bar is handled; only
  // a retry (RATE_LIMITED and the like) lands at a later bar's time. Such an ack also drains any
  // later event of the same batch, so it is sent only when nothing received waits in the inbox; it
  // suits a strategy like this one, with one instrument's candles of one timeframe (one candle per
  // batch). A strategy whose batches hold several candles should wait for the answer instead.
  const inbox: GatewayEvent[] = [];
  let handling = false;
  /** The highest seq an ack sent with an order drained: the order's events need no ack of their own. */
  let drainedThrough = 0;
  /** An ack went right behind a call: that call's answer tells how far it drained. */
  let ackBehindCall = false;
  /** The highest seq received: a resumed connection starts after it (the inbox is still handled). */
  let receivedSeq = 0;
  /** The seq of the last event taken from the inbox: acknowledged again on a resumed connection. */
  let handledSeq = 0;
  const handleInbox = async () => {
    handling = true;
    let processed: string[] = [];
    let lastSeq = 0;
    while (inbox.length > 0 && !finished) {
      const event = inbox.shift() as GatewayEvent;
      if (event.seq !== undefined) handledSeq = event.seq;
      if (event.seq !== undefined && event.seq > drainedThrough) {
        processed.push(`${event.type}:${event.seq}`);
        lastSeq = event.seq;
      }
      const orders = handle(event);
      if (!orders) continue;
      // (Only if the order went out: while the socket is down it waits for the reconnect.)
      if (ws.readyState === WebSocket.OPEN && gateway.calling && inbox.length === 0) {
        ws.send(eventAck(processed));
        ackBehindCall = true;
        processed = [];
      }
      await orders;
    }
    handling = false;
    if (processed.length > 0) send(eventAck(processed, lastSeq));
  };

  const received = (socket: WebSocket, data: WebSocket.RawData) => {
    let event: GatewayEvent; // each message is one event
    try {
      event = JSON.parse(data.toString());
    } catch (error) {
      return fail(error);
    }
    if (event.seq !== undefined) {
      // A resume sends only what came after receivedSeq; an older event would be a repeat.
      if (event.seq <= receivedSeq) return;
      receivedSeq = event.seq;
    }
    // A call's answer settles it at once (the event being handled awaits it); its own events came
    // first and wait in the inbox.
    gateway.answer(event);
    // The ack sent behind a call ran after it, and drained everything up to its answer (a retry's
    // answer drained nothing: its events and the next bar are acknowledged as usual).
    const answered = event.type === 'response' || (event.type === 'error' && event.details?.request_id);
    if (answered && ackBehindCall && event.seq !== undefined) {
      drainedThrough = event.seq;
      ackBehindCall = false;
    }
    if (event.type === 'response' || event.type === 'ping') {
      if (event.type === 'ping') socket.send('{"type":"pong"}');
      return;
    }
    inbox.push(event);
    if (!handling) handleInbox().catch(fail);
  };

  /** On a resumed connection: the calls in flight sent again, then what was handled acknowledged. */
  const resumed = async () => {
    // The answer that would tell how far an ack behind a call drained is lost with the old socket:
    // the events received from now on are acknowledged as usual.
    ackBehindCall = false;
    await gateway.resend();
    // The last ack may have been lost with the old socket, and a backtest holds its clock until one
    // arrives. It goes after the resent calls, so that a resent order still takes this bar's time.
    if (handledSeq > 0) send(eventAck([], handledSeq));
  };

  let attempts = 0; // reconnect attempts since a connection last opened
  const closed = (code: number) => {
    const resumable = !finished && !FINAL_CLOSE_CODES.has(code);
    if (resumable && attempts < MAX_ATTEMPTS) {
      // The order retries' backoff: 500 ms doubling up to 30 s, full jitter, at most 5 attempts.
      const delayMs = Math.random() * Math.min(30_000, 500 * 2 ** attempts++);
      console.warn(
        `the connection to the gateway was lost (close code ${code}); resuming after seq ${receivedSeq}`,
      );
      // (Without a seq received there is nothing to resume from: a plain connection then.)
      setTimeout(() => connect(receivedSeq > 0 ? receivedSeq : undefined), delayMs);
      return;
    }
    gateway.abandon(`the connection closed (code ${code})`);
    if (process.exitCode !== undefined) return; // a failed message already decided it
    if (finished || code === 1000) {
      process.exitCode = 0;
    } else {
      console.error(`the connection to the gateway was lost (close code ${code})`);
      process.exitCode = 1;
    }
  };

  const connect = (resumeFrom?: number) => {
    const url =
      resumeFrom === undefined
        ? config.wsUrl
        : `${config.wsUrl}${config.wsUrl.includes('?') ? '&' : '?'}resume_from_seq=${resumeFrom}`;
    const socket = new WebSocket(url, {
      headers: config.apiKey ? { 'X-API-Key': config.apiKey } : {},
      perMessageDeflate: false, // small JSON events: compressing them costs more than it saves
    });
    ws = socket;
    gateway.use(socket);
    socket.on('open', () => {
      attempts = 0;
      if (resumeFrom !== undefined) resumed().catch(fail);
    });
    socket.on('message', (data) => received(socket, data));
    // A failed upgrade is an error and then a close (1006): the close tries again.
    socket.on('error', (error) => console.error('WebSocket error:', error.message));
    socket.on('close', closed);
  };
  connect();
}

main();
