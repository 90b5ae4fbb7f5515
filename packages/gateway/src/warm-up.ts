import { randomBytes } from 'node:crypto';
import http from 'node:http';
import WebSocket from 'ws';
import type { GatewaySettings } from './settings.ts';

/**
 * A backtest gateway's JIT warm-up, run while it waits for its strategy: a throwaway copy of the
 * gateway (its own provider, engine, stream, server and port; nothing shared but the read-only bar
 * store) replays the start of the same scenario to a client inside this process that acknowledges
 * every bar and places orders now and then, over the socket and over HTTP, as strategies do.
 *
 * Why: V8 compiles the gateway's hot paths (the engine's step, the event text, the socket's frames,
 * the order routes) only once they have run for a while, and until then a bar costs ten times what
 * it costs later: in a fresh gateway process the SMA example spent 310-350 ms on its first 1,310
 * bars and ~40 ms on each later 1 % (docs/gateway.md, "Where the run goes"). The strategy needs
 * a few hundred milliseconds to start and connect anyway; the gateway compiles meanwhile. Engines
 * of trading systems are warmed up in the same way before the session opens.
 *
 * The warm-up ends at the first sign of the real strategy (any request or upgrade on the real
 * gateway's server), after `maxBars` bars, or after `maxMs`, whichever comes first, and the
 * throwaway gateway is closed. It changes no result: the replay the strategy gets is built afresh,
 * and a test compares result files with and without it.
 */
export interface WarmUpLimits {
  /** Candles the client receives at most, of every timeframe (default 20,000). */
  maxBars: number;
  /** Wall-clock budget in milliseconds (default 3,000). */
  maxMs: number;
  /** An order every this many candles (default 25). */
  orderEvery: number;
}

export const DEFAULT_WARM_UP_LIMITS: WarmUpLimits = { maxBars: 20_000, maxMs: 3_000, orderEvery: 25 };

/** What a warm-up did (for the log and the tests). */
export interface WarmUpReport {
  bars: number;
  orders: number;
  ms: number;
  /**
   * Why it ended: something reached the real gateway (or it closed), a limit was reached, the
   * throwaway replay ran out of bars, or the copy failed.
   */
  ended: 'interrupted' | 'bars' | 'time' | 'replayed' | 'failed';
  /** The throwaway copy's address (closed by the time the report is made). */
  url: string;
}

/** The throwaway gateway: a running copy with its own provider, started by the caller. */
export interface ThrowawayGateway {
  url: string;
  close(): Promise<void>;
}

/**
 * Settings of the throwaway copy: loopback, any free port, its own key, no logs, no stall limit, and
 * no warm-up of its own.
 */
export function warmUpSettings(settings: GatewaySettings): GatewaySettings {
  return {
    ...settings,
    host: '127.0.0.1',
    port: 0,
    apiKey: randomBytes(18).toString('base64url'),
    enableSwagger: false,
    log: { defaultLevel: 'off', targets: new Map() },
    resultsDir: undefined,
    stallTimeoutMs: 0,
    warmUp: false,
  };
}

/**
 * The warm-up's orders, in a cycle that opens, reverses and closes long and short positions (the
 * fills of a reversal close one position and open another: code an alternation of buys and sells
 * never runs). Quantities small enough for any instrument's margin.
 */
const ORDER_CYCLE: readonly { side: 'BUY' | 'SELL'; quantity: string }[] = [
  { side: 'BUY', quantity: '0.001' },
  { side: 'SELL', quantity: '0.002' },
  { side: 'BUY', quantity: '0.002' },
  { side: 'SELL', quantity: '0.001' },
  { side: 'SELL', quantity: '0.001' },
  { side: 'BUY', quantity: '0.001' },
];

/** Runs the warm-up against the throwaway copy, then closes it (whatever happened). */
export async function warmUp(
  throwaway: ThrowawayGateway,
  apiKey: string,
  symbol: string,
  realStrategyArrived: AbortSignal,
  limits: WarmUpLimits = DEFAULT_WARM_UP_LIMITS,
): Promise<WarmUpReport> {
  try {
    return await replayToCopy(throwaway, apiKey, symbol, realStrategyArrived, limits);
  } finally {
    await throwaway.close();
  }
}

