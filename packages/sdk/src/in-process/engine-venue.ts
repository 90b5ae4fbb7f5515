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

  placeOrder(body: Body): Promise<Order> {
    return answer(() => this.gateway.placeOrder(body), true).then(this.orderOf);
  }

  /** The order a call was just handed the handle of, as GET /v1/orders/{id} answers it. */
  private readonly orderOf = (handle: { id: string }) => this.gateway.order(handle.id) as Order;

  async modifyOrder(orderId: string, body: Body): Promise<Order> {
    return (await answer(() => this.gateway.modifyOrder(orderId, body))).order;
  }

  async cancelOrder(orderId: string): Promise<Order> {
    return (await answer(() => this.gateway.cancelOrder(orderId))).order;
  }

  cancelAllOrders(symbol: string | undefined) {
    return answer(() => this.gateway.cancelAllOrders(symbol));
  }

  closePosition(positionId: string, body: Body | undefined): Promise<Order> {
    return answer(() => this.gateway.closePosition(positionId, body), true).then(this.orderOf);
  }

  async closeAllPositions(symbol: string | undefined): Promise<Order[]> {
    const handles = await answer(() => this.gateway.closeAllPositions(symbol));
    return Promise.all(handles.map(this.orderOf));
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
function answer<T>(call: () => Promise<T>, rejectedOrders = false): Promise<T> {
  const failed = rejectedOrders ? rejectedOrderOrError : hindsightError;
  // Chained rather than awaited: every order of an in-process backtest comes through here.
  try {
    return call().then(undefined, failed) as Promise<T>;
  } catch (error) {
    return Promise.reject(error).then(undefined, failed) as Promise<T>;
  }
}

function hindsightError(error: unknown): never {
  if (!(error instanceof GatewayError)) throw error;
  throw new HindsightError(error.code, error.status, error.message, error.details ?? {});
}

function rejectedOrderOrError(error: unknown): { id: string } {
  if (error instanceof GatewayError && error.code === 'ORDER_REJECTED') {
    const orderId = error.details?.order_id;
    if (typeof orderId === 'string') return { id: orderId };
  }
  return hindsightError(error);
}
