import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  EngineConfigError,
  type EngineEvent,
  encodeResultFiles,
  type SimulationEngine,
} from '../src/index.ts';
import { changes, close, legs, type OrderFields, order } from './support/commands.ts';
import { cursorOf, engineFor, firstBatch, runAll } from './support/engine-harness.ts';

/** Bars in cents, ask = bid + 0.02: the first closes at bid 100.05 / ask 100.07. */
const FIRST: [number, number, number, number] = [10000, 10010, 9990, 10005];
const QUIET: [number, number, number, number] = [10005, 10010, 10000, 10005];

const ALL_UPDATES = {
  subscriptions: [
    {
      instrument: 'C:BTCUSD',
      timeframes: ['1m'] as const,
      updates: ['order_update', 'position_update', 'trade_update', 'account_update'] as const,
    },
  ],
};

const orderTrail = (events: EngineEvent[]) =>
  events
    .filter((e) => e.type === 'order')
    .map((e) => {
      const order = e.order as { id: string; status: string; quantity: string; filled_quantity: string };
      return [e.event, order.id, order.status, order.quantity, order.filled_quantity];
    });

function submitted(engine: SimulationEngine, fields: Omit<OrderFields, 'symbol'>): string {
  const result = engine.submit(order({ symbol: 'C:BTCUSD', ...fields }));
  assert.ok(result.ok, JSON.stringify(result));
  return result.order.id;
}