async function replayToCopy(
  throwaway: ThrowawayGateway,
  apiKey: string,
  symbol: string,
  realStrategyArrived: AbortSignal,
  limits: WarmUpLimits,
): Promise<WarmUpReport> {
  const started = performance.now();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ws = new WebSocket(`${throwaway.url.replace(/^http/, 'ws')}/v1/ws`, {
    headers: { 'X-API-Key': apiKey },
    perMessageDeflate: false,
  });
  let bars = 0;
  let orders = 0;
  let lastSeq = 0;
  let ackedSeq = 0;
  let orderDue = false;
  /** The order whose answer is awaited (a socket request id, or "http"). */
  let awaiting: string | undefined;
  let deciding = false;

  let stopped = false;
  let settle!: (why: WarmUpReport['ended']) => void;
  const ended = new Promise<WarmUpReport['ended']>((resolve) => {
    settle = resolve;
  });
  const stop = (why: WarmUpReport['ended']) => {
    stopped = true;
    settle(why);
  };
  const interrupt = () => stop('interrupted');
  const outOfTime = setTimeout(() => stop('time'), limits.maxMs);
  realStrategyArrived.addEventListener('abort', interrupt, { once: true });
  if (realStrategyArrived.aborted) interrupt();

  const ackFrame = (through?: number) =>
    `{"type":"event_ack","correlation_id":"warm-up-${orders}-${lastSeq}","events_processed":[],"timestamp":${Date.now()}${through === undefined ? '' : `,"last_seq":${through}`}}`;
  const order = () => {
    const { side, quantity } = ORDER_CYCLE[orders % ORDER_CYCLE.length] as (typeof ORDER_CYCLE)[number];
    const body = JSON.stringify({
      symbol,
      side,
      quantity,
      order_type: 'MARKET',
      client_order_id: `warm-up-${orders}`,
    });
    orders++;
    // In turn as strategies send them: over the socket with the ack right behind (the TypeScript
    // example), over the socket awaiting the answer, and over HTTP (the Python example).
    const way = orders % 3;
    if (way === 0) {
      awaiting = 'http';
      const request = http.request(
        `${throwaway.url}/v1/orders`,
        { method: 'POST', agent, headers: { 'content-type': 'application/json', 'x-api-key': apiKey } },
        (response) => {
          response.resume();
          response.on('end', () => {
            awaiting = undefined;
            decide();
          });
        },
      );
      request.on('error', () => stop('failed'));
      request.end(body);
      return;
    }
    awaiting = `warm-up-${orders}`;
    ws.send(
      `{"type":"request","request_id":"${awaiting}","method":"POST","path":"/v1/orders","body":${body}}`,
    );
    if (way === 1) ws.send(ackFrame());
  };
  // Once the frames of one read are handled (as a strategy acks once its inbox is empty): place
  // the order that is due, or acknowledge every event seen.
  const decide = () => {
    deciding = false;
    if (stopped || awaiting !== undefined) return;
    if (orderDue) {
      orderDue = false;
      order();
    } else if (lastSeq > ackedSeq) {
      ackedSeq = lastSeq;
      ws.send(ackFrame(lastSeq));
    }
  };
  ws.on('message', (data) => {
    if (stopped) return;
    let event: { type: string; seq?: number; request_id?: string; details?: { request_id?: string } };
    try {
      event = JSON.parse(data.toString());
    } catch {
      return stop('failed');
    }
    if (event.type === 'ping') {
      ws.send('{"type":"pong"}');
      return;
    }
    if (event.seq !== undefined) lastSeq = event.seq;
    const answer = event.type === 'response' ? event.request_id : event.details?.request_id;
    if (answer !== undefined && answer === awaiting) awaiting = undefined;
    if (event.type === 'candle') {
      if (++bars >= limits.maxBars) return stop('bars');
      if (bars % limits.orderEvery === 0) orderDue = true;
    }
    if (!deciding) {
      deciding = true;
      setImmediate(decide);
    }
  });
  ws.on('close', () => stop('replayed'));
  ws.on('error', () => stop('failed'));

  const why = await ended;
  clearTimeout(outOfTime);
  realStrategyArrived.removeEventListener('abort', interrupt);
  ws.terminate();
  agent.destroy();
  return { bars, orders, ms: Math.round(performance.now() - started), ended: why, url: throwaway.url };
}
