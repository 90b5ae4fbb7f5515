import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import { gatewayErrors, isGatewayErrorCode, parseOrderRequest, sameOrderRequest } from '@hindsight/gateway';
import { moneyAsNumbers } from './money-fields.ts';
import {
  emptyObservations,
  type InjectedFault,
  type Observations,
  type RequestSeen,
} from './observations.ts';
import type { CallPlan, HttpCall, ProxiedSocket, ProxyHooks } from './proxy.ts';

/**
 * The script of `hindsight check`: the faults it injects, at fixed points so that a rerun meets the
 * same ones, and what it records of the strategy's answers (`observations.ts`).
 *
 * - The first order the strategy places is answered 429 RATE_LIMITED with `retry_after_seconds`;
 *   the same order sent again before that many seconds is answered 429 again (a real limiter's window
 *   has not ended either) and counted; the first one after it goes through.
 * - The second order reaches the gateway with its quantity raised far beyond the account, so the
 *   gateway itself rejects it: a real 422 ORDER_REJECTED with a real REJECTED order behind it, which
 *   the spec's error table marks not retryable.
 * - After `pingAfterEvents` events the strategy is sent a `ping`; nothing more reaches it until it
 *   answers `pong` or `pongTimeoutMs` passes.
 * - After `dropAfterEvents` events (and once the ping and the 429 are settled) the socket is cut
 *   without a close frame, as a network failure would; the strategy should come back with
 *   `resume_from_seq`.
 * - Everything else passes through, watched: acks against what was delivered, money sent as JSON
 *   numbers, the key on every call, a refused request sent again, a client_order_id reused with
 *   another body.
 */
export interface ScriptTimings {
  pingAfterEvents: number;
  pongTimeoutMs: number;
  dropAfterEvents: number;
  retryAfterSeconds: number;
}

export const DEFAULT_TIMINGS: ScriptTimings = {
  pingAfterEvents: 20,
  pongTimeoutMs: 3_000,
  dropAfterEvents: 300,
  retryAfterSeconds: 2,
};

/** Timers are not exact: a retry this much before the window's end still counts as on time. */
export const RETRY_TOLERANCE_MS = 50;
/** The quantity the second order is given, so that the gateway rejects it (no account holds it). */
export const REJECTED_QUANTITY = '1000000000';
/** The capability's max_leverage, for parsing order bodies the way the gateway does. */
const RULES = { maxLeverage: '50' };

type Plan = { kind: 'forward' } | { kind: 'rewrite'; body: unknown } | (CallPlan & { kind: 'answer' });
type Answered = (status: number, body: unknown) => void;

interface SocketState {
  /** Requests in flight by request_id: how to record their answer, and any answer of the script's. */
  pending: Map<string, { answered: Answered; answer?: { status: number; body: unknown } }>;
  lastAck?: number;
}

export class CheckScript implements ProxyHooks {
  readonly seen: Observations = emptyObservations();
  private readonly started = performance.now();
  /** Distinct orders in the order first seen (their identities). */
  private readonly orders: string[] = [];
  private readonly firstBodies = new Map<string, unknown>();
  /** Requests answered with a non-retryable 4xx, by identity. */
  private readonly refusals = new Map<string, { status: number; code: string; at: number }>();
  private readonly sockets = new Map<ProxiedSocket, SocketState>();
  private pongTimer: NodeJS.Timeout | undefined;
  private waitingForPong: ProxiedSocket | undefined;
  private dropped = false;

  constructor(
    private readonly apiKey: string,
    private readonly timings: ScriptTimings = DEFAULT_TIMINGS,
  ) {
    if (!Number.isFinite(timings.dropAfterEvents)) this.seen.dropOff = true;
  }

  /** Milliseconds since the script started. */
  now(): number {
    return Math.round(performance.now() - this.started);
  }

  // --- HTTP ---

