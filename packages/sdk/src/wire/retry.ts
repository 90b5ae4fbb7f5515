import { HindsightError } from '../errors.ts';

/**
 * The protocol's retry advice (docs/protocol.md, Errors and retries): RATE_LIMITED, PROVIDER_ERROR
 * and PROVIDER_UNAVAILABLE are retried, after `details.retry_after_seconds` when the gateway gives
 * it, else after 500 ms doubling up to 30 s with full jitter; at most 5 attempts or 60 s in all.
 * Nothing else is retried.
 */
export const RETRYABLE_CODES: ReadonlySet<string> = new Set([
  'RATE_LIMITED',
  'PROVIDER_ERROR',
  'PROVIDER_UNAVAILABLE',
]);
export const MAX_ATTEMPTS = 5;
export const RETRY_BUDGET_MS = 60_000;
const FIRST_DELAY_MS = 500;
const MAX_DELAY_MS = 30_000;

/** How long to wait before attempt `attempt + 1`, or undefined to give up. */
export function retryDelayMs(
  error: unknown,
  attempt: number,
  elapsedMs: number,
  random: () => number = Math.random,
): number | undefined {
  if (!(error instanceof HindsightError) || !RETRYABLE_CODES.has(error.code)) return undefined;
  if (attempt >= MAX_ATTEMPTS) return undefined;
  const hint = error.details.retry_after_seconds;
  const resetAt = error.details.reset_at;
  let delay: number;
  if (typeof hint === 'number' && hint >= 0) delay = hint * 1000;
  else if (typeof resetAt === 'string' && !Number.isNaN(Date.parse(resetAt)))
    delay = Math.max(0, Date.parse(resetAt) - Date.now());
  else delay = random() * Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (attempt - 1));
  return elapsedMs + delay > RETRY_BUDGET_MS ? undefined : delay;
}
