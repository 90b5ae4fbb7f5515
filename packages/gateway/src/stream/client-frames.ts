import { isUtf8 } from 'node:buffer';

/**
 * Client frames of `/v1/ws` (trading-gateway.md: Heartbeat, Acknowledgment; decision 19a;
 * docs/gateway.md, "REST over the socket"): `{"type":"pong"}`,
 * `{"type":"event_ack","correlation_id","events_processed","timestamp","last_seq"}` and
 * `{"type":"request","request_id","method","path","body"}` (a REST call made over the socket,
 * `socket-requests.ts`). Every `event_ack` field but `type` is optional; when present it must have
 * the spec's type. Anything else is refused with the reason, which the connection answers with
 * INVALID_MESSAGE.
 *
 * A backtest reads one ack per event, so acks take a fast path: a frame that starts with
 * `{"type":"event_ack"` and continues with the four fields, each at most once, in any order, with
 * plain values (ASCII strings without escapes, integers of at most 15 digits) is read straight from
 * its bytes. Any other frame (escapes, non-ASCII, other keys, numbers in another notation, an error)
 * goes through `JSON.parse` and the strict checks below, so both paths accept and refuse the same
 * frames.
 */
export type RequestMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface RequestFrame {
  type: 'request';
  request_id: string;
  method: RequestMethod;
  /** A REST path under /v1/, with its query string if any. */
  path: string;
  /** The JSON body, when the call has one. */
  body?: unknown;
}

export type ClientFrame = { type: 'pong' } | { type: 'event_ack'; last_seq?: number } | RequestFrame;

const PONG: ClientFrame = { type: 'pong' };
const ACK_WITHOUT_SEQ: ClientFrame = { type: 'event_ack' };
const METHODS: ReadonlySet<string> = new Set<RequestMethod>(['GET', 'POST', 'PATCH', 'PUT', 'DELETE']);
const REQUEST_FIELDS: ReadonlySet<string> = new Set(['type', 'request_id', 'method', 'path', 'body']);
const MAX_REQUEST_ID = 128;
const MAX_PATH = 2048;

/** The request frame's fields checked, or the reason it is not one. */
function parseRequest(f: Record<string, unknown>): RequestFrame | string {
  const unknown = Object.keys(f).find((key) => !REQUEST_FIELDS.has(key));
  if (unknown !== undefined)
    return `request has no field ${JSON.stringify(unknown)}; its fields are request_id, method, path and body`;
  const id = f.request_id;
  if (typeof id !== 'string' || id.length === 0 || id.length > MAX_REQUEST_ID)
    return `request.request_id must be a string of 1 to ${MAX_REQUEST_ID} characters (it names the response)`;
  if (typeof f.method !== 'string' || !METHODS.has(f.method))
    return 'request.method must be one of GET, POST, PATCH, PUT, DELETE';
  const path = f.path;
  if (typeof path !== 'string' || !path.startsWith('/v1/') || path.length > MAX_PATH)
    return `request.path must be a gateway REST path starting with /v1/, at most ${MAX_PATH} characters`;
  if (/^\/v1\/ws\/?(\?|#|$)/.test(path)) return 'request.path cannot be /v1/ws: the socket is already open';
  if (f.body !== undefined && f.method === 'GET') return 'request.body is not allowed on a GET request';
  const frame: RequestFrame = { type: 'request', request_id: id, method: f.method as RequestMethod, path };
  if (f.body !== undefined) frame.body = f.body;
  return frame;
}

/** Parses a client frame; a string is the reason it is not valid. */
export function parseClientFrame(text: string): ClientFrame | string {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return 'the frame is not valid JSON';
  }
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame))
    return 'the frame must be a JSON object';
  const f = frame as Record<string, unknown>;
  if (f.type === 'pong') return PONG;
  if (f.type === 'request') return parseRequest(f);
  if (f.type !== 'event_ack') {
    return `unknown message type ${JSON.stringify(f.type ?? null)}; the gateway accepts "pong", "event_ack" and "request"`;
  }
  if (f.correlation_id !== undefined && typeof f.correlation_id !== 'string')
    return 'event_ack.correlation_id must be a string';
  if (
    f.events_processed !== undefined &&
    (!Array.isArray(f.events_processed) || !f.events_processed.every((e) => typeof e === 'string'))
  )
    return 'event_ack.events_processed must be an array of strings';
  if (f.timestamp !== undefined && !Number.isSafeInteger(f.timestamp))
    return 'event_ack.timestamp must be an integer (Unix milliseconds)';
  if (f.last_seq === undefined || f.last_seq === null) return ACK_WITHOUT_SEQ;
  if (!Number.isSafeInteger(f.last_seq) || (f.last_seq as number) < 0)
    return 'event_ack.last_seq must be a non-negative integer (the seq of the last event processed)';
  return { type: 'event_ack', last_seq: f.last_seq as number };
}

