import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OrderTable } from '../src/orders/order-table.ts';
import type { OrderRecord } from '../src/orders/order-view.ts';

const record = (id: string, status: OrderRecord['status'] = 'PENDING') => ({ id, status }) as OrderRecord;

describe('order table', () => {
  it('numbers orders and finds them by id, in creation order', () => {
    const table = new OrderTable();
    const first = table.nextId();
    assert.equal(first, 'ord-000000001');
    table.set(first, record(first));
    const second = table.nextId();
    assert.equal(second, 'ord-000000002');
    table.set(second, record(second));
    table.set(first, record(first, 'FILLED'));
    assert.equal(table.get(first)?.status, 'FILLED');
    assert.deepEqual(
      table.values().map((r) => r.id),
      [first, second],
    );
  });

  it('finds nothing for ids it did not give', () => {
    const table = new OrderTable();
    table.set(table.nextId(), record('ord-000000001'));
    for (const id of [
      'ord-0000000001',
      'ord-000000002',
      'ord-00000000x',
      'ord-',
      '',
      'x-000000001',
      'ord-000000000',
    ])
      assert.equal(table.get(id), undefined, id);
  });

  it('refuses a record under another id, or an id past the next one', () => {
    const table = new OrderTable();
    assert.throws(() => table.set('ord-000000002', record('ord-000000002')), RangeError);
    assert.throws(() => table.set('ord-000000001', record('ord-000000009')), RangeError);
    assert.throws(() => table.set('nope', record('nope')), RangeError);
  });
});
