import { type Dec, toDecimalString } from '@hindsight/core';
import { legThroughMarket } from '../matching/marketable-price.ts';
import { deny, type ExitLegsOutcome, type ExitLegView, type SetExitLegs } from '../orders/commands.ts';
import type { ExitLeg } from '../orders/order-links.ts';
import { isTerminal } from '../orders/order-states.ts';
import type { Side } from '../orders/order-types.ts';
import { newOrderRecord, type OrderRecord, remainingQuantity, withStatus } from '../orders/order-view.ts';
import type { FillOutcome } from '../positions/fill-outcome.ts';
import type { PositionSnapshot } from '../positions/position.ts';
import type { PositionBook } from '../positions/position-book.ts';
import { protectedUnits } from '../positions/reduced-position.ts';
import type { EngineEvents } from '../venue/engine-events.ts';
import type { InstrumentState } from '../venue/instrument-state.ts';
import type { SimTime } from '../venue/sim-time.ts';
import type { VenueOrders } from '../venue/venue-orders.ts';

/**
 * Contingent orders (docs/engine.md "Parts"): brackets (exit legs placed when the entry fills, with
 * `parent_order_id`; resized with their position, cancelled when it is gone), client one-cancels-other
 * groups, the orders associated with a position, and moves of exit legs.
 */
export class ContingentOrders {
  private readonly hedging: boolean;

  constructor(
    private readonly orders: VenueOrders,
    private readonly events: EngineEvents,
    private readonly time: SimTime,
    private readonly book: PositionBook,
  ) {
    this.hedging = book.mode === 'hedging';
  }

  /** Cancels the other live members of a filled order's one-cancels-other group. */
  settleGroup(orderId: string): void {
    this.dissolveGroup(orderId, orderId);
  }

  /** Ends the group of `orderId`, cancelling every live member but `keep`. */
  dissolveGroup(orderId: string, keep?: string): void {
    for (const member of this.orders.links.dissolve(orderId, keep)) {
      const sibling = this.orders.records.get(member);
      if (sibling && !isTerminal(sibling.status)) this.orders.cancelLive(member);
    }
  }

  /**
   * An entry with a stop-loss and/or take-profit filled `units`: its first fill places the exit legs,
   * sized to it; each later fill (under a volume limit) grows the live legs by its units.
   */
  bracketOnFill(state: InstrumentState, entry: OrderRecord, units: Dec, outcome: FillOutcome): void {
    const live = this.orders.links.legsOfEntry(entry.id);
    if (live.length === 0) {
      const opened = outcome.events.find(
        (e) => e.type === 'POSITION_OPENED' || e.type === 'POSITION_MODIFIED',
      );
      const positionId = this.hedging ? opened?.position.view.id : undefined;
      this.placeBracket(state, entry, positionId, units);
      return;
    }
    for (const legId of live) {
      const leg = this.orders.records.get(legId) as OrderRecord;
      const grown: OrderRecord = { ...leg, quantity: leg.quantity.plus(units), updated_at: this.time.stamp };
      this.orders.records.set(legId, grown);
      this.events.order('BRACKET_ORDER_MODIFIED', grown);
    }
  }

  /**
   * Exit legs follow the position they protect: legs whose position is gone (closed or reversed by
   * another order) are cancelled with their sibling; a leg larger than what remains of its position is
   * resized down to it (BRACKET_ORDER_MODIFIED), so an exit never opens a new position.
   */
  reconcileLegs(symbol: string, at: number): void {
    for (const [orderId, leg] of this.orders.links.allLegs()) {
      const order = this.orders.records.get(orderId);
      if (!order || order.symbol !== symbol || isTerminal(order.status)) continue;
      const held = protectedUnits(this.book, order.symbol, order.side, leg.positionId);
      if (held.isZero()) {
        this.dissolveGroup(orderId);
        continue;
      }
      if (remainingQuantity(order).lte(held)) continue;
      const resized: OrderRecord = { ...order, quantity: order.filled_quantity.plus(held), updated_at: at };
      this.orders.records.set(orderId, resized);
      this.events.order('BRACKET_ORDER_MODIFIED', resized);
    }
  }

  /** An entry's new bracket prices move the legs it has already placed. */
  moveBracketOf(entryId: string, prices: { stop_loss?: Dec; take_profit?: Dec }): void {
    for (const legId of this.orders.links.legsOfEntry(entryId)) {
      const leg = this.orders.links.leg(legId);
      const price = leg?.leg === 'stop' ? prices.stop_loss : prices.take_profit;
      if (leg && price) this.repriceLeg(legId, leg.leg, price);
    }
  }

  /** The position's exit legs, and the resting orders aimed at it (hedging) or reducing it (netting). */
  cancelAssociatedOrders(position: PositionSnapshot): void {
    const state = this.orders.instruments.get(position.symbol) as InstrumentState;
    for (const orderId of state.matcher.ids()) {
      const order = this.orders.records.get(orderId) as OrderRecord;
      if (isTerminal(order.status)) continue;
      const leg = this.orders.links.leg(orderId);
      const associated = leg
        ? this.legProtects(leg, position)
        : this.hedging
          ? order.position_id === position.id
          : order.reduce_only === true;
      if (!associated) continue;
      if (leg) this.dissolveGroup(orderId);
      else this.orders.cancelLive(orderId);
    }
  }

