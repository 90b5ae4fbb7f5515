import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec } from '@hindsight/core';
import type { FieldIssue } from '../src/orders/commands.ts';
import { orderFieldIssues } from '../src/orders/order-rules.ts';
import { type OrderFields, order } from './support/commands.ts';
import { cursorOf, engineFor, firstBatch } from './support/engine-harness.ts';

/**
 * The rules between an order's fields (ORDER_FIELDS_CONFLICT, the gateway's VALIDATION_ERROR), on
 * typed commands: what each order type needs and refuses, post-only and reduce-only, bracket sides.
 */
const market = { symbol: 'F:EURUSD', side: 'BUY', quantity: '1000', order_type: 'MARKET' } as const;
const limit = { ...market, order_type: 'LIMIT', limit_price: '1.1' } as const;

const issuesOf = (fields: OrderFields): FieldIssue[] => orderFieldIssues(order(fields));
const expectIssues = (fields: OrderFields, issues: FieldIssue[]) =>
  assert.deepEqual(issuesOf(fields), issues);

describe('orderFieldIssues', () => {
  it('requires the conditional prices of each order type', () => {
    expectIssues({ ...market, order_type: 'LIMIT' }, [
      { field: 'limit_price', message: 'limit_price is required for LIMIT orders.' },
    ]);
    expectIssues({ ...market, order_type: 'STOP' }, [
      { field: 'stop_price', message: 'stop_price is required for STOP orders.' },
    ]);
    expectIssues({ ...market, order_type: 'STOP_LIMIT' }, [
      { field: 'limit_price', message: 'limit_price is required for STOP_LIMIT orders.' },
      { field: 'stop_price', message: 'stop_price is required for STOP_LIMIT orders.' },
    ]);
    expectIssues({ ...market, order_type: 'STOP_LIMIT', stop_price: '1.2' }, [
      { field: 'limit_price', message: 'limit_price is required for STOP_LIMIT orders.' },
    ]);
    expectIssues({ ...market, order_type: 'TRAILING_STOP', trailing_type: 'PERCENT' }, [
      { field: 'trailing_distance', message: 'trailing_distance is required for TRAILING_STOP orders.' },
    ]);
  });

  it('refuses prices the order type does not use', () => {
    expectIssues({ ...market, limit_price: '1.1', stop_price: '1.2' }, [
      { field: 'limit_price', message: 'limit_price is not used by MARKET orders.' },
      { field: 'stop_price', message: 'stop_price is not used by MARKET orders.' },
    ]);
    expectIssues({ ...limit, trailing_distance: '0.001', trailing_type: 'ABSOLUTE' }, [
      { field: 'trailing_distance', message: 'trailing_distance is not used by LIMIT orders.' },
      { field: 'trailing_type', message: 'trailing_type is not used by LIMIT orders.' },
    ]);
    expectIssues({ ...market, order_type: 'STOP', stop_price: '1.2', limit_price: '1.1' }, [
      { field: 'limit_price', message: 'limit_price is not used by STOP orders.' },
    ]);
  });

  it('refuses post_only with an order that always takes, or with IOC/FOK', () => {
    expectIssues({ ...limit, post_only: true, time_in_force: 'FOK' }, [
      { field: 'post_only', message: 'post_only cannot be combined with FOK, which must fill at once.' },
    ]);
    expectIssues({ ...market, post_only: true, time_in_force: 'IOC' }, [
      {
        field: 'post_only',
        message: 'post_only needs a LIMIT or STOP_LIMIT order: a MARKET order always takes liquidity.',
      },
      { field: 'post_only', message: 'post_only cannot be combined with IOC, which must fill at once.' },
    ]);
    expectIssues({ ...market, order_type: 'STOP', stop_price: '1.2', post_only: true }, [
      {
        field: 'post_only',
        message: 'post_only needs a LIMIT or STOP_LIMIT order: a STOP order always takes liquidity.',
      },
    ]);
    // post_only false is no constraint; FOK alone is fine.
    expectIssues({ ...market, post_only: false, time_in_force: 'FOK' }, []);
    expectIssues({ ...limit, post_only: true, time_in_force: 'DAY' }, []);
  });

  it('puts brackets on the protective side of the entry', () => {
    expectIssues({ ...limit, limit_price: '1.1000', stop_loss: '1.1050', take_profit: '1.0900' }, [
      { field: 'stop_loss', message: 'stop_loss of a BUY order must be below its limit_price (1.1).' },
      { field: 'take_profit', message: 'take_profit of a BUY order must be above its limit_price (1.1).' },
    ]);
    expectIssues({ ...limit, side: 'SELL', stop_loss: '1.09', take_profit: '1.11' }, [
      { field: 'stop_loss', message: 'stop_loss of a SELL order must be above its limit_price (1.1).' },
      { field: 'take_profit', message: 'take_profit of a SELL order must be below its limit_price (1.1).' },
    ]);
    expectIssues({ ...market, order_type: 'STOP', stop_price: '1.2', stop_loss: '1.21' }, [
      { field: 'stop_loss', message: 'stop_loss of a BUY order must be below its stop_price (1.2).' },
    ]);
    // STOP_LIMIT: the limit is the worst entry, so the brackets are judged against it.
    expectIssues(
      { ...market, order_type: 'STOP_LIMIT', stop_price: '1.2', limit_price: '1.21', stop_loss: '1.215' },
      [{ field: 'stop_loss', message: 'stop_loss of a BUY order must be below its limit_price (1.21).' }],
    );
    // Without an entry price, the stop-loss and take-profit are judged against each other.
    expectIssues({ ...market, stop_loss: '1.2', take_profit: '1.1' }, [
      { field: 'stop_loss', message: 'stop_loss of a BUY order must be below its take_profit.' },
    ]);
    expectIssues({ ...market, side: 'SELL', stop_loss: '1.1', take_profit: '1.1' }, [
      { field: 'stop_loss', message: 'stop_loss of a SELL order must be above its take_profit.' },
    ]);
    expectIssues({ ...limit, stop_loss: '1.09', take_profit: '1.12' }, []);
    expectIssues({ ...limit, side: 'SELL', stop_loss: '1.11', take_profit: '1.05' }, []);
    expectIssues({ ...market, stop_loss: '1.05' }, []);
  });

  it('refuses a display quantity above the quantity and a bracket on a reduce-only order', () => {
    expectIssues({ ...limit, display_quantity: '1000.5' }, [
      { field: 'display_quantity', message: 'display_quantity must not exceed quantity.' },
    ]);
    expectIssues({ ...market, reduce_only: true, take_profit: '1.2' }, [
      {
        field: 'reduce_only',
        message: 'A reduce_only order opens no position for stop_loss or take_profit to protect.',
      },
    ]);
    expectIssues({ ...limit, display_quantity: '1000', hidden: true }, []);
  });

  it('limits "not used" conflicts of a modification to the fields it changes', () => {
    const modified = { ...order(limit), stop_price: new Dec('1.2') };
    assert.deepEqual(orderFieldIssues(modified, { stop_price: modified.stop_price }), [
      { field: 'stop_price', message: 'stop_price is not used by LIMIT orders.' },
    ]);
    assert.deepEqual(orderFieldIssues(modified, { quantity: new Dec('5') }), []);
  });
});

