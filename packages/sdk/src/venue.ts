import type { Account, CancelAllResult, ExitLegsMoved, Order, Position, Trade } from './resources.ts';

/**
 * What the context asks of the gateway, one method per REST operation it uses, bodies in the
 * protocol's JSON shapes. Two implementations: over the strategy's socket (`wire/socket-venue.ts`)
 * and in the same process as the engine (`in-process/engine-venue.ts`). Each resolves with the
 * answer's body or rejects with a HindsightError carrying the protocol's code.
 */
export type Body = Record<string, unknown>;

export interface Venue {
  /** POST /v1/orders: the new order as it stands after its own events (a 422 resolves to the REJECTED order). */
  placeOrder(body: Body): Promise<Order>;
  modifyOrder(orderId: string, body: Body): Promise<Order>;
  cancelOrder(orderId: string): Promise<Order>;
  cancelAllOrders(symbol: string | undefined): Promise<CancelAllResult>;
  /** DELETE /v1/positions/{id}: the close order (a 422 resolves to the REJECTED order). */
  closePosition(positionId: string, body: Body | undefined): Promise<Order>;
  closeAllPositions(symbol: string | undefined): Promise<Order[]>;
  moveExitLegs(positionId: string, body: Body): Promise<ExitLegsMoved>;
  positions(symbol: string | undefined): Promise<Position[]>;
  openOrders(symbol: string | undefined): Promise<Order[]>;
  trades(symbol: string | undefined): Promise<Trade[]>;
  account(): Promise<Account>;
}