  /**
   * Moves the exit legs the engine placed for the position. The simulation modifies natively, so ids
   * are kept; every resting part of a leg moves together; the stop leg moves first, then the
   * take-profit, and a denied second move leaves the first moved. A move is denied (the leg left where
   * it was) when the leg is not tracked or the new trigger is already through the market (it would
   * fill at once). The leg is never cancelled, so a position is never left unprotected here.
   */
  setExitLegs(positionId: string, legs: SetExitLegs): ExitLegsOutcome {
    const position = this.book.position(positionId);
    if (!position) {
      return deny('POSITION_NOT_FOUND', `There is no open position ${positionId}.`, { provided: positionId });
    }
    const state = this.orders.instruments.get(position.symbol) as InstrumentState;
    const exitSide: Side = position.side === 'LONG' ? 'SELL' : 'BUY';
    for (const [leg, price] of [
      ['stop', legs.stop_loss],
      ['take', legs.take_profit],
    ] as const) {
      if (!price) continue;
      const name = leg === 'stop' ? 'stop_loss' : 'take_profit';
      const ids = this.legIdsOf(position, leg);
      if (ids.length === 0) {
        return deny(
          'EXIT_LEG_NOT_FOUND',
          `Position ${positionId} has no ${name} leg placed by the gateway to move.`,
          { field: name, facts: { leg: name } },
        );
      }
      const through = legThroughMarket(state, exitSide, leg, price);
      if (through) {
        const quote = toDecimalString(through);
        return deny(
          'EXIT_LEG_THROUGH_MARKET',
          `The ${name} ${toDecimalString(price)} is already through the market (${quote}): the move was rejected and the original leg restored.`,
          { field: name, provided: toDecimalString(price), facts: { leg: name, market: quote } },
        );
      }
      for (const id of ids) this.repriceLeg(id, leg, price);
    }
    return {
      ok: true,
      position_id: positionId,
      stop_loss: this.legView(position, 'stop'),
      take_profit: this.legView(position, 'take'),
    };
  }

  /** Places the exit legs of a filled entry that asked for a stop-loss and/or a take-profit. */
  private placeBracket(
    state: InstrumentState,
    entry: OrderRecord,
    positionId: string | undefined,
    quantity: Dec,
  ): void {
    const exitSide = entry.side === 'BUY' ? 'SELL' : 'BUY';
    const legs: ['stop' | 'take', Dec | null][] = [
      ['stop', entry.stop_loss],
      ['take', entry.take_profit],
    ];
    const stamp = this.time.stamp;
    for (const [leg, price] of legs) {
      if (!price) continue;
      const id = this.orders.records.nextId();
      const record = newOrderRecord(
        {
          symbol: entry.symbol,
          side: exitSide,
          quantity,
          order_type: leg === 'stop' ? 'STOP' : 'LIMIT',
          time_in_force: 'GTC',
          ...(leg === 'stop' ? { stop_price: price } : { limit_price: price }),
          ...(positionId !== undefined && { position_id: positionId }),
        },
        { id, at: stamp, correlationId: entry.correlation_id, parentOrderId: entry.id },
      );
      const open = withStatus(record, 'OPEN', stamp);
      this.orders.records.set(id, open);
      state.matcher.add({
        id,
        direction: exitSide,
        kind: leg === 'stop' ? 'STOP' : 'LIMIT',
        ...(leg === 'stop' ? { stop: price } : { limit: price }),
      });
      this.orders.links.addLeg(entry.id, id, { leg, positionId });
      this.events.order('BRACKET_ORDER_CREATED', open);
    }
  }

  /** Moves a live exit leg's trigger in place (the id is kept) and tells the strategy. */
  private repriceLeg(legId: string, leg: 'stop' | 'take', price: Dec): void {
    const order = this.orders.records.get(legId) as OrderRecord;
    const state = this.orders.instruments.get(order.symbol) as InstrumentState;
    const stamp = this.time.stamp;
    const moved: OrderRecord =
      leg === 'stop'
        ? { ...order, stop_price: price, updated_at: stamp }
        : { ...order, limit_price: price, updated_at: stamp };
    this.orders.records.set(legId, moved);
    state.matcher.update(legId, leg === 'stop' ? { stop: price } : { limit: price });
    this.events.order('BRACKET_ORDER_MODIFIED', moved);
  }

  /** Whether an exit leg protects `position` (hedging: the position it names; netting: the symbol's). */
  private legProtects(leg: ExitLeg, position: PositionSnapshot): boolean {
    return this.hedging ? leg.positionId === position.id : leg.positionId === undefined;
  }

  private legIdsOf(position: PositionSnapshot, kind: 'stop' | 'take'): string[] {
    const ids: string[] = [];
    for (const [orderId, leg] of this.orders.links.allLegs()) {
      const order = this.orders.records.get(orderId) as OrderRecord;
      if (leg.leg !== kind || order.symbol !== position.symbol || isTerminal(order.status)) continue;
      if (this.legProtects(leg, position)) ids.push(orderId);
    }
    return ids;
  }

  private legView(position: PositionSnapshot, kind: 'stop' | 'take'): ExitLegView | null {
    const ids = this.legIdsOf(position, kind);
    const first = ids[0] ? this.orders.records.get(ids[0]) : undefined;
    if (!first) return null;
    const price = kind === 'stop' ? first.stop_price : first.limit_price;
    return { order_ids: ids, trigger_price: toDecimalString(price as Dec) };
  }
}
