import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Database faults that pass: the server restarting or failing over, a connection dropped or refused.
 * `isTransientDatabaseError` tells them from faults a retry cannot mend (constraint violations, bad
 * SQL); `retryTransient` retries an operation through them with capped, jittered backoff until a
 * deadline, which the caller chooses (a worker: the lease of the run the write is for).
 */

/** Socket errors of a server that is restarting, moving or briefly unreachable. */
const TRANSIENT_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a connection the server ended or would not take: admin_shutdown (57P01, a restart or
 * a terminated backend), crash_shutdown (57P02), cannot_connect_now (57P03, starting up or in
 * recovery), idle_session_timeout (57P05); class 08 is connection_exception.
 */
const TRANSIENT_SQLSTATES = new Set(['57P01', '57P02', '57P03', '57P05']);

/**
 * node-postgres's own words for a connection that died or could not be had in time. A client closed
 * on purpose ("Client was closed") is not among them: that is a shutdown, not an outage.
 */
const TRANSIENT_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Client has encountered a connection error and is not queryable/,
];

/**
 * Whether `error` is a connection fault that a later attempt may get past. Looks through the
 * wrappers that carry the driver's error (Drizzle's `cause`, Node's AggregateError of one attempt
 * per address).
 */
export function isTransientDatabaseError(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== 'object' || depth > 8) return false;
  const { code, message, cause, errors } = error as {
    code?: unknown;
    message?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (typeof code === 'string') {
    if (TRANSIENT_ERRNOS.has(code) || TRANSIENT_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
      return true;
  }
  if (typeof message === 'string' && TRANSIENT_MESSAGES.some((pattern) => pattern.test(message))) return true;
  if (Array.isArray(errors) && errors.some((e) => isTransientDatabaseError(e, depth + 1))) return true;
  return isTransientDatabaseError(cause, depth + 1);
}

export interface RetryOptions {
  /**
   * The epoch millisecond after which no attempt starts; a function is read again before each wait,
   * so the deadline may move (a lease renewed meanwhile). The first attempt is always made.
   */
  deadline: number | (() => number);
  /** The first wait; each wait doubles up to `maxDelayMs`, and is a random 50-100 % of that (jitter). */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** Ends the waiting early: the last error is thrown at once. */
  signal?: AbortSignal | undefined;
  /** Told of each transient failure that will be retried, and of the wait before the next attempt. */
  onRetry?: ((error: unknown, attempt: number, delayMs: number) => void) | undefined;
}

export const DEFAULT_MIN_DELAY_MS = 100;
export const DEFAULT_MAX_DELAY_MS = 2000;

/**
 * Runs `fn` (given the attempt number, from 1) until it succeeds, fails with an error that is not
 * transient, or the next wait would end past the deadline or the signal aborts: then the last error
 * is thrown. `fn` must be safe to repeat: an attempt whose answer was lost may have been applied.
 */
export async function retryTransient<T>(
  fn: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const min = options.minDelayMs ?? DEFAULT_MIN_DELAY_MS;
  const max = options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn(attempt);
    } catch (error) {
      if (!isTransientDatabaseError(error) || options.signal?.aborted) throw error;
      const cap = Math.min(max, min * 2 ** (attempt - 1));
      const delay = Math.round(cap / 2 + (Math.random() * cap) / 2);
      const deadline = typeof options.deadline === 'function' ? options.deadline() : options.deadline;
      if (Date.now() + delay > deadline) throw error;
      options.onRetry?.(error, attempt, delay);
      try {
        await sleep(delay, undefined, options.signal ? { signal: options.signal } : undefined);
      } catch {
        throw error;
      }
    }
  }
}