describe('engine cancel and modify', () => {
  it('cancels a live order once; unknown ids are not found and terminal orders are not modifiable', () => {
    const engine = engineFor();
    firstBatch(engine, cursorOf([FIRST, QUIET]));
    assert.deepEqual(engine.cancel('ord-404'), {
      ok: false,
      code: 'UNKNOWN_ORDER',
      message: 'There is no order ord-404.',
      provided: 'ord-404',
    });
    const id = submitted(engine, { side: 'BUY', quantity: '1', order_type: 'LIMIT', limit_price: '90' });
    const cancelled = engine.cancel(id);
    assert.ok(cancelled.ok);
    assert.equal(cancelled.order.status, 'CANCELLED');
    const again = engine.cancel(id);
    assert.equal(again.ok, false);
    assert.equal(!again.ok && again.code, 'ORDER_NOT_MODIFIABLE');
    const modify = engine.modify(id, changes({ limit_price: '91' }));
    assert.equal(!modify.ok && modify.code, 'ORDER_NOT_MODIFIABLE');
  });

  it('moves a resting limit in place (same id) and fills it at the new price', () => {
    const engine = engineFor();
    const cursor = cursorOf([FIRST, QUIET, [10000, 10000, 9900, 9950], QUIET]);
    firstBatch(engine, cursor);
    const id = submitted(engine, { side: 'BUY', quantity: '1', order_type: 'LIMIT', limit_price: '98' });
    const result = engine.modify(id, changes({ limit_price: '99.5', quantity: '2' }));
    assert.ok(result.ok);
    assert.equal(result.previousOrderId, undefined, 'modified in place, not cancel-replace');
    assert.equal(result.order.id, id);
    assert.equal(result.order.limit_price?.toString(), '99.5');
    assert.deepEqual(orderTrail(engine.drain()).at(-1), ['ORDER_MODIFIED', id, 'OPEN', '2', '0']);
    // Bar 3: ask opens 100.02, falls to 99.02: the buy limit at 99.5 fills at 99.5 (the old 98 would not).
    const events = runAll(engine, cursor);
    const fill = events.find((e) => e.type === 'order' && e.event === 'ORDER_FILLED');
    assert.ok(fill);
    assert.equal((fill.order as { average_fill_price: string }).average_fill_price, '99.5');
    assert.equal(engine.positions()[0]?.view.quantity, '2');
  });

  it('trades a modification that makes the order marketable at the current quote; post-only refuses it', () => {
    const engine = engineFor();
    firstBatch(engine, cursorOf([FIRST, QUIET]));
    const posted = submitted(engine, {
      side: 'BUY',
      quantity: '1',
      order_type: 'LIMIT',
      limit_price: '99',
      post_only: true,
    });
    const refused = engine.modify(posted, changes({ limit_price: '101' }));
    assert.equal(!refused.ok && refused.code, 'POST_ONLY_WOULD_TRADE');
    assert.deepEqual(!refused.ok && [refused.field, refused.provided], ['limit_price', '101']);
    assert.equal(engine.order(posted)?.limit_price?.toString(), '99', 'left unchanged');

    const plain = submitted(engine, { side: 'BUY', quantity: '1', order_type: 'LIMIT', limit_price: '99' });
    engine.drain();
    const traded = engine.modify(plain, changes({ limit_price: '101' }));
    assert.ok(traded.ok);
    assert.equal(traded.order.status, 'FILLED');
    // The current ask is 100.07: a buy limit moved to 101 trades there, the better price.
    assert.equal(traded.order.average_fill_price?.toString(), '100.07');
    assert.deepEqual(
      orderTrail(engine.drain()).map((e) => e[0]),
      ['ORDER_MODIFIED', 'ORDER_FILLED'],
    );
  });

  it('denies modifications the order cannot take: a price its type does not use, an unknown id', () => {
    const engine = engineFor();
    firstBatch(engine, cursorOf([FIRST, QUIET]));
    const id = submitted(engine, { side: 'BUY', quantity: '1', order_type: 'LIMIT', limit_price: '90' });
    engine.drain();
    const unused = engine.modify(id, changes({ stop_price: '95' }));
    assert.deepEqual(!unused.ok && [unused.code, unused.issues], [
      'ORDER_FIELDS_CONFLICT',
      [{ field: 'stop_price', message: 'stop_price is not used by LIMIT orders.' }],
    ]);
    assert.equal(!unused.ok && unused.message, 'stop_price is not used by LIMIT orders.');
    const unknown = engine.modify('nope', changes({ quantity: '1' }));
    assert.deepEqual(!unknown.ok && [unknown.code, unknown.provided], ['UNKNOWN_ORDER', 'nope']);
    // A modification that changes nothing is the order as it is, and tells nobody.
    const before = engine.order(id);
    const same = engine.modify(id, changes({}));
    assert.ok(same.ok && same.order === before);
    assert.deepEqual(engine.drain(), []);
  });

  it('denies a quantity below the filled quantity and a PERCENT trailing distance of 100 or more', () => {
    const engine = engineFor();
    firstBatch(engine, cursorOf([FIRST, QUIET]));
    const trail = submitted(engine, {
      side: 'SELL',
      quantity: '1',
      order_type: 'TRAILING_STOP',
      trailing_distance: '1',
      trailing_type: 'PERCENT',
    });
    const far = engine.modify(trail, changes({ trailing_distance: '100' }));
    assert.deepEqual(!far.ok && [far.code, far.field, far.provided, far.message], [
      'TRAILING_DISTANCE_TOO_LARGE',
      'trailing_distance',
      '100',
      'A PERCENT trailing_distance must be below 100.',
    ]);
    assert.ok(engine.modify(trail, changes({ trailing_distance: '99.5' })).ok);
    const tooFar = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'SELL',
        quantity: '1',
        order_type: 'TRAILING_STOP',
        trailing_distance: '100',
        trailing_type: 'PERCENT',
      }),
    );
    assert.equal(!tooFar.ok && tooFar.code, 'TRAILING_DISTANCE_TOO_LARGE');
  });
});