  httpCall(call: HttpCall): { plan: CallPlan; answered(status: number, rawBody: string): void } {
    const request: RequestSeen = { transport: 'http', method: call.method, path: call.path, at: this.now() };
    // Every /v1 call but the OpenAPI document needs the key (docs/protocol.md, Authentication).
    const open = call.path.startsWith('/v1/openapi.json');
    if (call.path.startsWith('/v1/') && !open && !this.authorized(call.headers)) {
      this.seen.unauthenticated.push({ what: `${call.method} ${call.path}`, at: request.at });
    }
    const body = call.rawBody.length > 0 ? parseJson(call.rawBody) : undefined;
    const { plan, answered } = this.request(request, call.rawBody, body);
    return {
      plan: plan.kind === 'rewrite' ? { kind: 'forward', rawBody: JSON.stringify(plan.body) } : plan,
      answered: (status, raw) => answered(status, parseJson(raw)),
    };
  }

  // --- the socket ---

  upgrade(path: string, headers: IncomingHttpHeaders): void {
    const at = this.now();
    this.seen.connections.push({ at, path });
    const query = new URL(path, 'http://proxy').searchParams;
    if (!this.authorized(headers) && query.get('api_key') !== this.apiKey) {
      this.seen.unauthenticated.push({
        what: `WebSocket upgrade ${path.replace(/api_key=[^&]*/, 'api_key=...')}`,
        at,
      });
    }
    const drop = this.seen.drop;
    if (drop && !drop.reconnect) {
      const resume = query.get('resume_from_seq');
      drop.reconnect = { at, ...(resume !== null && { resumeFromSeq: Number(resume) }) };
    }
  }

  opened(socket: ProxiedSocket): void {
    this.sockets.set(socket, { pending: new Map() });
  }

  closed(socket: ProxiedSocket): void {
    this.sockets.delete(socket);
    if (this.waitingForPong === socket) this.pongSettled();
  }

  clientFrame(socket: ProxiedSocket, text: string): string | undefined {
    const frame = parseJson(text);
    if (!isObject(frame)) return text;
    const state = this.sockets.get(socket);
    if (frame.type === 'pong') {
      const ping = this.seen.ping;
      if (ping && ping.pongAt === undefined) {
        ping.pongAt = this.now();
        this.pongSettled();
      }
      return text;
    }
    if (frame.type === 'event_ack') {
      this.ack(frame.last_seq, state);
      return text;
    }
    if (frame.type !== 'request' || !state || typeof frame.request_id !== 'string') return text;
    const request: RequestSeen = {
      transport: 'socket',
      method: String(frame.method),
      path: String(frame.path),
      at: this.now(),
    };
    const { plan, answered } = this.request(request, frame.body === undefined ? '' : text, frame.body);
    const entry: { answered: Answered; answer?: { status: number; body: unknown } } = { answered };
    state.pending.set(frame.request_id, entry);
    if (plan.kind === 'rewrite') return JSON.stringify({ ...frame, body: plan.body });
    if (plan.kind === 'answer') {
      // The gateway answers a harmless call in its place, so the answer keeps a real seq in order.
      entry.answer = { status: plan.status, body: plan.body };
      return JSON.stringify({
        type: 'request',
        request_id: frame.request_id,
        method: 'GET',
        path: '/v1/capabilities',
      });
    }
    return text;
  }

  serverFrame(socket: ProxiedSocket, text: string): string | undefined {
    if (!text.startsWith('{"type":"response"')) return text;
    const frame = parseJson(text);
    const entry = isObject(frame)
      ? this.sockets.get(socket)?.pending.get(String(frame.request_id))
      : undefined;
    if (!entry?.answer || !isObject(frame)) return text;
    return JSON.stringify({ ...frame, status: entry.answer.status, body: entry.answer.body });
  }

  delivered(socket: ProxiedSocket, text: string): void {
    const frame = parseJson(text);
    if (!isObject(frame)) return;
    if (frame.type === 'response') {
      const state = this.sockets.get(socket);
      const entry = state?.pending.get(String(frame.request_id));
      if (entry) {
        state?.pending.delete(String(frame.request_id));
        entry.answered(Number(frame.status), frame.body);
      }
    }
    if (typeof frame.seq !== 'number') return;
    if (frame.seq > this.seen.maxSeqDelivered) this.seen.maxSeqDelivered = frame.seq;
    if (frame.type === 'response' || frame.type === 'connection') return;
    this.seen.eventsDelivered++;
    this.afterEvent(socket);
  }

