import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Dec, toDecimalString } from '@hindsight/core';
import {
  DEFAULT_LEVERAGE,
  effectiveLeverage,
  exposureDelta,
  liquidationOrder,
  MAX_LEVERAGE,
  marginAvailable,
  marginEvent,
  marginLevelPct,
  marginState,
  releasedMargin,
  requiredMargin,
  stopOutPlan,
  totalMargin,
  wouldExceedMargin,
} from '../src/models/margin.ts';
import { ASSET_CLASSES, assetClassOf } from '../src/orders/order-types.ts';

const d = (v: string | number) => new Dec(v);
const s = (v: Dec | null) => (v === null ? null : toDecimalString(v));

describe('leverage', () => {
  it('defaults per asset class, the capability max being the largest', () => {
    assert.deepEqual(DEFAULT_LEVERAGE, { STOCK: '4', FOREX: '50', CRYPTO: '2', FUTURES: '10' });
    const largest = ASSET_CLASSES.map((c) => d(DEFAULT_LEVERAGE[c])).reduce((a, b) => Dec.max(a, b));
    assert.equal(s(largest), MAX_LEVERAGE);
    assert.deepEqual((['CRYPTO', 'FOREX', 'FUTURES', 'STOCKS'] as const).map(assetClassOf), [
      'CRYPTO',
      'FOREX',
      'FUTURES',
      'STOCK',
    ]);
  });

  it('lets an order lower its leverage but never raise it', () => {
    assert.equal(s(effectiveLeverage('CRYPTO')), '2');
    assert.equal(s(effectiveLeverage('CRYPTO', null)), '2');
    assert.equal(s(effectiveLeverage('CRYPTO', '10')), '2');
    assert.equal(s(effectiveLeverage('CRYPTO', '1')), '1');
    assert.equal(s(effectiveLeverage('CRYPTO', d('1.5'))), '1.5');
    assert.equal(s(effectiveLeverage('FOREX', '20')), '20');
    assert.equal(s(effectiveLeverage('FOREX', '50')), '50');
    assert.equal(s(effectiveLeverage('STOCK', '5')), '4');
    assert.equal(s(effectiveLeverage('FUTURES')), '10');
  });
});

describe('margin amounts', () => {
  it('requires |notional| / leverage', () => {
    assert.equal(s(requiredMargin(d(100000), '50')), '2000');
    assert.equal(s(requiredMargin(d(-100000), d(50))), '2000');
    // 0.1 BTC at 42283.58 = 4228.358 USD at 2:1.
    assert.equal(s(requiredMargin(d('4228.358'), '2')), '2114.179');
    assert.equal(
      s(requiredMargin(d(1000), '3')),
      '333.333333333333333333333333333333333333333333333333333333333',
    );
  });

  it('sums margin_used and keeps margin_available at or above 0', () => {
    assert.equal(s(totalMargin([d(2000), d('2114.179'), d('0.5')])), '4114.679');
    assert.equal(s(totalMargin([])), '0');
    assert.equal(s(marginAvailable(d(10000), d(8000))), '2000');
    assert.equal(s(marginAvailable(d(1000), d(2000))), '0');
  });

  it('measures the level as equity / margin_used x 100', () => {
    assert.equal(s(marginLevelPct(d(3000), d(2000))), '150');
    assert.equal(s(marginLevelPct(d(-500), d(2000))), '-25');
    assert.equal(marginLevelPct(d(3000), d(0)), null);
  });
});

describe('margin states at the exact boundaries', () => {
  const used = d(2000);
  it('applies each level at or below it', () => {
    const cases: [string, string][] = [
      ['1000000', 'ok'],
      ['3000.01', 'ok'],
      ['3000', 'warning'], // 150 %
      ['2000.01', 'warning'],
      ['2000', 'call'], // 100 %
      ['1000.01', 'call'],
      ['1000', 'stop_out'], // 50 %
      ['0', 'stop_out'],
      ['-100', 'stop_out'],
    ];
    for (const [equity, state] of cases)
      assert.equal(marginState(d(equity), used), state, `equity ${equity}`);
  });

  it('is ok without margin used, whatever the equity', () => {
    assert.equal(marginState(d(-5), d(0)), 'ok');
  });

  it('emits an account event only when the state gets worse', () => {
    assert.equal(marginEvent('ok', 'warning'), 'MARGIN_WARNING');
    assert.equal(marginEvent('ok', 'call'), 'MARGIN_CALL');
    assert.equal(marginEvent('warning', 'call'), 'MARGIN_CALL');
    assert.equal(marginEvent('call', 'stop_out'), 'MARGIN_CALL');
    assert.equal(marginEvent('ok', 'stop_out'), 'MARGIN_CALL');
    assert.equal(marginEvent('warning', 'warning'), null);
    assert.equal(marginEvent('call', 'warning'), null);
    assert.equal(marginEvent('stop_out', 'call'), null);
    assert.equal(marginEvent('call', 'ok'), null);
  });
});

