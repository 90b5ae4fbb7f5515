import { setTimeout as sleep } from 'node:timers/promises';
import { HindsightError } from '../errors.ts';
import type { Account, CancelAllResult, ExitLegsMoved, Order, Position, Trade } from '../resources.ts';
import type { Body, Venue } from '../venue.ts';
import { retryDelayMs } from './retry.ts';

/**
 * The venue over the strategy's socket: each call is a `request` frame (docs/protocol.md, REST over
 * the socket), retried as the protocol advises (`retry.ts`), an order with its `client_order_id`.
 */
export interface Answer {
  status: number;
  body: unknown;
}

export type Request = (method: string, path: string, body?: Body) => Promise<Answer>;

const q = (symbol: string | undefined) =>
  symbol === undefined ? '' : `?symbol=${encodeURIComponent(symbol)}`;
const id = (value: string) => encodeURIComponent(value);

export class SocketVenue implements Venue {
  constructor(private readonly request: Request) {}

  async placeOrder(body: Body): Promise<Order> {
    const handle = await this.call<{ id: string }>('POST', '/v1/orders', body, true);
    return this.call<Order>('GET', `/v1/orders/${id(handle.id)}`);
  }

  async modifyOrder(orderId: string, body: Body): Promise<Order> {
    return (await this.call<{ order: Order }>('PATCH', `/v1/orders/${id(orderId)}`, body)).order;
  }

  async cancelOrder(orderId: string): Promise<Order> {
    return (await this.call<{ order: Order }>('DELETE', `/v1/orders/${id(orderId)}`)).order;
  }

  cancelAllOrders(symbol: string | undefined) {
    return this.call<CancelAllResult>('DELETE', `/v1/orders${q(symbol)}`);
  }

  async closePosition(positionId: string, body: Body | undefined): Promise<Order> {
    const handle = await this.call<{ id: string }>('DELETE', `/v1/positions/${id(positionId)}`, body, true);
    return this.call<Order>('GET', `/v1/orders/${id(handle.id)}`);
  }

  async closeAllPositions(symbol: string | undefined): Promise<Order[]> {
    const handles = await this.call<{ id: string }[]>('DELETE', `/v1/positions${q(symbol)}`);
    const orders: Order[] = [];
    for (const handle of handles) orders.push(await this.call<Order>('GET', `/v1/orders/${id(handle.id)}`));
    return orders;
  }

  moveExitLegs(positionId: string, body: Body) {
    return this.call<ExitLegsMoved>('PATCH', `/v1/positions/${id(positionId)}`, body);
  }

  positions(symbol: string | undefined) {
    return this.call<Position[]>('GET', `/v1/positions${q(symbol)}`);
  }

  openOrders(symbol: string | undefined) {
    return this.call<Order[]>('GET', `/v1/orders${q(symbol)}`);
  }

  trades(symbol: string | undefined) {
    return this.call<Trade[]>('GET', `/v1/trades${q(symbol)}`);
  }

  account() {
    return this.call<Account>('GET', '/v1/account');
  }

  /**
   * One call with the protocol's retries. With `rejectedOrders`, a 422 ORDER_REJECTED (the order
   * exists, REJECTED) answers with that order's id instead of throwing (docs/sdk.md).
   */
  private async call<T>(method: string, path: string, body?: Body, rejectedOrders = false): Promise<T> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      const { status, body: answer } = await this.request(method, path, body);
      if (status < 400) return answer as T;
      const error = errorOf(status, answer);
      const orderId = error.details.order_id;
      if (rejectedOrders && error.code === 'ORDER_REJECTED' && typeof orderId === 'string') {
        return { id: orderId } as T;
      }
      const delay = retryDelayMs(error, attempt, Date.now() - started);
      if (delay === undefined) throw error;
      await sleep(delay);
    }
  }
}

function errorOf(status: number, body: unknown): HindsightError {
  const api = (body ?? {}) as { code?: unknown; message?: unknown; details?: unknown };
  return new HindsightError(
    typeof api.code === 'string' ? api.code : 'INTERNAL_ERROR',
    status,
    typeof api.message === 'string' ? api.message : `HTTP ${status}`,
    (api.details && typeof api.details === 'object' ? api.details : {}) as Record<string, unknown>,
  );
}