describe('engine reduce-only and position targeting', () => {
  it('rejects a reduce-only order with nothing to reduce, and trims one larger than the position', () => {
    const engine = engineFor();
    firstBatch(engine, cursorOf([FIRST, QUIET]));
    const refused = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'SELL',
        quantity: '1',
        order_type: 'MARKET',
        reduce_only: true,
      }),
    );
    assert.ok(refused.ok && refused.rejected === 'REDUCE_ONLY_VIOLATED');

    submitted(engine, { side: 'BUY', quantity: '1', order_type: 'MARKET' });
    engine.drain();
    const trimmed = submitted(engine, {
      side: 'SELL',
      quantity: '3',
      order_type: 'MARKET',
      reduce_only: true,
    });
    assert.deepEqual(orderTrail(engine.drain()), [
      ['ORDER_CREATED', trimmed, 'PENDING', '3', '0'],
      ['ORDER_PARTIALLY_FILLED', trimmed, 'PARTIALLY_FILLED', '3', '1'],
      ['ORDER_CANCELLED', trimmed, 'CANCELLED', '3', '1'],
    ]);
    assert.deepEqual(engine.positions(), [], 'flat, never short');
  });

  it('hedging: position_id closes that position only; a wrong target is denied', () => {
    const engine = engineFor({ positionMode: 'hedging' });
    firstBatch(engine, cursorOf([FIRST, QUIET]));
    submitted(engine, { side: 'BUY', quantity: '1', order_type: 'MARKET' });
    submitted(engine, { side: 'BUY', quantity: '2', order_type: 'MARKET' });
    const [first, second] = engine.positions();
    assert.ok(first && second);
    submitted(engine, { side: 'SELL', quantity: '5', order_type: 'MARKET', position_id: first.id });
    assert.deepEqual(
      engine.positions().map((p) => [p.id, p.view.quantity]),
      [[second.id, '2']],
    );
    const sameSide = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'BUY',
        quantity: '1',
        order_type: 'MARKET',
        position_id: second.id,
      }),
    );
    assert.equal(!sameSide.ok && sameSide.code, 'POSITION_TARGET_MISMATCH');
    assert.deepEqual(!sameSide.ok && [sameSide.field, sameSide.provided], ['position_id', second.id]);
    const gone = engine.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'SELL',
        quantity: '1',
        order_type: 'MARKET',
        position_id: first.id,
      }),
    );
    assert.match(!gone.ok ? gone.message : '', /is not an open position/);
  });

  it('hedging: an order with position_id is refused stop_loss/take_profit by modify as at submission', () => {
    // Short 1 (pos A) and long 1 (pos B); a BUY LIMIT 99 aimed at A rests below the ask 100.07.
    const engine = engineFor({ positionMode: 'hedging' });
    const cursor = cursorOf([FIRST, [10005, 10010, 9800, 10005]]);
    firstBatch(engine, cursor);
    submitted(engine, { side: 'SELL', quantity: '1', order_type: 'MARKET' });
    submitted(engine, { side: 'BUY', quantity: '1', order_type: 'MARKET' });
    const [short, long] = engine.positions();
    assert.ok(short?.side === 'SHORT' && long?.side === 'LONG');
    const id = submitted(engine, {
      side: 'BUY',
      quantity: '1',
      order_type: 'LIMIT',
      limit_price: '99',
      position_id: short.id,
    });
    engine.drain();
    const before = engine.order(id);
    // A take-profit would place a SELL leg when the order closes A: a leg with no LONG position of its own.
    const modify = engine.modify(id, changes({ take_profit: '105' }));
    const message =
      'An order with position_id reduces that position and opens none for take_profit to protect.';
    assert.deepEqual(modify, {
      ok: false,
      code: 'BRACKET_ON_POSITION_TARGET',
      message,
      field: 'take_profit',
      provided: '105',
    });
    assert.equal(engine.order(id), before, 'the order is unchanged');
    assert.deepEqual(engine.drain(), []);
    // The next bar's ask low 98.02 fills the limit at 99: A is closed, B is untouched, no leg is placed.
    runAll(engine, cursor);
    assert.equal(engine.order(id)?.status, 'FILLED');
    assert.deepEqual(
      engine.positions().map((p) => [p.id, p.side, p.view.quantity]),
      [[long.id, 'LONG', '1']],
    );
    assert.deepEqual(
      engine.listOrders().filter((o) => o.parent_order_id !== null),
      [],
    );
  });
});

