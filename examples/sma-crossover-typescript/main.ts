/**
 * SMA(10)/SMA(30) crossover on the 1-minute candles of one instrument.
 *
 * Golden cross (the fast SMA crosses above the slow one): go long. Death cross (it crosses below): go
 * flat, then short. Orders are MARKET orders of ORDER_QUANTITY (default "0.01") sent to the trading
 * gateway, whose address and key the platform passes in the environment:
 *
 *   PROXY_REST_URL            http://host:port/v1
 *   PROXY_WS_URL              ws://host:port/v1/ws
 *   PLATFORM_GATEWAY_API_KEY  sent as X-API-Key on REST calls and on the WebSocket upgrade
 *   PLATFORM_SUBSCRIPTIONS    JSON array of {instrument, events}; the first one with candle_1m is traded
 *
 * Runs on Node 20 (global fetch) with the `ws` package.
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
// 60 s in all, 10 s per request; only these codes (and network failures) are worth retrying.
const RETRYABLE_CODES = new Set(['RATE_LIMITED', 'PROVIDER_UNAVAILABLE', 'PROVIDER_ERROR', 'NETWORK_ERROR']);
const MAX_ATTEMPTS = 5;
const RETRY_BUDGET_MS = 60_000;
const REQUEST_TIMEOUT_MS = 10_000;

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
}

interface OrderHandle {
  id: string;
  status: string;
  client_order_id: string | null;
}

interface Config {
  restUrl: string;
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
  const restUrl = env.PROXY_REST_URL || fail('PROXY_REST_URL is not set');
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
  return { restUrl: restUrl.replace(/\/+$/, ''), wsUrl, apiKey, symbol, quantity };
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

/** The REST side of the trading gateway; this strategy only submits orders. */
class Gateway {
  private readonly headers: Record<string, string>;

  constructor(
    private readonly restUrl: string,
    apiKey: string | undefined,
  ) {
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (apiKey) this.headers['x-api-key'] = apiKey;
  }

