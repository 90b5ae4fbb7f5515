import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec } from '@hindsight/core';
import type { EngineEvent } from '../src/index.ts';
import { order } from './support/commands.ts';
import { cursorOf, engineFor, firstBatch, MINUTE, runAll } from './support/engine-harness.ts';

const orderEvents = (events: EngineEvent[]) =>
  events
    .filter((e) => e.type === 'order')
    .map((e) => [
      e.event,
      (e.order as { status: string; average_fill_price: string | null }).average_fill_price,
    ]);

describe('engine orders at submission and time in force', () => {
  it('fills a limit that is marketable at submission at the current quote, the better price', () => {
    const engine = engineFor();
    const cursor = cursorOf([
      [10000, 10010, 9990, 10005],
      [10005, 10020, 10000, 10010],
    ]);
    firstBatch(engine, cursor);
    // Current ask 100.07; a buy limit at 101 trades now at 100.07.
    const result = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'BUY',
        quantity: '1',
        order_type: 'LIMIT',
        limit_price: '101',
      }),
    );
    assert.ok(result.ok);
    assert.deepEqual(orderEvents(engine.drain()), [
      ['ORDER_CREATED', null],
      ['ORDER_FILLED', '100.07'],
    ]);
  });

  it('refuses a marketable post-only order with POST_ONLY_VIOLATED', () => {
    const engine = engineFor();
    firstBatch(
      engine,
      cursorOf([
        [10000, 10010, 9990, 10005],
        [10005, 10010, 10000, 10005],
      ]),
    );
    const result = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'SELL',
        quantity: '1',
        order_type: 'LIMIT',
        limit_price: '99',
        post_only: true,
      }),
    );
    assert.ok(result.ok && result.rejected === 'POST_ONLY_VIOLATED');
    assert.equal(engine.order(result.order.id)?.status, 'REJECTED');
  });

  it('cancels an IOC that cannot trade at once and fills a marketable FOK whole', () => {
    const engine = engineFor();
    firstBatch(
      engine,
      cursorOf([
        [10000, 10010, 9990, 10005],
        [10005, 10010, 10000, 10005],
      ]),
    );
    const ioc = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'BUY',
        quantity: '1',
        order_type: 'LIMIT',
        limit_price: '99',
        time_in_force: 'IOC',
      }),
    );
    assert.ok(ioc.ok);
    assert.equal(engine.order(ioc.order.id)?.status, 'CANCELLED');
    const fok = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'SELL',
        quantity: '2',
        order_type: 'LIMIT',
        limit_price: '99',
        time_in_force: 'FOK',
      }),
    );
    assert.ok(fok.ok);
    assert.equal(engine.order(fok.order.id)?.status, 'FILLED');
  });

  it('rests a limit until a bar reaches it, and expires a DAY order at the crypto session end', () => {
    const engine = engineFor();
    const cursor = cursorOf([
      [10000, 10010, 9990, 10005], // 23:55
      [10005, 10006, 9950, 9960], // 23:56: bid low 99.50
      [9960, 9970, 9950, 9965], // 23:57
      [9965, 9970, 9960, 9965], // 23:58
      [9965, 9970, 9960, 9965], // 23:59
      [9965, 9970, 9960, 9965], // 00:00 next day
    ]);
    firstBatch(engine, cursor);
    const gtc = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'SELL',
        quantity: '1',
        order_type: 'LIMIT',
        limit_price: '100.06',
      }),
    );
    const day = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'BUY',
        quantity: '1',
        order_type: 'LIMIT',
        limit_price: '90',
        time_in_force: 'DAY',
      }),
    );
    assert.ok(gtc.ok && day.ok);
    engine.drain();
    const events: EngineEvent[] = [];
    for (;;) {
      const step = engine.advance(cursor);
      if (step.kind !== 'events') break;
      events.push(...step.events);
    }
    events.push(...engine.endOfData());
    // The sell limit at 100.06 is reached by the 23:56 bar (bid high 100.06) and fills at its limit.
    assert.equal(engine.order(gtc.order.id)?.status, 'FILLED');
    assert.equal(engine.order(gtc.order.id)?.average_fill_price?.toString(), '100.06');
    assert.ok(events.some((e) => e.type === 'position' && e.event === 'POSITION_OPENED'));
    // The DAY buy limit never fills and expires at 00:00 UTC.
    assert.equal(engine.order(day.order.id)?.status, 'EXPIRED');
    const expired = events.find((e) => e.type === 'order' && e.event === 'ORDER_EXPIRED');
    assert.ok(expired, 'an ORDER_EXPIRED event');
    assert.equal((expired.order as { updated_at: string }).updated_at, '2024-01-02T00:00:00.000Z');
  });
});

