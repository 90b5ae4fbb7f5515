import { canonicalOrderRequest, MAX_LEVERAGE, validateOrderRequest } from '@hindsight/engine';
import { GatewayError } from '../errors.ts';
import type { PlacedOrder } from '../provider/provider.ts';

/**
 * Decision 19: a repeated `client_order_id` with an identical body returns the existing order's
 * handle (200); with a different body, 409 ORDER_NOT_MODIFIABLE (the existing order cannot become
 * another one; use a new client_order_id). Bodies compare in canonical form (decimals by value,
 * defaults spelled out), so "1.50" repeats "1.5". Kept for the gateway's lifetime.
 */
interface Entry {
  /** The request body as received; compared in canonical form only if its client_order_id repeats. */
  body: unknown;
  placed: Promise<PlacedOrder>;
}

export type IdempotentOutcome =
  | { kind: 'new'; key: string }
  | { kind: 'repeat'; placed: Promise<PlacedOrder> }
  | { kind: 'none' };

export class OrderIdempotency {
  private readonly entries = new Map<string, Entry>();

  /**
   * Looks the body up. A first use of a client_order_id costs a map lookup: bodies are validated and
   * put in canonical form only when an id repeats (the provider validates every order anyway, and a
   * body it refuses leaves no entry, see `record`). A repeat with a body the provider will refuse
   * (400) is left to it.
   */
  check(body: unknown): IdempotentOutcome {
    const key =
      body && typeof body === 'object' && !Array.isArray(body)
        ? (body as { client_order_id?: unknown }).client_order_id
        : undefined;
    if (typeof key !== 'string') return { kind: 'none' };
    const existing = this.entries.get(key);
    if (!existing) return { kind: 'new', key };
    const canonical = canonicalForm(body);
    if (canonical === undefined) return { kind: 'none' };
    const recorded = canonicalForm(existing.body);
    // A refused first body is recorded until its refusal settles (an asynchronous provider).
    if (recorded === undefined) return { kind: 'new', key };
    if (recorded !== canonical) {
      throw new GatewayError(
        'ORDER_NOT_MODIFIABLE',
        `client_order_id ${JSON.stringify(key)} already names an order with a different request; repeat the same body to get that order, or use a new client_order_id.`,
        { client_order_id: key },
      );
    }
    return { kind: 'repeat', placed: existing.placed };
  }

  record(key: string, body: unknown, placed: Promise<PlacedOrder>): void {
    this.entries.set(key, { body, placed });
    // A request that failed before an order existed (400, 503) leaves no order to return.
    placed.catch(() => {
      if (this.entries.get(key)?.placed === placed) this.entries.delete(key);
    });
  }
}

/** The body's canonical JSON (decimals by value, defaults spelled out), or undefined when invalid. */
function canonicalForm(body: unknown): string | undefined {
  const parsed = validateOrderRequest(body, { knownSymbol: () => true, maxLeverage: MAX_LEVERAGE });
  return parsed.ok ? JSON.stringify(canonicalOrderRequest(parsed.order)) : undefined;
}
