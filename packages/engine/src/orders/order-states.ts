/**
 * The one order state table, shared by the simulation engine, the gateway and the live providers
 * (after NautilusTrader's order state table and FIX's order-state rules). Any other move is a bug.
 */
export const ORDER_STATUSES = [
  'PENDING',
  'PENDING_CANCEL',
  'OPEN',
  'PARTIALLY_FILLED',
  'FILLED',
  'CANCELLED',
  'REJECTED',
  'EXPIRED',
] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** `null` is "a new order": the only entries are PENDING and REJECTED. */
const transitions: ReadonlyMap<OrderStatus | null, readonly OrderStatus[]> = new Map<
  OrderStatus | null,
  readonly OrderStatus[]
>([
  [null, ['PENDING', 'REJECTED']],
  ['PENDING', ['OPEN', 'PARTIALLY_FILLED', 'FILLED', 'CANCELLED', 'REJECTED', 'EXPIRED']],
  // A late venue reject may still arrive for an accepted order.
  ['OPEN', ['PARTIALLY_FILLED', 'FILLED', 'PENDING_CANCEL', 'CANCELLED', 'EXPIRED', 'REJECTED']],
  ['PARTIALLY_FILLED', ['PARTIALLY_FILLED', 'FILLED', 'PENDING_CANCEL', 'CANCELLED', 'EXPIRED']],
  // A fill may beat the cancel; a refused cancel returns the order to where it was.
  ['PENDING_CANCEL', ['CANCELLED', 'FILLED', 'PARTIALLY_FILLED', 'OPEN']],
  ['FILLED', []],
  ['CANCELLED', []],
  ['REJECTED', []],
  ['EXPIRED', []],
]);

export const TERMINAL_STATUSES: readonly OrderStatus[] = ['FILLED', 'CANCELLED', 'REJECTED', 'EXPIRED'];

export const isTerminal = (status: OrderStatus): boolean => TERMINAL_STATUSES.includes(status);

export function canTransition(from: OrderStatus | null, to: OrderStatus): boolean {
  return transitions.get(from)?.includes(to) ?? false;
}

export class OrderStateError extends Error {
  constructor(
    readonly orderId: string,
    readonly from: OrderStatus | null,
    readonly to: OrderStatus,
  ) {
    super(`order ${orderId}: illegal state move ${from ?? '(new)'} -> ${to}`);
    this.name = 'OrderStateError';
  }
}

/** Asserts a move is in the table; the engine calls this on every status change. */
export function assertTransition(orderId: string, from: OrderStatus | null, to: OrderStatus): void {
  if (!canTransition(from, to)) throw new OrderStateError(orderId, from, to);
}

/** The table as data, for documentation and property tests. */
export function allowedMoves(from: OrderStatus | null): readonly OrderStatus[] {
  return transitions.get(from) ?? [];
}
