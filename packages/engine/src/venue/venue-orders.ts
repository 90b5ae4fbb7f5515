import type { RestingOrder } from '../matching/instrument-matcher.ts';
import { quoteOn } from '../matching/marketable-price.ts';
import type { SubmitOutcome } from '../orders/commands.ts';
import type { OrderLinks } from '../orders/order-links.ts';
import type { OrderTable } from '../orders/order-table.ts';
import type { RejectReason } from '../orders/order-types.ts';
import { type OrderRecord, withStatus } from '../orders/order-view.ts';
import { expiresAt } from '../orders/time-in-force.ts';
import type { EngineEvents } from './engine-events.ts';
import type { InstrumentState } from './instrument-state.ts';
import type { SimTime } from './sim-time.ts';

/**
 * The venue's orders: every record, the live ones resting in their instrument's matcher, the DAY
 * expiries, and the changes of state that involve no fill (rest, cancel, reject, expire). Pricing and
 * booking fills is the execution's; this is what every part that touches an order shares.
 */
export class VenueOrders {
  /** DAY orders and the instant each expires. */
  readonly expiries = new Map<string, number>();

  constructor(
    readonly records: OrderTable,
    /** One-cancels-other groups and the exit legs the engine placed. */
    readonly links: OrderLinks,
    readonly instruments: ReadonlyMap<string, InstrumentState>,
    private readonly events: EngineEvents,
    private readonly time: SimTime,
  ) {}

  /**
   * Puts a live order in its instrument's book (OPEN unless partly filled), with its DAY expiry.
   * `triggered`: it already traded at once, so a stop rests as a market order and a stop-limit as its
   * limit.
   */
  addResting(state: InstrumentState, order: OrderRecord, triggered = false): OrderRecord {
    const live = order.status === 'PENDING' ? withStatus(order, 'OPEN', this.time.stamp) : order;
    this.records.set(order.id, live);
    const expiry = expiresAt(live.time_in_force, state.spec.calendar, live.created_at);
    if (expiry !== null) this.expiries.set(live.id, expiry);
    let kind: RestingOrder['kind'] = live.order_type;
    if (triggered && (kind === 'STOP' || kind === 'TRAILING_STOP')) kind = 'MARKET';
    if (triggered && kind === 'STOP_LIMIT') kind = 'LIMIT';
    if (state.matcher.has(live.id)) {
      state.matcher.update(live.id, { kind });
      return live;
    }
    state.matcher.add({
      id: live.id,
      direction: live.side,
      kind,
      ...(live.limit_price && { limit: live.limit_price }),
      ...(live.stop_price && { stop: live.stop_price }),
      ...(kind === 'TRAILING_STOP' &&
        live.trailing_distance && {
          trailing: {
            type: live.trailing_type ?? 'ABSOLUTE',
            distance: live.trailing_distance,
            best: quoteOn(state.quote, live.side),
          },
        }),
    });
    return live;
  }

  /** Cancels a live order: out of the book, its expiry, its leg tracking and its group. */
  cancelLive(orderId: string): OrderRecord {
    const order = this.records.get(orderId) as OrderRecord;
    const state = this.instruments.get(order.symbol) as InstrumentState;
    state.matcher.remove(orderId);
    this.expiries.delete(orderId);
    this.links.forget(orderId);
    const cancelled = withStatus(order, 'CANCELLED', this.time.stamp);
    this.records.set(orderId, cancelled);
    this.events.order('ORDER_CANCELLED', cancelled);
    return cancelled;
  }

  /** A recorded order refused before it could rest or fill. */
  reject(order: OrderRecord, reason: RejectReason): SubmitOutcome {
    const rejected = withStatus(order, 'REJECTED', this.time.stamp, reason);
    this.records.set(order.id, rejected);
    this.events.order('ORDER_REJECTED', rejected);
    return { ok: true, order: rejected, rejected: reason };
  }

  /** A filled order leaves its instrument's book and the expiries. */
  removeFilled(state: InstrumentState, orderId: string): void {
    state.matcher.remove(orderId);
    this.expiries.delete(orderId);
  }

  /** DAY orders whose session ended by `clock` expire, stamped with their session end. */
  expireBy(clock: number): void {
    for (const [orderId, expiry] of this.expiries) {
      if (expiry > clock) continue;
      this.expiries.delete(orderId);
      const order = this.records.get(orderId) as OrderRecord;
      (this.instruments.get(order.symbol) as InstrumentState).matcher.remove(orderId);
      const expired = withStatus(order, 'EXPIRED', expiry);
      this.records.set(orderId, expired);
      this.events.order('ORDER_EXPIRED', expired);
    }
  }
}