describe('engine brackets and one-cancels-other', () => {
  const entry = { symbol: 'C:BTCUSD', side: 'BUY', quantity: '1', order_type: 'MARKET' } as const;

  it('places exit legs on the entry fill and assumes the stop first when a bar touches both', () => {
    const engine = engineFor();
    const cursor = cursorOf([
      [10000, 10010, 9990, 10005],
      [10005, 10010, 10000, 10005],
      [10005, 10600, 9400, 10000], // bid high 106, low 94: both legs touchable
      [10000, 10010, 9990, 10000],
    ]);
    firstBatch(engine, cursor);
    const result = engine.submit(order({ ...entry, stop_loss: '95', take_profit: '105' }));
    assert.ok(result.ok);
    const created = engine.drain().filter((e) => e.event === 'BRACKET_ORDER_CREATED');
    assert.equal(created.length, 2);
    assert.ok(created.every((e) => e.parent_order_id === result.order.id));
    const [stopLeg, takeLeg] = created.map((e) => (e.order as { id: string; order_type: string }).id);
    const events = runAll(engine, cursor);
    assert.equal(engine.order(stopLeg as string)?.status, 'FILLED');
    assert.equal(engine.order(stopLeg as string)?.average_fill_price?.toString(), '95');
    assert.equal(engine.order(takeLeg as string)?.status, 'CANCELLED');
    assert.ok(events.some((e) => e.type === 'position' && e.event === 'POSITION_CLOSED'));
    assert.equal(engine.positions().length, 0);
  });

  it('cancels the stop when the take-profit fills, and cancels both legs when the position is closed otherwise', () => {
    const engine = engineFor();
    const cursor = cursorOf([
      [10000, 10010, 9990, 10005],
      [10005, 10010, 10000, 10005],
      [10005, 10600, 10000, 10500], // reaches the take-profit at 106 only
      [10500, 10510, 10490, 10500],
      [10500, 10510, 10490, 10500],
    ]);
    firstBatch(engine, cursor);
    const first = engine.submit(order({ ...entry, stop_loss: '95', take_profit: '106' }));
    assert.ok(first.ok);
    const [stop1, take1] = engine
      .drain()
      .filter((e) => e.event === 'BRACKET_ORDER_CREATED')
      .map((e) => (e.order as { id: string }).id);
    // Two batches: the 1st bar's candle, then the 2nd bar (the one reaching 106) with its fills.
    assert.equal(engine.advance(cursor).kind, 'events');
    assert.equal(engine.advance(cursor).kind, 'events');
    assert.equal(engine.order(take1 as string)?.status, 'FILLED');
    assert.equal(engine.order(stop1 as string)?.status, 'CANCELLED');

    const second = engine.submit(order({ ...entry, stop_loss: '90', take_profit: '120' }));
    assert.ok(second.ok);
    const legs = engine
      .drain()
      .filter((e) => e.event === 'BRACKET_ORDER_CREATED')
      .map((e) => (e.order as { id: string }).id);
    engine.submit(order({ symbol: 'C:BTCUSD', side: 'SELL', quantity: '1', order_type: 'MARKET' }));
    engine.drain();
    assert.deepEqual(
      legs.map((id) => engine.order(id)?.status),
      ['CANCELLED', 'CANCELLED'],
    );
  });

  it('cancels the other orders of a client OCO group when one fills', () => {
    const engine = engineFor();
    const cursor = cursorOf([
      [10000, 10010, 9990, 10005],
      [10005, 10010, 10000, 10005],
      [10005, 10010, 9800, 9850], // reaches the buy limit at 98.50 only
      [9850, 9860, 9840, 9850],
    ]);
    firstBatch(engine, cursor);
    const low = engine.submit(
      order({
        ...entry,
        order_type: 'LIMIT',
        limit_price: '98.5',
        oco_group_id: 'g1',
      }),
    );
    const high = engine.submit(
      order({ ...entry, order_type: 'STOP', stop_price: '103', oco_group_id: 'g1' }),
    );
    assert.ok(low.ok && high.ok);
    runAll(engine, cursor);
    assert.equal(engine.order(low.order.id)?.status, 'FILLED');
    assert.equal(engine.order(high.order.id)?.status, 'CANCELLED');
  });
});

