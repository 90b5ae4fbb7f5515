import { GatewayError, type InProcessGateway } from '@hindsight/gateway';
import { HindsightError } from '../errors.ts';
import type { Order } from '../resources.ts';
import type { Body, Venue } from '../venue.ts';

/**
 * The venue of an in-process run: each call runs the gateway's trading service in this process
 * (`InProcessGateway`), so answers and errors are those the same call gets over the socket; a
 * GatewayError becomes the HindsightError the wire runner would raise from the same ApiError.
 */
export class EngineVenue implements Venue {
  constructor(private readonly gateway: InProcessGateway) {}

  async placeOrder(body: Body): Promise<Order> {
    const handle = await answer(() => this.gateway.placeOrder(body), true);
    return (await this.gateway.order(handle.id)) as Order;
  }

  async modifyOrder(orderId: string, body: Body): Promise<Order> {
    return (await answer(() => this.gateway.modifyOrder(orderId, body))).order;
  }

  async cancelOrder(orderId: string): Promise<Order> {
    return (await answer(() => this.gateway.cancelOrder(orderId))).order;
  }

  cancelAllOrders(symbol: string | undefined) {
    return answer(() => this.gateway.cancelAllOrders(symbol));
  }

  async closePosition(positionId: string, body: Body | undefined): Promise<Order> {
    const handle = await answer(() => this.gateway.closePosition(positionId, body), true);
    return (await this.gateway.order(handle.id)) as Order;
  }

  async closeAllPositions(symbol: string | undefined): Promise<Order[]> {
    const handles = await answer(() => this.gateway.closeAllPositions(symbol));
    return Promise.all(handles.map(async (handle) => (await this.gateway.order(handle.id)) as Order));
  }

  moveExitLegs(positionId: string, body: Body) {
    return answer(() => this.gateway.moveExitLegs(positionId, body));
  }

  positions(symbol: string | undefined) {
    return answer(() => this.gateway.positions(symbol));
  }

  openOrders(symbol: string | undefined) {
    return answer(() => this.gateway.openOrders(symbol));
  }

  trades(symbol: string | undefined) {
    return answer(() => this.gateway.trades(symbol)) as ReturnType<Venue['trades']>;
  }

  account() {
    return answer(() => this.gateway.account());
  }
}

/**
 * The call's answer, or its error as a HindsightError. With `rejectedOrders`, an ORDER_REJECTED
 * answer (the order exists, REJECTED) resolves to a handle of that order, as docs/sdk.md promises.
 */
async function answer<T>(call: () => Promise<T>, rejectedOrders = false): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    const orderId = error.details?.order_id;
    if (rejectedOrders && error.code === 'ORDER_REJECTED' && typeof orderId === 'string') {
      return { id: orderId } as T;
    }
    throw new HindsightError(error.code, error.status, error.message, error.details ?? {});
  }
}
