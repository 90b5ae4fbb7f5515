import type { SubmitOrder } from '@hindsight/engine';
import { GatewayError } from '../errors.ts';
import type { PlacedOrder } from '../provider/provider.ts';
import { canonicalOrderRequest, fieldsConflict } from './order-requests.ts';

/**
 * Decision 19: a repeated `client_order_id` with an identical request returns the existing order's
 * handle (200); with a different one, 409 ORDER_NOT_MODIFIABLE (the existing order cannot become
 * another one; use a new client_order_id). Requests are the parsed submissions, compared in canonical
 * form (decimals by value, defaults spelled out), so "1.50" repeats "1.5". Kept for the gateway's
 * lifetime.
 */
interface Entry {
  /** The parsed submission; put in canonical form only if its client_order_id repeats. */
  order: SubmitOrder;
  placed: Promise<PlacedOrder>;
}

export type IdempotentOutcome =
  | { kind: 'new'; key: string }
  | { kind: 'repeat'; placed: Promise<PlacedOrder> }
  | { kind: 'none' };

export class OrderIdempotency {
  private readonly entries = new Map<string, Entry>();

  /**
   * Looks the submission up. A first use of a client_order_id costs a map lookup: submissions are
   * put in canonical form only when an id repeats. A repeat the engine will deny for its fields
   * (a 400, decision 35: the body before the state) is left to it.
   */
  check(order: SubmitOrder): IdempotentOutcome {
    const key = order.client_order_id;
    if (key === undefined) return { kind: 'none' };
    const existing = this.entries.get(key);
    if (!existing) return { kind: 'new', key };
    if (fieldsConflict(order)) return { kind: 'none' };
    // A first request the engine denies is recorded until its denial settles (an asynchronous provider).
    if (fieldsConflict(existing.order)) return { kind: 'new', key };
    if (canonicalForm(existing.order) !== canonicalForm(order)) {
      throw new GatewayError(
        'ORDER_NOT_MODIFIABLE',
        `client_order_id ${JSON.stringify(key)} already names an order with a different request; repeat the same body to get that order, or use a new client_order_id.`,
        { client_order_id: key },
      );
    }
    return { kind: 'repeat', placed: existing.placed };
  }

  record(key: string, order: SubmitOrder, placed: Promise<PlacedOrder>): void {
    this.entries.set(key, { order, placed });
    // A request refused before an order existed (a denial, 503) leaves no order to return.
    placed.catch(() => {
      if (this.entries.get(key)?.placed === placed) this.entries.delete(key);
    });
  }
}

const canonicalForm = (order: SubmitOrder): string => JSON.stringify(canonicalOrderRequest(order));
