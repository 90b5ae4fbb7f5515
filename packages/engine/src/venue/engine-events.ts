import type { Account } from '../account/account.ts';
import type { MarginMonitor } from '../account/margin-monitor.ts';
import type { Candle } from '../candles/candle-aggregator.ts';
import { isoTime } from '../numbers/iso-time.ts';
import type { OrderLinks } from '../orders/order-links.ts';
import { lazyWireOrder, type OrderRecord } from '../orders/order-view.ts';
import { EventOutbox } from './event-outbox.ts';
import type { InstrumentState } from './instrument-state.ts';
import type { SimTime } from './sim-time.ts';

/** Events in the gateway's WebSocket shapes (trading-gateway.md, Events), before `seq` is stamped. */
export type EngineEvent = { type: string; timestamp: string } & Record<string, unknown>;

/**
 * The events the engine's parts write, in the order they happen, until the next `take`: order events
 * for the instruments whose subscription asked for them, account balance updates when any did, and
 * candles.
 */
export class EngineEvents {
  private readonly outbox = new EventOutbox<EngineEvent>();

  constructor(
    private readonly instruments: ReadonlyMap<string, InstrumentState>,
    private readonly links: Pick<OrderLinks, 'isLeg'>,
    private readonly time: SimTime,
    private readonly books: Pick<Account, 'view'>,
    private readonly margin: Pick<MarginMonitor, 'marginUsed'>,
    /** Whether any subscription asked for account_update events. */
    private readonly accountUpdates: boolean,
  ) {}

  get size(): number {
    return this.outbox.size;
  }

  /** The events so far, in order; none wait afterwards. */
  take(): EngineEvent[] {
    return this.outbox.take();
  }

  push(event: EngineEvent): void {
    this.outbox.push(event);
  }

  order(event: string, order: OrderRecord): void {
    const state = this.instruments.get(order.symbol);
    if (!state?.updates.has('order_update')) return;
    // The order's strings are written when the event is read or serialised.
    const wire: EngineEvent = {
      type: 'order',
      event,
      order: lazyWireOrder(order),
      timestamp: isoTime(this.time.stamp),
    };
    // The event names the entry while the engine tracks the exit leg it placed (trading-gateway.md).
    if (order.parent_order_id !== null && this.links.isLeg(order.id))
      wire.parent_order_id = order.parent_order_id;
    this.outbox.push(wire);
  }

  account(at: number): void {
    if (!this.accountUpdates) return;
    this.outbox.push({
      type: 'account',
      event: 'BALANCE_UPDATED',
      account: this.books.view(this.margin.marginUsed()),
      timestamp: isoTime(at),
    });
  }

  candle(candle: Candle): void {
    // The candle is the wire Bar (its strings are made when read or serialised).
    this.outbox.push({ type: 'candle', bar: candle, timestamp: isoTime(candle.end) });
  }
}
