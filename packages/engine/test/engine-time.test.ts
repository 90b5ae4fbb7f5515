import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { type EngineConfig, SimulationEngine } from '../src/index.ts';
import { isoTime } from '../src/numbers/iso-time.ts';
import { changes, order } from './support/commands.ts';
import { cursorAt, runAll } from './support/engine-harness.ts';

const engine = (extra: Partial<EngineConfig> = {}) =>
  new SimulationEngine(
    {
      instruments: [
        { symbol: 'C:BTCUSD', market: 'CRYPTO', underlying: 'BTC', denomination: 'USD', calendar: 'utc' },
      ],
      subscriptions: [
        { instrument: 'C:BTCUSD', timeframes: ['1m'], updates: ['order_update', 'trade_update'] },
      ],
      startTime: Date.parse('2024-01-03T21:55:00Z'),
      endTime: Date.parse('2024-01-03T22:10:00Z'),
      positionMode: 'netting',
      initialCapital: '100000',
      assertIdentity: true,
      ...extra,
    },
    ['C:BTCUSD'],
  );

const bar = (
  t: string,
  o: number,
  h: number,
  l: number,
  c: number,
): [string, number, number, number, number] => [`2024-01-03T${t}:00Z`, o, h, l, c];
// Wednesday 2024-01-03 22:00 UTC is the 17:00 New York rollover, charged 3 days.
const FUNDING = { funding: { model: 'daily' as const, long_rate: '-0.365', short_rate: '0' } };

describe('engine time across holes in the data', () => {
  it('charges a rollover that falls in a hole at the last quote before it', () => {
    const e = engine(FUNDING);
    const c = cursorAt([
      bar('21:57', 10000, 10010, 9990, 10000),
      bar('21:58', 10000, 10010, 9990, 10000),
      // No 21:59 bar: the 22:00 rollover is in the hole.
      bar('22:00', 15000, 15000, 15000, 15000),
      bar('22:01', 15000, 15000, 15000, 15000),
    ]);
    e.advance(c);
    e.submit(order({ symbol: 'C:BTCUSD', side: 'BUY', quantity: '2', order_type: 'MARKET' }));
    runAll(e, c);
    // 2 x 100.00 (the bid before the hole) x -0.365 x 3 / 365 = -0.6.
    assert.equal(e.accountView().balance, '99999.4');
  });

  it('charges a position open across the rollover even when the first bar after the hole closes it', () => {
    const e = engine(FUNDING);
    const c = cursorAt([
      bar('21:57', 10000, 10010, 9990, 10000),
      bar('21:58', 10000, 10010, 9990, 10000),
      bar('22:00', 10000, 10500, 10000, 10000),
      bar('22:01', 10000, 10000, 10000, 10000),
    ]);
    e.advance(c);
    e.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'BUY',
        quantity: '2',
        order_type: 'MARKET',
        take_profit: '105',
      }),
    );
    runAll(e, c);
    // Bought 2 at 100.02, sold at 105: +9.96, less the 0.6 of funding at 22:00.
    assert.equal(e.accountView().balance, '100009.36');
  });

  it('expires a DAY order at its session end inside a hole, before the next bar can fill it', () => {
    const e = engine({
      startTime: Date.parse('2024-01-03T23:55:00Z'),
      endTime: Date.parse('2024-01-04T00:10:00Z'),
    });
    const c = cursorAt([
      ['2024-01-03T23:56:00Z', 10000, 10010, 9990, 10000],
      ['2024-01-03T23:57:00Z', 10000, 10010, 9990, 10000],
      ['2024-01-04T00:00:00Z', 10000, 10000, 9000, 9000],
      ['2024-01-04T00:01:00Z', 9000, 9000, 9000, 9000],
    ]);
    e.advance(c);
    const r = e.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'BUY',
        quantity: '1',
        order_type: 'LIMIT',
        limit_price: '95',
        time_in_force: 'DAY',
      }),
    );
    runAll(e, c);
    assert.ok(r.ok);
    assert.equal(e.order(r.order.id)?.status, 'EXPIRED');
  });

  it('stamps events of a bar with the bar close, so updated_at never goes back', () => {
    const e = engine();
    const c = cursorAt([
      bar('21:57', 10000, 10010, 9990, 10000),
      bar('21:58', 10000, 10010, 9990, 10000),
      bar('21:59', 10000, 10000, 9000, 9000),
      bar('22:00', 9000, 9000, 9000, 9000),
    ]);
    e.advance(c);
    e.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'BUY',
        quantity: '1',
        order_type: 'MARKET',
        stop_loss: '95',
        take_profit: '110',
      }),
    );
    e.drain();
    const orderEvents = runAll(e, c).filter((x) => x.type === 'order');
    assert.deepEqual(
      orderEvents.map((x) => [x.event, x.timestamp, (x.order as { updated_at: string }).updated_at]),
      [
        ['ORDER_FILLED', '2024-01-03T22:00:00.000Z', '2024-01-03T22:00:00.000Z'],
        ['ORDER_CANCELLED', '2024-01-03T22:00:00.000Z', '2024-01-03T22:00:00.000Z'],
      ],
    );
  });
});

describe('engine refusals found by the property tests', () => {
  it('refuses brackets on a hedging order aimed at a position (it opens nothing to protect)', () => {
    const e = engine({ positionMode: 'hedging' });
    e.advance(cursorAt([bar('21:57', 10000, 10010, 9990, 10000), bar('21:58', 10000, 10010, 9990, 10000)]));
    e.submit(order({ symbol: 'C:BTCUSD', side: 'BUY', quantity: '1', order_type: 'MARKET' }));
    const [position] = e.positions();
    const r = e.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'SELL',
        quantity: '1',
        order_type: 'MARKET',
        position_id: position?.id,
        take_profit: '90',
      }),
    );
    assert.equal(!r.ok && r.code, 'BRACKET_ON_POSITION_TARGET');
    assert.equal(e.positions().length, 1, 'nothing was placed');
  });

  it('refuses to enlarge an exit leg past its position', () => {
    const e = engine();
    e.advance(cursorAt([bar('21:57', 10000, 10010, 9990, 10000), bar('21:58', 10000, 10010, 9990, 10000)]));
    const r = e.submit(
      order({
        symbol: 'C:BTCUSD',
        side: 'BUY',
        quantity: '1',
        order_type: 'MARKET',
        stop_loss: '90',
      }),
    );
    assert.ok(r.ok);
    const leg = e.listOrders().find((o) => o.parent_order_id === r.order.id)?.id as string;
    const m = e.modify(leg, changes({ quantity: '5' }));
    assert.equal(!m.ok && m.code, 'LEG_EXCEEDS_POSITION');
    assert.deepEqual(!m.ok && [m.field, m.provided, m.facts], ['quantity', '5', { max_quantity: '1' }]);
    assert.equal(e.order(leg)?.quantity.toString(), '1');
  });
});

describe('event timestamps', () => {
  it('write every time as Date#toISOString does, in any order and repeated', () => {
    const minute = 60_000;
    const time = fc.oneof(
      fc.integer({ min: 0, max: 4_000_000 }).map((m) => Date.parse('2020-01-01T00:00:00Z') + m * minute),
      fc.integer({ min: -(10 ** 13), max: 2.5 * 10 ** 14 }),
      fc.constantFrom(0, -minute, 253_402_300_740_000, 253_402_300_800_000),
    );
    fc.assert(
      fc.property(fc.array(time, { maxLength: 20 }), (times) => {
        for (const ms of [...times, ...times.slice(0, 3)])
          assert.equal(isoTime(ms), new Date(ms).toISOString());
      }),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 300) },
    );
  });
});