describe('engine position close and exit legs', () => {
  const bracketEntry = {
    side: 'BUY',
    quantity: '2',
    order_type: 'MARKET',
    stop_loss: '95',
    take_profit: '110',
  } as const;

  it('a partial close keeps the legs and shrinks them; a full close cancels them', () => {
    const engine = engineFor(ALL_UPDATES);
    firstBatch(engine, cursorOf([FIRST, QUIET]));
    submitted(engine, bracketEntry);
    const legs = orderTrail(engine.drain()).filter((e) => e[0] === 'BRACKET_ORDER_CREATED');
    assert.deepEqual(
      legs.map((l) => l[3]),
      ['2', '2'],
    );
    const [position] = engine.positions();
    assert.ok(position);
    const partial = engine.closePosition(
      position.id,
      close({ quantity: '0.5', cancel_associated_orders: false }),
    );
    assert.ok(partial.ok && partial.order.status === 'FILLED');
    const resized = orderTrail(engine.drain()).filter((e) => e[0] === 'BRACKET_ORDER_MODIFIED');
    assert.deepEqual(
      resized.map((e) => [e[1], e[3]]),
      legs.map((l) => [l[1], '1.5']),
    );
    assert.equal(engine.position(position.id)?.view.quantity, '1.5');

    const full = engine.closePosition(position.id);
    assert.ok(full.ok);
    const trail = orderTrail(engine.drain());
    assert.deepEqual(
      trail.filter((e) => e[0] === 'ORDER_CANCELLED').map((e) => e[1]),
      legs.map((l) => l[1]),
      'legs cancelled before the close order',
    );
    assert.deepEqual(engine.positions(), []);
    assert.deepEqual(
      engine.trades().map((t) => [t.side, t.quantity, t.price]),
      [
        ['BUY', '2', '100.07'],
        ['SELL', '0.5', '100.05'],
        ['SELL', '1.5', '100.05'],
      ],
    );
    assert.deepEqual(engine.quote('C:BTCUSD'), {
      bid: '100.05',
      ask: '100.07',
      time: Date.parse('2024-01-01T23:56:00Z'),
    });
  });

  it('closes with a LIMIT that rests until reached; denies an unknown position or too large a close', () => {
    const engine = engineFor();
    const cursor = cursorOf([FIRST, QUIET, [10005, 10300, 10000, 10250]]);
    firstBatch(engine, cursor);
    submitted(engine, { side: 'BUY', quantity: '1', order_type: 'MARKET' });
    const [position] = engine.positions();
    assert.ok(position);
    engine.drain();
    const unknown = engine.closePosition('pos-x');
    assert.deepEqual(!unknown.ok && [unknown.code, unknown.provided], ['POSITION_NOT_FOUND', 'pos-x']);
    const tooMuch = engine.closePosition(position.id, close({ quantity: '2' }));
    assert.deepEqual(!tooMuch.ok && [tooMuch.code, tooMuch.field, tooMuch.provided, tooMuch.facts], [
      'CLOSE_EXCEEDS_POSITION',
      'quantity',
      '2',
      { position_quantity: '1' },
    ]);
    assert.deepEqual(engine.drain(), [], 'a denied close changes nothing');
    const closing = engine.closePosition(position.id, close({ order_type: 'LIMIT', limit_price: '102' }));
    assert.ok(closing.ok && closing.order.status === 'OPEN');
    assert.equal(engine.order(closing.order.id)?.reduce_only, true);
    runAll(engine, cursor);
    assert.equal(engine.order(closing.order.id)?.status, 'FILLED');
    assert.equal(engine.order(closing.order.id)?.average_fill_price?.toString(), '102');
    assert.deepEqual(engine.positions(), []);
  });

  it('moves exit legs in place; denies a move through the market, a missing leg, an unknown position', () => {
    const engine = engineFor();
    firstBatch(engine, cursorOf([FIRST, QUIET]));
    submitted(engine, { side: 'BUY', quantity: '1', order_type: 'MARKET', stop_loss: '95' });
    const [position] = engine.positions();
    assert.ok(position);
    const stopId = engine.listOrders().find((o) => o.parent_order_id !== null)?.id as string;
    engine.drain();

    const moved = engine.setExitLegs(position.id, legs({ stop_loss: '97' }));
    assert.deepEqual(moved, {
      ok: true,
      position_id: position.id,
      stop_loss: { order_ids: [stopId], trigger_price: '97' },
      take_profit: null,
    });
    assert.deepEqual(orderTrail(engine.drain()), [['BRACKET_ORDER_MODIFIED', stopId, 'OPEN', '1', '0']]);

    const through = engine.setExitLegs(position.id, legs({ stop_loss: '100.5' }));
    assert.deepEqual(!through.ok && [through.code, through.provided, through.facts], [
      'EXIT_LEG_THROUGH_MARKET',
      '100.5',
      { leg: 'stop_loss', market: '100.05' },
    ]);
    assert.equal(engine.order(stopId)?.stop_price?.toString(), '97', 'the original leg is kept');
    const missing = engine.setExitLegs(position.id, legs({ take_profit: '120' }));
    assert.equal(!missing.ok && missing.code, 'EXIT_LEG_NOT_FOUND');
    const unknown = engine.setExitLegs('pos-x', legs({ stop_loss: '90' }));
    assert.equal(!unknown.ok && unknown.code, 'POSITION_NOT_FOUND');
    assert.deepEqual(orderTrail(engine.drain()), [], 'denied moves change nothing');
  });

  it('a reversal cancels the legs of the position it closed', () => {
    const engine = engineFor();
    firstBatch(engine, cursorOf([FIRST, QUIET]));
    submitted(engine, { side: 'BUY', quantity: '1', order_type: 'MARKET', stop_loss: '95' });
    submitted(engine, { side: 'SELL', quantity: '3', order_type: 'MARKET' });
    const legs = engine.listOrders().filter((o) => o.parent_order_id !== null);
    assert.deepEqual(
      legs.map((o) => o.status),
      ['CANCELLED'],
    );
    assert.equal(engine.positions()[0]?.view.side, 'SHORT');
  });
});