/** The `request_id` of a refused frame, when it has a readable one (so the error can name it). */
export function requestIdOf(text: string): string | undefined {
  try {
    const id = (JSON.parse(text) as { request_id?: unknown } | null)?.request_id;
    return typeof id === 'string' && id.length <= MAX_REQUEST_ID ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Parses a text frame's bytes (the server does not have `ws` validate UTF-8; this does). */
export function parseClientBytes(data: Buffer): ClientFrame | string {
  const fast = readAck(data);
  if (fast === NO_SEQ) return ACK_WITHOUT_SEQ;
  if (fast >= 0) return { type: 'event_ack', last_seq: fast };
  if (!isUtf8(data)) return 'the frame is not valid UTF-8 text';
  return parseClientFrame(data.toString());
}

// The fast path's results: a last_seq (>= 0), an ack without one, or "take the strict path".
const NO_SEQ = -1;
const STRICT = -2;

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

const ACK_PREFIX = Buffer.from('{"type":"event_ack"');
const KEYS = ['correlation_id', 'events_processed', 'timestamp', 'last_seq'].map((k) => Buffer.from(k));
// Indexes into KEYS (the timestamp, 2, is read like last_seq but not kept).
const CORRELATION_ID = 0;
const EVENTS_PROCESSED = 1;
const LAST_SEQ = 3;
/** Integers of up to 15 digits are always safe integers. */
const MAX_DIGITS = 15;

/** Reads the common `event_ack` frame without allocating; STRICT when it is anything else. */
function readAck(data: Buffer): number {
  const end = data.length;
  if (end <= ACK_PREFIX.length || data.compare(ACK_PREFIX, 0, ACK_PREFIX.length, 0, ACK_PREFIX.length) !== 0)
    return STRICT;
  let at = ACK_PREFIX.length;
  let seen = 0;
  let lastSeq = NO_SEQ;
  for (;;) {
    at = skipSpace(data, at);
    if (at >= end) return STRICT;
    if (data[at] === CLOSE_BRACE) return skipSpace(data, at + 1) === end ? lastSeq : STRICT;
    if (data[at] !== COMMA) return STRICT;
    at = skipSpace(data, at + 1);
    const key = keyAt(data, at);
    if (key < 0 || seen & (1 << key)) return STRICT;
    seen |= 1 << key;
    at = skipSpace(data, at + (KEYS[key] as Buffer).length + 2);
    if (data[at] !== COLON) return STRICT;
    at = skipSpace(data, at + 1);
    if (key === CORRELATION_ID) {
      at = skipString(data, at);
    } else if (key === EVENTS_PROCESSED) {
      at = skipStringArray(data, at);
    } else {
      const negative = data[at] === MINUS;
      // A negative timestamp is valid; a negative last_seq is an error the strict path words.
      if (negative && key === LAST_SEQ) return STRICT;
      const digitsFrom = negative ? at + 1 : at;
      const digitsTo = skipDigits(data, digitsFrom);
      const count = digitsTo - digitsFrom;
      if (count === 0 || count > MAX_DIGITS || (count > 1 && data[digitsFrom] === ZERO)) return STRICT;
      if (key === LAST_SEQ) lastSeq = readDigits(data, digitsFrom, digitsTo);
      at = digitsTo;
      // 1.0, 1e3 and the like are left to JSON.parse.
      const next = data[at];
      if (next !== COMMA && next !== CLOSE_BRACE && !isSpace(next)) return STRICT;
    }
    if (at < 0) return STRICT;
  }
}

function isSpace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

function skipSpace(data: Buffer, at: number): number {
  while (at < data.length && isSpace(data[at])) at++;
  return at;
}

/** Which field name (with its quotes) starts at `at`, or -1. */
function keyAt(data: Buffer, at: number): number {
  if (data[at] !== QUOTE) return -1;
  for (let k = 0; k < KEYS.length; k++) {
    const key = KEYS[k] as Buffer;
    const close = at + 1 + key.length;
    if (close < data.length && data[close] === QUOTE && data.compare(key, 0, key.length, at + 1, close) === 0)
      return k;
  }
  return -1;
}

/** Past a string of printable ASCII without escapes; -1 for anything else. */
function skipString(data: Buffer, at: number): number {
  if (data[at] !== QUOTE) return -1;
  for (let i = at + 1; i < data.length; i++) {
    const byte = data[i] as number;
    if (byte === QUOTE) return i + 1;
    if (byte === BACKSLASH || byte < 0x20 || byte > 0x7e) return -1;
  }
  return -1;
}

function skipStringArray(data: Buffer, at: number): number {
  if (data[at] !== OPEN_BRACKET) return -1;
  at = skipSpace(data, at + 1);
  if (data[at] === CLOSE_BRACKET) return at + 1;
  for (;;) {
    at = skipString(data, at);
    if (at < 0) return -1;
    at = skipSpace(data, at);
    if (data[at] === CLOSE_BRACKET) return at + 1;
    if (data[at] !== COMMA) return -1;
    at = skipSpace(data, at + 1);
  }
}

function skipDigits(data: Buffer, at: number): number {
  while (at < data.length && (data[at] as number) >= ZERO && (data[at] as number) <= NINE) at++;
  return at;
}

function readDigits(data: Buffer, from: number, to: number): number {
  let value = 0;
  for (let i = from; i < to; i++) value = value * 10 + ((data[i] as number) - ZERO);
  return value;
}
