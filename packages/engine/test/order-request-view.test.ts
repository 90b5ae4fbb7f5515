import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import { OrderStateError } from '../src/orders/order-states.ts';
import {
  lazyWireOrder,
  newOrderRecord,
  remainingQuantity,
  toOrderHandle,
  toWireOrder,
  withFill,
  withStatus,
} from '../src/orders/order-view.ts';
import { order } from './support/commands.ts';

const at = (iso: string) => Date.parse(iso);
const limitBuy = order({
  symbol: 'F:EURUSD',
  side: 'BUY',
  quantity: '10.0',
  order_type: 'LIMIT',
  limit_price: '1.10000',
  client_order_id: 'c-1',
  hidden: true,
});

/** The spec's Order table, in order. */
const ORDER_FIELDS = [
  'id',
  'symbol',
  'side',
  'order_type',
  'quantity',
  'filled_quantity',
  'remaining_quantity',
  'average_fill_price',
  'status',
  'time_in_force',
  'limit_price',
  'stop_price',
  'stop_loss',
  'take_profit',
  'client_order_id',
  'correlation_id',
  'reject_reason',
  'trailing_distance',
  'trailing_type',
  'display_quantity',
  'oco_group_id',
  'position_id',
  'parent_order_id',
  'reduce_only',
  'post_only',
  'hidden',
  'created_at',
  'updated_at',
] as const;