describe('SimulationEngine.submit: denials before any order exists', () => {
  const FIRST: [number, number, number, number] = [10000, 10010, 9990, 10005];
  const btc = { symbol: 'C:BTCUSD', side: 'BUY', quantity: '1' } as const;

  it('denies conflicting fields with every conflict, and records nothing', () => {
    const engine = engineFor();
    firstBatch(engine, cursorOf([FIRST, FIRST]));
    const denied = engine.submit(order({ ...btc, order_type: 'STOP_LIMIT' }));
    assert.deepEqual(denied, {
      ok: false,
      code: 'ORDER_FIELDS_CONFLICT',
      // The messages joined, as the gateway's VALIDATION_ERROR message.
      message:
        'limit_price is required for STOP_LIMIT orders.; stop_price is required for STOP_LIMIT orders.',
      issues: [
        { field: 'limit_price', message: 'limit_price is required for STOP_LIMIT orders.' },
        { field: 'stop_price', message: 'stop_price is required for STOP_LIMIT orders.' },
      ],
    });
    assert.deepEqual(engine.listOrders(), []);
    assert.deepEqual(engine.drain(), []);
  });

  it('records an order for an unknown symbol as REJECTED (SYMBOL_NOT_TRADEABLE), conflicts first', () => {
    const engine = engineFor();
    firstBatch(engine, cursorOf([FIRST, FIRST]));
    const unknown = engine.submit(order({ ...btc, symbol: 'F:XXXYYY', order_type: 'MARKET' }));
    assert.ok(unknown.ok && unknown.rejected === 'SYMBOL_NOT_TRADEABLE');
    assert.equal(unknown.order.status, 'REJECTED');
    const conflicting = engine.submit(order({ ...btc, symbol: 'F:XXXYYY', order_type: 'LIMIT' }));
    assert.equal(!conflicting.ok && conflicting.code, 'ORDER_FIELDS_CONFLICT');
  });

  it('denies a bracket already through the market on an entry that fills at once (the setExitLegs rule)', () => {
    // The first bar closes at bid 100.05 / ask 100.07.
    const engine = engineFor();
    firstBatch(engine, cursorOf([FIRST, FIRST]));
    const stop = engine.submit(order({ ...btc, order_type: 'MARKET', stop_loss: '100.05' }));
    assert.deepEqual(stop, {
      ok: false,
      code: 'BRACKET_THROUGH_MARKET',
      message:
        'stop_loss 100.05 of a BUY order that fills at once is already through the market (bid 100.05): its exit would fill at once.',
      field: 'stop_loss',
      provided: '100.05',
      facts: { market: '100.05' },
    });
    const take = engine.submit(order({ ...btc, side: 'SELL', order_type: 'MARKET', take_profit: '100.08' }));
    assert.deepEqual(!take.ok && [take.code, take.field, take.facts], [
      'BRACKET_THROUGH_MARKET',
      'take_profit',
      { market: '100.07' },
    ]);
    // A marketable limit fills at once too; a resting one places its legs only when it fills.
    const marketable = engine.submit(
      order({ ...btc, order_type: 'LIMIT', limit_price: '101', stop_loss: '100.5' }),
    );
    assert.equal(!marketable.ok && marketable.code, 'BRACKET_THROUGH_MARKET');
    assert.deepEqual(engine.listOrders(), [], 'nothing was recorded');
    const resting = engine.submit(
      order({ ...btc, order_type: 'LIMIT', limit_price: '99', stop_loss: '98.9', take_profit: '99.5' }),
    );
    assert.ok(resting.ok && resting.order.status === 'OPEN');
    const protectedEntry = engine.submit(
      order({ ...btc, order_type: 'MARKET', stop_loss: '100.04', take_profit: '100.08' }),
    );
    assert.ok(protectedEntry.ok && protectedEntry.order.status === 'FILLED');
  });
});