  /** Stops the pong wait (the run is over). */
  dispose(): void {
    clearTimeout(this.pongTimer);
  }

  // --- the scripted points ---

  private afterEvent(socket: ProxiedSocket): void {
    const { pingAfterEvents, pongTimeoutMs, dropAfterEvents } = this.timings;
    if (!this.seen.ping && this.seen.eventsDelivered >= pingAfterEvents) {
      this.seen.ping = { at: this.now(), afterEvents: this.seen.eventsDelivered, timeoutMs: pongTimeoutMs };
      socket.inject(JSON.stringify({ type: 'ping', timestamp: new Date().toISOString() }));
      socket.hold();
      this.waitingForPong = socket;
      this.pongTimer = setTimeout(() => this.pongSettled(), pongTimeoutMs);
      return;
    }
    if (
      !this.dropped &&
      this.seen.eventsDelivered >= dropAfterEvents &&
      this.waitingForPong === undefined &&
      !this.rateLimitWindowOpen()
    ) {
      this.dropped = true;
      this.seen.drop = { at: this.now(), maxSeqDelivered: this.seen.maxSeqDelivered };
      this.sockets.delete(socket);
      socket.drop();
    }
  }

  private pongSettled(): void {
    clearTimeout(this.pongTimer);
    const socket = this.waitingForPong;
    this.waitingForPong = undefined;
    socket?.release();
  }

  /** Whether the 429's retry may still come (the drop waits, so that the two do not mix). */
  private rateLimitWindowOpen(): boolean {
    const fault = this.seen.rateLimited;
    if (!fault || fault.repeats.length > 0) return false;
    if (fault.answeredAt === undefined) return true;
    return this.now() < fault.answeredAt + fault.retryAfterSeconds * 1000 + 1000;
  }

  private ack(lastSeq: unknown, state: SocketState | undefined): void {
    const at = this.now();
    this.seen.acks++;
    if (typeof lastSeq !== 'number') return;
    if (lastSeq > this.seen.maxSeqDelivered) {
      this.seen.acksAhead.push({ lastSeq, maxSeqDelivered: this.seen.maxSeqDelivered, at });
    }
    if (state?.lastAck !== undefined && lastSeq < state.lastAck) {
      this.seen.acksBackwards.push({ lastSeq, previous: state.lastAck, at });
    }
    if (state) state.lastAck = lastSeq;
    this.seen.lastAckSeq = lastSeq;
  }

  // --- requests, over either transport ---

  private request(request: RequestSeen, rawBody: string, body: unknown): { plan: Plan; answered: Answered } {
    if (rawBody.length > 0) this.seen.requestsWithBody++;
    const money = rawBody.length > 0 ? moneyAsNumbers(rawBody) : undefined;
    if (money) this.seen.moneyAsNumbers.push({ request, ...money });
    const path = request.path.split('?')[0];
    const isOrder = request.method === 'POST' && path === '/v1/orders' && isObject(body);
    const identity = `${request.method} ${request.path} ${isOrder ? orderKey(body) : stableJson(body)}`;
    if (isOrder) this.checkClientOrderId(body, rawBody, request.at);

    const refused = this.refusals.get(identity);
    if (refused && request.method !== 'GET') {
      this.seen.retriedRefusals.push({
        request,
        status: refused.status,
        code: refused.code,
        firstAt: refused.at,
      });
    }
    let plan: Plan = { kind: 'forward' };
    let fault: InjectedFault | undefined;
    if (isOrder) {
      const key = orderKey(body);
      if (!this.orders.includes(key)) this.orders.push(key);
      const index = this.orders.indexOf(key);
      if (index === 0) ({ plan, fault } = this.rateLimit(key, request));
      if (index === 1) ({ plan, fault } = this.reject(key, request, body as Record<string, unknown>));
    }
    const answered: Answered = (status, answer) => {
      const at = this.now();
      const code = isObject(answer) && typeof answer.code === 'string' ? answer.code : '';
      if (fault && fault.answeredAt === undefined) Object.assign(fault, { answeredAt: at, status, code });
      if (fault === this.seen.rejected && fault !== undefined) return;
      if (refusable(status, code, answer) && !this.refusals.has(identity)) {
        this.refusals.set(identity, { status, code, at });
      }
    };
    return { plan, answered };
  }

