/**
 * What `hindsight check` saw of one run, as plain data: the script (`script.ts`) writes it while the
 * strategy runs, `run-check.ts` adds how the run and the process ended, and `checks.ts` judges it.
 * Times are milliseconds since the checker started the strategy.
 */

export interface RequestSeen {
  transport: 'http' | 'socket';
  method: string;
  path: string;
  at: number;
}

/** An order the script answered with a fault, and what the strategy did about it. */
export interface InjectedFault {
  /** The order's identity: its client_order_id, else its body. */
  key: string;
  request: RequestSeen;
  /** When the strategy was sent the faulty answer (undefined until it was). */
  answeredAt?: number;
  status?: number;
  code?: string;
  /** The same request sent again, in order. */
  repeats: RequestSeen[];
}

export interface RateLimitFault extends InjectedFault {
  retryAfterSeconds: number;
  /** Repeats answered 429 again, because they came before the window ended. */
  early: number;
}

export interface Observations {
  /** Provider events the strategy was sent (frames with a seq, but its own CONNECTED and responses). */
  eventsDelivered: number;
  /** The highest seq the strategy was sent, on any connection. */
  maxSeqDelivered: number;
  acks: number;
  lastAckSeq?: number;
  acksAhead: { lastSeq: number; maxSeqDelivered: number; at: number }[];
  acksBackwards: { lastSeq: number; previous: number; at: number }[];
  ping?: { at: number; afterEvents: number; pongAt?: number; timeoutMs: number };
  unauthenticated: { what: string; at: number }[];
  /** REST calls with a body (orders, modifications, closes), over either transport. */
  requestsWithBody: number;
  moneyAsNumbers: { request: RequestSeen; fields: string[]; excerpt: string }[];
  rateLimited?: RateLimitFault;
  rejected?: InjectedFault;
  /** Non-GET requests the gateway answered with a non-retryable 4xx and that came again. */
  retriedRefusals: { request: RequestSeen; status: number; code: string; firstAt: number }[];
  clientOrderIdReuse: { clientOrderId: string; first: string; second: string; at: number }[];
  /** `--no-drop`: the socket is never cut. */
  dropOff?: boolean;
  drop?: {
    at: number;
    maxSeqDelivered: number;
    reconnect?: { at: number; resumeFromSeq?: number };
  };
  connections: { at: number; path: string }[];
  /** When the run ended (the backtest, the process or the time limit, whichever came first). */
  endedAt?: number;
  /** How the backtest ended. */
  run?: { kind: 'completed' } | { kind: 'failed'; message: string } | { kind: 'unfinished'; why: string };
  exit?: {
    code: number | null;
    signal: string | null;
    /** Still running 10 s after the end, so stopped (decision 19b). */
    stoppedAfterEnd: boolean;
    /** Stopped by the checker at the time limit. */
    stoppedAtLimit: boolean;
    beforeEnd: boolean;
  };
  /** The last lines the strategy wrote (stdout and stderr). */
  outputTail: string[];
}

export const emptyObservations = (): Observations => ({
  eventsDelivered: 0,
  maxSeqDelivered: 0,
  acks: 0,
  acksAhead: [],
  acksBackwards: [],
  unauthenticated: [],
  requestsWithBody: 0,
  moneyAsNumbers: [],
  retriedRefusals: [],
  clientOrderIdReuse: [],
  connections: [],
  outputTail: [],
});