describe('wire Order view', () => {
  it('shows a new order with every spec field, null when unset', () => {
    const record = newOrderRecord(limitBuy, {
      id: 'o-1',
      at: at('2024-03-08T22:00:00Z'),
      correlationId: 'k-9',
    });
    const wire = toWireOrder(record);
    assert.deepEqual(Object.keys(wire), ORDER_FIELDS);
    assert.deepEqual(wire, {
      id: 'o-1',
      symbol: 'F:EURUSD',
      side: 'BUY',
      order_type: 'LIMIT',
      quantity: '10',
      filled_quantity: '0',
      remaining_quantity: '10',
      average_fill_price: null,
      status: 'PENDING',
      time_in_force: 'GTC',
      limit_price: '1.1',
      stop_price: null,
      stop_loss: null,
      take_profit: null,
      client_order_id: 'c-1',
      correlation_id: 'k-9',
      reject_reason: null,
      trailing_distance: null,
      trailing_type: null,
      display_quantity: null,
      oco_group_id: null,
      position_id: null,
      parent_order_id: null,
      reduce_only: null,
      post_only: null,
      hidden: true,
      created_at: '2024-03-08T22:00:00.000Z',
      updated_at: '2024-03-08T22:00:00.000Z',
    });
    assert.deepEqual(toOrderHandle(record), { id: 'o-1', status: 'PENDING', client_order_id: 'c-1' });
  });

  it('averages fills by quantity and moves to PARTIALLY_FILLED, then FILLED', () => {
    const t0 = at('2024-03-11T13:30:00Z');
    const open = withStatus(newOrderRecord(limitBuy, { id: 'o-2', at: t0 }), 'OPEN', t0);
    const partial = withFill(open, new Dec('4'), '1.1', t0 + 60_000);
    let wire = toWireOrder(partial);
    assert.deepEqual(
      [wire.status, wire.filled_quantity, wire.remaining_quantity, wire.average_fill_price, wire.updated_at],
      ['PARTIALLY_FILLED', '4', '6', '1.1', '2024-03-11T13:31:00.000Z'],
    );
    // (4 x 1.1 + 6 x 1.2) / 10 = 11.6 / 10 = 1.16
    const filled = withFill(partial, new Dec('6'), '1.2', t0 + 120_000);
    wire = toWireOrder(filled);
    assert.deepEqual(
      [wire.status, wire.filled_quantity, wire.remaining_quantity, wire.average_fill_price],
      ['FILLED', '10', '0', '1.16'],
    );
    assert.equal(wire.created_at, '2024-03-11T13:30:00.000Z');
    assert.throws(() => withFill(filled, new Dec('1'), '1', t0), RangeError);
    assert.throws(() => withFill(open, new Dec('10.5'), '1', t0), /fill of 10.5 with 10 remaining/);
    assert.throws(() => withFill(open, new Dec('0'), '1', t0), RangeError);
  });

  it('fills a whole order from its remaining quantity, which is the quantity itself while unfilled', () => {
    const t0 = at('2024-03-11T13:30:00Z');
    const open = withStatus(newOrderRecord(limitBuy, { id: 'o-3', at: t0 }), 'OPEN', t0);
    const remaining = remainingQuantity(open);
    assert.equal(remaining, open.quantity);
    const filled = withFill(open, remaining, '1.25', t0 + 60_000);
    assert.equal(filled.status, 'FILLED');
    assert.equal(filled.filled_quantity, open.quantity);
    assert.equal(toWireOrder(filled).average_fill_price, '1.25');
    assert.equal(toWireOrder(filled).remaining_quantity, '0');
    // An equal quantity that is another decimal fills it whole too.
    const again = withFill(open, new Dec('10'), '1.25', t0 + 60_000);
    assert.deepEqual(toWireOrder(again), toWireOrder(filled));
    const partial = withFill(open, new Dec('4'), '1', t0 + 60_000);
    assert.equal(remainingQuantity(partial).toString(), '6');
    assert.equal(withFill(partial, remainingQuantity(partial), '1', t0).filled_quantity, open.quantity);
  });

  it('reads every field of an order event as toWireOrder writes it, routing fields straight from the record', () => {
    const t0 = at('2024-03-11T13:30:00Z');
    const open = withStatus(newOrderRecord(limitBuy, { id: 'o-4', at: t0 }), 'OPEN', t0);
    const partial = withFill(open, new Dec('4'), '1.1', t0 + 60_000);
    for (const record of [open, partial, withFill(partial, new Dec('6'), '1.2', t0 + 120_000)]) {
      const wire = toWireOrder(record);
      const view = lazyWireOrder(record);
      // The symbol and id, which route an event, first: read before the view builds anything.
      assert.equal(view.symbol, wire.symbol);
      assert.equal(view.id, wire.id);
      for (const field of ORDER_FIELDS) assert.deepEqual(view[field], wire[field], field);
      assert.equal(JSON.stringify(view), JSON.stringify(wire));
    }
  });

  it('writes the average as text: the first fill price unless price x quantity would round', () => {
    const t0 = at('2024-03-11T13:30:00Z');
    const long = (quantity: string) =>
      withStatus(
        newOrderRecord({ ...limitBuy, quantity: new Dec(quantity) }, { id: 'o-9', at: t0 }),
        'OPEN',
        t0,
      );
    const quantity = '1.23456789012345678901234567891';
    const price = '1.0000000000000000000000000000000007';
    const filled = withFill(long(quantity), new Dec(quantity), price, t0);
    const q = new Dec(quantity);
    // 30 + 35 significant digits: the product may round, so the mean is computed as Dec computes it.
    assert.equal(filled.average_fill_price, toDecimalString(new Dec(price).times(q).div(q)));
    // Leading zeros are not digits: a small price keeps its text.
    const small = withFill(
      long('3'),
      new Dec('3'),
      '0.000000000000000000000000000000000000000000000000000000001',
      t0,
    );
    assert.equal(small.average_fill_price, '0.000000000000000000000000000000000000000000000000000000001');
    assert.equal(toWireOrder(small).average_fill_price, small.average_fill_price);
  });

  it('keeps remaining = quantity - filled on a cancelled partial fill', () => {
    const t0 = at('2024-03-11T13:30:00Z');
    const open = withStatus(newOrderRecord(limitBuy, { id: 'o-3', at: t0 }), 'OPEN', t0);
    const cancelled = withStatus(withFill(open, new Dec('2.5'), '1.1', t0), 'CANCELLED', t0 + 1);
    const wire = toWireOrder(cancelled);
    assert.deepEqual(
      [wire.status, wire.remaining_quantity, wire.average_fill_price],
      ['CANCELLED', '7.5', '1.1'],
    );
  });

  it('records a reject reason, and only on a REJECTED order', () => {
    const t0 = at('2024-03-11T13:30:00Z');
    const rejected = newOrderRecord(limitBuy, {
      id: 'o-4',
      at: t0,
      status: 'REJECTED',
      rejectReason: 'SYMBOL_NOT_TRADEABLE',
    });
    assert.equal(toWireOrder(rejected).reject_reason, 'SYMBOL_NOT_TRADEABLE');
    assert.equal(toWireOrder(rejected).status, 'REJECTED');
    const late = withStatus(
      withStatus(newOrderRecord(limitBuy, { id: 'o-5', at: t0 }), 'OPEN', t0),
      'REJECTED',
      t0,
      'INSUFFICIENT_MARGIN',
    );
    assert.equal(toWireOrder(late).reject_reason, 'INSUFFICIENT_MARGIN');
    assert.equal(
      toWireOrder(withStatus(newOrderRecord(limitBuy, { id: 'o-6', at: t0 }), 'REJECTED', t0)).reject_reason,
      'UNKNOWN',
    );
  });

  it('enforces the state table', () => {
    const t0 = 0;
    const filled = withFill(newOrderRecord(limitBuy, { id: 'o-7', at: t0 }), new Dec('10'), '1', t0);
    assert.throws(() => withStatus(filled, 'CANCELLED', t0), OrderStateError);
    assert.throws(() => withStatus(filled, 'OPEN', t0), /illegal state move FILLED -> OPEN/);
  });
});