  private rateLimit(key: string, request: RequestSeen): { plan: Plan; fault: InjectedFault } {
    const seconds = this.timings.retryAfterSeconds;
    let fault = this.seen.rateLimited;
    if (!fault) {
      fault = { key, request, retryAfterSeconds: seconds, early: 0, repeats: [] };
      this.seen.rateLimited = fault;
      return { plan: rateLimited(seconds, Date.now() + seconds * 1000), fault };
    }
    fault.repeats.push(request);
    const opensAt =
      fault.answeredAt === undefined ? Number.POSITIVE_INFINITY : fault.answeredAt + seconds * 1000;
    if (request.at >= opensAt - RETRY_TOLERANCE_MS || fault.repeats.length > fault.early + 1) {
      return { plan: { kind: 'forward' }, fault };
    }
    fault.early++;
    const left = Math.max(1, Math.ceil((opensAt - request.at) / 1000));
    return { plan: rateLimited(left, Date.now() + (opensAt - request.at)), fault };
  }

  private reject(
    key: string,
    request: RequestSeen,
    body: Record<string, unknown>,
  ): { plan: Plan; fault: InjectedFault } {
    const plan: Plan = { kind: 'rewrite', body: { ...body, quantity: REJECTED_QUANTITY } };
    if (!this.seen.rejected) this.seen.rejected = { key, request, repeats: [] };
    else this.seen.rejected.repeats.push(request);
    return { plan, fault: this.seen.rejected };
  }

  /** Decision 19: one client_order_id names one request; another body under it is a fault. */
  private checkClientOrderId(body: unknown, rawBody: string, at: number): void {
    const id = isObject(body) ? body.client_order_id : undefined;
    if (typeof id !== 'string') return;
    const first = this.firstBodies.get(id);
    if (first === undefined) {
      this.firstBodies.set(id, body);
      return;
    }
    if (!sameBody(first, body)) {
      this.seen.clientOrderIdReuse.push({
        clientOrderId: id,
        first: JSON.stringify(first),
        second: rawBody,
        at,
      });
    }
  }

  private authorized(headers: IncomingHttpHeaders): boolean {
    return headers['x-api-key'] === this.apiKey || headers.authorization === `Bearer ${this.apiKey}`;
  }
}

function rateLimited(seconds: number, resetAt: number): Plan {
  return {
    kind: 'answer',
    status: 429,
    body: {
      code: 'RATE_LIMITED',
      message: `Rate limit reached (scripted by hindsight check); retry after ${seconds} s.`,
      details: { retry_after_seconds: seconds, reset_at: new Date(resetAt).toISOString() },
    },
  };
}

/** A 4xx the spec's error table marks not retryable (401 has a check of its own, 429 is retryable). */
function refusable(status: number, code: string, answer: unknown): boolean {
  if (status < 400 || status >= 500 || status === 401 || status === 429) return false;
  if (isGatewayErrorCode(code) && gatewayErrors[code].retryable) return false;
  if (code === 'ORDER_REJECTED') {
    // Transient only when self-trade or wash appears in the message or a passthrough reject_code.
    const details = isObject(answer) && isObject(answer.details) ? answer.details : {};
    const text = `${isObject(answer) ? String(answer.message ?? '') : ''} ${String(details.reject_code ?? '')}`;
    return !/self-trade|wash/i.test(text);
  }
  return true;
}

/** Two order bodies compared as the gateway compares them (decimals by value, defaults spelled out). */
function sameBody(a: unknown, b: unknown): boolean {
  const first = parseOrderRequest(a, RULES);
  const second = parseOrderRequest(b, RULES);
  if (first.ok && second.ok) return sameOrderRequest(first.value, second.value);
  return stableJson(a) === stableJson(b);
}

const orderKey = (body: unknown): string =>
  isObject(body) && typeof body.client_order_id === 'string'
    ? `client_order_id ${body.client_order_id}`
    : `body ${stableJson(body)}`;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON with object keys sorted, so that key order does not make two bodies differ. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (isObject(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson(value[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}