  private async post<T>(path: string, body: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(this.restUrl + path, {
        method: 'POST',
        headers: this.headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
    } catch (error) {
      throw new GatewayError(undefined, 'NETWORK_ERROR', String(error));
    }
    const payload = await response.json().catch(() => ({}));
    if (!response.ok) {
      const { code, message, details } = payload as { code?: string; message?: string; details?: object };
      const status = response.status;
      throw new GatewayError(status, code ?? `HTTP_${status}`, message ?? response.statusText, details);
    }
    return payload as T;
  }

  /**
   * POST /orders, retrying transient failures. Every retry reuses the client_order_id, so a request
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
        return await this.post<OrderHandle>('/orders', order);
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

/** Keeps both SMAs and a flat/long/short state, and turns crossovers into orders. */
class SmaCrossover {
  private readonly closes: number[] = [];
  private position: Position = 'flat';
  /** +1 fast above slow, -1 below, 0 not known yet. */
  private sideOfSlow = 0;

  constructor(
    private readonly gateway: Gateway,
    private readonly symbol: string,
    private readonly quantity: string,
  ) {}

  async onBar(bar: Bar): Promise<void> {
    if (bar.symbol !== this.symbol || bar.timeframe !== TIMEFRAME) return;
    this.closes.push(Number(bar.close));
    if (this.closes.length > SLOW_PERIOD) this.closes.shift();
    if (this.closes.length < SLOW_PERIOD) return;
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
    const fast = mean(this.closes.slice(-FAST_PERIOD));
    const slow = mean(this.closes);
    const side = Math.sign(fast - slow);
    if (side === 0) return; // touching is not crossing
    const crossed = this.sideOfSlow !== 0 && side !== this.sideOfSlow;
    this.sideOfSlow = side;
    if (!crossed) return;
    console.log(`${side > 0 ? 'golden' : 'death'} cross at ${bar.timestamp}: fast ${fast}, slow ${slow}`);
    await this.moveTo(side > 0 ? 'long' : 'short');
  }

  /** One order per step: a reversal first closes the position, then opens the new one. */
  private async moveTo(target: Position): Promise<void> {
    while (this.position !== target) {
      const step: Position = this.position === 'flat' ? target : 'flat';
      const buying = step === 'long' || (step === 'flat' && this.position === 'short');
      const side: Side = buying ? 'BUY' : 'SELL';
      let handle: OrderHandle;
      try {
        handle = await this.gateway.submitMarketOrder(this.symbol, side, this.quantity);
      } catch (error) {
        console.error(`${side} ${this.quantity} ${this.symbol} failed: ${error}; staying ${this.position}`);
        return;
      }
      console.log(`${side} ${this.quantity} ${this.symbol}: ${step} (order ${handle.id})`);
      this.position = step;
    }
  }
}

function eventAck(processed: string[], lastSeq: number): string {
  return JSON.stringify({
    type: 'event_ack',
    correlation_id: randomUUID(),
    events_processed: processed,
    timestamp: Date.now(),
    last_seq: lastSeq,
  });
}

function main(): void {
  const config = readConfig(process.env);
  const strategy = new SmaCrossover(
    new Gateway(config.restUrl, config.apiKey),
    config.symbol,
    config.quantity,
  );
  console.log(
    `trading ${config.symbol} on ${TIMEFRAME} candles, SMA(${FAST_PERIOD})/SMA(${SLOW_PERIOD}), ${config.quantity} per order`,
  );

  const ws = new WebSocket(config.wsUrl, {
    headers: config.apiKey ? { 'X-API-Key': config.apiKey } : {},
  });
  let finished = false;

  /** Handles one message (one event, or a JSON array of them) and acknowledges what it carried. */
  const handle = async (data: string): Promise<void> => {
    const payload = JSON.parse(data) as GatewayEvent | GatewayEvent[];
    const processed: string[] = [];
    let lastSeq = 0;
    for (const event of Array.isArray(payload) ? payload : [payload]) {
      if (event.type === 'ping') {
        ws.send(JSON.stringify({ type: 'pong' }));
        continue;
      }
      if (event.type === 'connection' && event.event === 'DISCONNECTING') {
        console.log('the gateway is disconnecting: the run is over');
        finished = true;
        ws.close(1000);
        return;
      }
      if (event.type === 'candle' && event.bar) {
        await strategy.onBar(event.bar);
      } else if (
        event.type === 'order' &&
        (event.event === 'ORDER_REJECTED' || event.event === 'ORDER_EXPIRED')
      ) {
        console.warn(`order ${event.order?.id}: ${event.event} ${event.order?.reject_reason ?? ''}`);
      } else if (event.type === 'error') {
        console.warn(`gateway error ${event.code}: ${event.message}`);
      }
      if (event.seq !== undefined) {
        processed.push(`${event.type}:${event.seq}`);
        lastSeq = event.seq;
      }
    }
    // A backtest holds its simulated clock until this acknowledgment arrives.
    if (processed.length > 0 && ws.readyState === WebSocket.OPEN) ws.send(eventAck(processed, lastSeq));
  };

  // Messages are handled strictly in order, each after the previous one (and its orders) is done.
  let queue = Promise.resolve();
  ws.on('message', (data) => {
    queue = queue
      .then(() => (finished ? undefined : handle(data.toString())))
      .catch((error) => {
        console.error('failed to handle a gateway message:', error);
        finished = true;
        process.exitCode = 1;
        ws.close(1011);
      });
  });
  ws.on('error', (error) => console.error('WebSocket error:', error.message));
  ws.on('close', (code) => {
    void queue.then(() => {
      if (process.exitCode !== undefined) return; // a failed message already decided it
      if (finished || code === 1000) {
        process.exitCode = 0;
      } else {
        console.error(`the connection to the gateway was lost (close code ${code})`);
        process.exitCode = 1;
      }
    });
  });
}

main();