describe('order margin checks', () => {
  it('allows exactly the free margin and no more', () => {
    const account = { equity: d(10000), marginUsed: d(8000) };
    assert.equal(wouldExceedMargin({ ...account, additionalMargin: d(2000) }), false);
    assert.equal(wouldExceedMargin({ ...account, additionalMargin: d('2000.01') }), true);
    assert.equal(wouldExceedMargin({ ...account, additionalMargin: d(0) }), false);
    assert.equal(wouldExceedMargin({ ...account, additionalMargin: d(-500) }), false);
    // Under water: a reducing order still passes, any increase fails.
    assert.equal(wouldExceedMargin({ equity: d(500), marginUsed: d(2000), additionalMargin: d(0) }), false);
    assert.equal(
      wouldExceedMargin({ equity: d(500), marginUsed: d(2000), additionalMargin: d('0.01') }),
      true,
    );
  });

  it('counts only the units that add exposure (netting)', () => {
    const delta = (current: number, order: number) => s(exposureDelta(d(current), d(order)));
    assert.equal(delta(0, 100), '100', 'open long');
    assert.equal(delta(0, -100), '100', 'open short');
    assert.equal(delta(100, 50), '50', 'add to long');
    assert.equal(delta(-100, -50), '50', 'add to short');
    assert.equal(delta(100, -40), '0', 'reduce long');
    assert.equal(delta(-100, 40), '0', 'reduce short');
    assert.equal(delta(100, -100), '0', 'close');
    assert.equal(delta(100, -150), '50', 'reverse to short 50');
    assert.equal(delta(-100, 250), '150', 'reverse to long 150');
    assert.equal(delta(100, 0), '0');
  });

  it('frees the margin of the units a reducing order closes, pro rata', () => {
    const released = (current: number, order: number, margin: number) =>
      s(releasedMargin(d(current), d(order), d(margin)));
    assert.equal(released(100, -40, 2000), '800');
    assert.equal(released(-100, 40, 2000), '800');
    assert.equal(released(100, -150, 2000), '2000');
    assert.equal(released(100, 50, 2000), '0');
    assert.equal(released(0, 10, 0), '0');
    // A reversal of +100 (margin 2000) by -150 at 1000 USD/unit, leverage 50: 50 new units need 1000;
    // 10000 equity with 9500 used passes only because the close frees 2000 first.
    const additional = requiredMargin(exposureDelta(d(100), d(-150)).times(1000), '50');
    assert.equal(s(additional), '1000');
    const freed = releasedMargin(d(100), d(-150), d(2000));
    assert.equal(
      wouldExceedMargin({ equity: d(10000), marginUsed: d(9500), additionalMargin: additional }),
      true,
    );
    assert.equal(
      wouldExceedMargin({ equity: d(10000), marginUsed: d(9500).minus(freed), additionalMargin: additional }),
      false,
    );
  });
});

describe('stop-out liquidation', () => {
  const positions = [
    { id: 'c', unrealizedPnl: d(-100), margin: d(400) },
    { id: 'a', unrealizedPnl: d(-500), margin: d(1000) },
    { id: 'd', unrealizedPnl: d(250), margin: d(100) },
    { id: 'b', unrealizedPnl: d(-100), margin: d(600) },
    { id: 'e', unrealizedPnl: d(-100), margin: d(600) },
  ];

  it('orders by largest loss, then larger margin, then id', () => {
    assert.deepEqual(
      liquidationOrder(positions).map((p) => p.id),
      ['a', 'b', 'e', 'c', 'd'],
    );
    assert.deepEqual(
      positions.map((p) => p.id),
      ['c', 'a', 'd', 'b', 'e'],
      'input untouched',
    );
  });

  it('closes until the level is above 50 %', () => {
    const three = positions.filter((p) => ['a', 'b', 'c'].includes(p.id)); // margin 2000
    // 900 / 2000 = 45 %: close a -> 900 / 1000 = 90 %.
    assert.deepEqual(
      stopOutPlan(d(900), d(2000), three).map((p) => p.id),
      ['a'],
    );
    // 500 / 2000 = 25 %: close a -> 50 % (still stop-out), close b -> 500 / 400 = 125 %.
    assert.deepEqual(
      stopOutPlan(d(500), d(2000), three).map((p) => p.id),
      ['a', 'b'],
    );
    // 1000.01 / 2000 is above 50 %: nothing to close.
    assert.deepEqual(stopOutPlan(d('1000.01'), d(2000), three), []);
    // No equity left: everything goes.
    assert.deepEqual(
      stopOutPlan(d(-10), d(2000), three).map((p) => p.id),
      ['a', 'b', 'c'],
    );
  });
});