describe('engine margin events and stop-out', () => {
  it('warns, calls, then liquidates at market with close reason Liquidation and an error event', () => {
    // Crypto 2:1. 1900 units bought at 100.07 use 95,066.50 of margin on 100,000 of capital.
    const engine = engineFor({ ...ALL_UPDATES, assertIdentity: true });
    const cursor = cursorOf([
      FIRST,
      [10005, 10010, 9990, 10000],
      [10000, 10000, 9300, 9400],
      [9400, 9400, 5900, 6000],
      [6000, 6000, 6000, 6000],
    ]);
    firstBatch(engine, cursor);
    submitted(engine, { side: 'BUY', quantity: '1900', order_type: 'MARKET' });
    const events = runAll(engine, cursor);
    const alerts = events
      .filter((e) => (e.type === 'account' && e.event !== 'BALANCE_UPDATED') || e.type === 'error')
      .map((e) => [e.type === 'error' ? e.code : e.event, e.timestamp]);
    // At bid 100.00 equity 99,867 / margin 95,000 = 105 %: warning (<= 150 %). At 94.00: 88,467 /
    // 89,300 = 99 %: call (<= 100 %). At 60.00: 23,867 / 57,000 = 41.9 %: stop-out (<= 50 %).
    assert.deepEqual(alerts, [
      ['MARGIN_WARNING', '2024-01-01T23:57:00.000Z'],
      ['MARGIN_CALL', '2024-01-01T23:58:00.000Z'],
      // Entering stop-out is a worse state again: one more MARGIN_CALL, then the liquidation.
      ['MARGIN_CALL', '2024-01-01T23:59:00.000Z'],
      ['LIQUIDATION', '2024-01-01T23:59:00.000Z'],
    ]);
    const liquidation = events.find((e) => e.type === 'error');
    assert.deepEqual(liquidation?.details, {
      position_id: 'pos-000000001',
      symbol: 'C:BTCUSD',
      side: 'LONG',
      quantity: '1900',
      order_id: 'ord-000000002',
      margin_level_pct: '41.87',
    });
    assert.deepEqual(engine.positions(), []);
    const { trades } = engine.results().trades;
    assert.equal(trades.length, 1);
    assert.equal(trades[0]?.close_reason, 'Liquidation');
    // 1900 x (60.00 - 100.07) = -76,133.
    assert.equal(trades[0]?.realized_pnl, '-76133');
    assert.equal(engine.accountView().balance, '23867');
    assert.ok(encodeResultFiles(engine.results()));
  });
});

