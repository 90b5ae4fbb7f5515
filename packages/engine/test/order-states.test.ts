import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  allowedMoves,
  assertTransition,
  canTransition,
  isTerminal,
  ORDER_STATUSES,
  OrderStateError,
} from '../src/orders/order-states.ts';

describe('order state table', () => {
  it('lets a new order enter only as PENDING or REJECTED', () => {
    assert.deepEqual([...allowedMoves(null)].sort(), ['PENDING', 'REJECTED']);
    assert.throws(() => assertTransition('o1', null, 'OPEN'), OrderStateError);
  });

  it('holds every move of the documented table and nothing else', () => {
    const expected: Record<string, string[]> = {
      PENDING: ['OPEN', 'PARTIALLY_FILLED', 'FILLED', 'CANCELLED', 'REJECTED', 'EXPIRED'],
      OPEN: ['PARTIALLY_FILLED', 'FILLED', 'PENDING_CANCEL', 'CANCELLED', 'EXPIRED', 'REJECTED'],
      PARTIALLY_FILLED: ['PARTIALLY_FILLED', 'FILLED', 'PENDING_CANCEL', 'CANCELLED', 'EXPIRED'],
      PENDING_CANCEL: ['CANCELLED', 'FILLED', 'PARTIALLY_FILLED', 'OPEN'],
      FILLED: [],
      CANCELLED: [],
      REJECTED: [],
      EXPIRED: [],
    };
    for (const from of ORDER_STATUSES) {
      for (const to of ORDER_STATUSES) {
        assert.equal(canTransition(from, to), (expected[from] ?? []).includes(to), `${from} -> ${to}`);
      }
    }
  });

  it('treats FILLED, CANCELLED, REJECTED and EXPIRED as terminal', () => {
    assert.deepEqual(ORDER_STATUSES.filter(isTerminal), ['FILLED', 'CANCELLED', 'REJECTED', 'EXPIRED']);
    assert.throws(
      () => assertTransition('o2', 'FILLED', 'CANCELLED'),
      /illegal state move FILLED -> CANCELLED/,
    );
  });
});