describe('engine funding', () => {
  it('charges a position open across the 17:00 New York rollover, triple on Wednesday, into the balance', () => {
    // Wednesday 2024-01-03, 17:00 New York = 22:00 UTC (EST).
    const start = Date.parse('2024-01-03T21:57:00Z');
    const engine = engineFor({
      startTime: start,
      endTime: start + 10 * MINUTE,
      funding: { model: 'daily', long_rate: '-0.365', short_rate: '0' },
    });
    const cursor = cursorOf(
      [
        [10000, 10010, 9990, 10000],
        [10000, 10010, 9990, 10000],
        [10000, 10010, 9990, 10000], // 21:59, closes at the 22:00 rollover: bid 100.00
        [10000, 10010, 9990, 10000],
        [10000, 10010, 9990, 10000],
      ],
      start,
    );
    firstBatch(engine, cursor);
    assert.ok(
      engine.submit(order({ symbol: 'C:BTCUSD', side: 'BUY', quantity: '2', order_type: 'MARKET' })).ok,
    );
    runAll(engine, cursor);
    // Bought 2 at the ask 100.02; funding = 2 x 100.00 (bid) x -0.365 x 3 / 365 = -0.6.
    const account = engine.accountView();
    assert.equal(account.balance, '99999.4');
  });
});

describe('engine margin', () => {
  /** An engine after two bars at bid 100.00 / ask 100.02 (crypto, 2:1, 100,000 USD). */
  const engineAtBid100 = () => {
    const engine = engineFor();
    firstBatch(
      engine,
      cursorOf([
        [10000, 10010, 9990, 10000],
        [10000, 10010, 9990, 10000],
      ]),
    );
    return engine;
  };

  it('refuses an order whose margin exceeds the free margin, and reports margin used', () => {
    const engine = engineAtBid100();
    // Crypto 2:1. 3000 x 100.02 = 300,060 USD needs 150,030 of margin > 100,000 of equity.
    const tooBig = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'BUY',
        quantity: '3000',
        order_type: 'MARKET',
      }),
    );
    assert.ok(tooBig.ok && tooBig.rejected === 'INSUFFICIENT_MARGIN');
    const fits = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'BUY',
        quantity: '1000',
        order_type: 'MARKET',
      }),
    );
    assert.ok(fits.ok && !fits.rejected);
    // 1000 long marked at the bid 100.00: 100,000 / 2 = 50,000 of margin.
    assert.equal(engine.accountView().margin_used, '50000');
    // Reversing to short 1000 frees the long's margin first, so it fits too.
    const reverse = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'SELL',
        quantity: '2000',
        order_type: 'MARKET',
      }),
    );
    assert.ok(reverse.ok && !reverse.rejected);
  });

  it('lets a netting reversal use exactly the margin its position frees, not a cent more', () => {
    const engine = engineAtBid100();
    assert.ok(
      engine.submit(order({ symbol: 'C:BTCUSD', side: 'BUY', quantity: '1000', order_type: 'MARKET' })).ok,
    );
    // Selling frees the long's whole margin; the units beyond it sell at the bid 100.00 at 2:1, so the
    // largest reversal uses all the equity as margin: 1000 + equity x 2 / 100.00.
    const largest = new Dec(engine.accountView().equity).times(2).div(100).plus(1000);
    const sell = (quantity: Dec) =>
      engine.submit(
        order({
          symbol: 'C:BTCUSD',
          side: 'SELL',
          quantity: quantity.toFixed(),
          order_type: 'MARKET',
        }),
      );
    const over = sell(largest.plus('0.01'));
    assert.ok(over.ok && over.rejected === 'INSUFFICIENT_MARGIN');
    const exact = sell(largest);
    assert.ok(exact.ok && !exact.rejected);
  });
});