describe('engine volume participation', () => {
  // Every bar trades 4 units; at 50 % participation fills may take 2 units of each bar.
  const limited = { ...ALL_UPDATES, maxVolumeParticipation: '0.5' };
  const bars = (n: number) => cursorOf([FIRST, ...Array.from({ length: n }, () => QUIET)], undefined, 4);
  const fills = (engine: SimulationEngine) => engine.trades().map((t) => [t.quantity, t.price, t.timestamp]);

  it('fills a market order across bars: what the last bar allows now, the rest at the next opens', () => {
    const engine = engineFor(limited);
    const cursor = bars(3);
    firstBatch(engine, cursor);
    const id = submitted(engine, { side: 'BUY', quantity: '5', order_type: 'MARKET' });
    assert.equal(engine.order(id)?.status, 'PARTIALLY_FILLED');
    runAll(engine, cursor);
    // At submission: 2 at the ask close 100.07; then 2 and 1 at the next bars' ask opens 100.07.
    assert.deepEqual(fills(engine), [
      ['2', '100.07', '2024-01-01T23:56:00.000Z'],
      ['2', '100.07', '2024-01-01T23:57:00.000Z'],
      ['1', '100.07', '2024-01-01T23:58:00.000Z'],
    ]);
    assert.equal(engine.order(id)?.status, 'FILLED');
    assert.equal(engine.positions()[0]?.view.quantity, '5');
  });

  it('IOC takes what the volume allows and cancels the rest; FOK fills whole or not at all', () => {
    const engine = engineFor(limited);
    firstBatch(engine, bars(1));
    const ioc = submitted(engine, { side: 'BUY', quantity: '5', order_type: 'MARKET', time_in_force: 'IOC' });
    assert.equal(engine.order(ioc)?.status, 'CANCELLED');
    assert.equal(engine.order(ioc)?.filled_quantity.toString(), '2');
    // The bar's 2 units are taken: a FOK for 1 more cannot fill.
    const fokNone = submitted(engine, {
      side: 'BUY',
      quantity: '1',
      order_type: 'MARKET',
      time_in_force: 'FOK',
    });
    assert.equal(engine.order(fokNone)?.status, 'CANCELLED');
    assert.equal(engine.order(fokNone)?.filled_quantity.toString(), '0');
    assert.deepEqual(
      fills(engine).map((f) => f[0]),
      ['2'],
    );
  });

  it('grows the exit legs with each fill of the entry', () => {
    const engine = engineFor(limited);
    const cursor = bars(2);
    firstBatch(engine, cursor);
    submitted(engine, {
      side: 'BUY',
      quantity: '4',
      order_type: 'MARKET',
      stop_loss: '90',
      take_profit: '120',
    });
    const first = orderTrail(engine.drain()).filter((e) => String(e[0]).startsWith('BRACKET'));
    assert.deepEqual(
      first.map((e) => [e[0], e[3]]),
      [
        ['BRACKET_ORDER_CREATED', '2'],
        ['BRACKET_ORDER_CREATED', '2'],
      ],
    );
    const later = orderTrail(runAll(engine, cursor)).filter((e) => String(e[0]).startsWith('BRACKET'));
    assert.deepEqual(
      later.map((e) => [e[0], e[1], e[3]]),
      first.map((e) => ['BRACKET_ORDER_MODIFIED', e[1], '4']),
    );
  });

  it('a stop filled in part goes on as a market order at the next open', () => {
    const engine = engineFor(limited);
    const cursor = cursorOf(
      [FIRST, QUIET, [10005, 10300, 10000, 10200], [10200, 10250, 10150, 10200]],
      undefined,
      4,
    );
    firstBatch(engine, cursor);
    const id = submitted(engine, { side: 'BUY', quantity: '4', order_type: 'STOP', stop_price: '101' });
    runAll(engine, cursor);
    // Bar 3's ask rises through 101: 2 units at the stop; bar 4: the other 2 at its ask open 102.02.
    assert.deepEqual(
      fills(engine).map((f) => [f[0], f[1]]),
      [
        ['2', '101'],
        ['2', '102.02'],
      ],
    );
    assert.equal(engine.order(id)?.status, 'FILLED');
  });

  it('refuses a participation outside (0, 1]', () => {
    assert.throws(
      () => engineFor({ maxVolumeParticipation: '0' }),
      /maxVolumeParticipation must be in \(0, 1\]/,
    );
    assert.throws(() => engineFor({ maxVolumeParticipation: '1.5' }), EngineConfigError);
  });

  it('refuses at start an instrument whose currency cannot be converted to USD', () => {
    const eurjpy = {
      symbol: 'F:EURJPY',
      market: 'FOREX',
      underlying: 'EUR',
      denomination: 'JPY',
      calendar: 'fx',
    } as const;
    assert.throws(
      () => engineFor({ instruments: [eurjpy], subscriptions: [] }),
      (error: Error) =>
        error instanceof EngineConfigError &&
        error.message ===
          'F:EURJPY is quoted in JPY, which cannot be converted to USD: the scenario needs a USDJPY or JPYUSD instrument for the rate.',
    );
  });
});
